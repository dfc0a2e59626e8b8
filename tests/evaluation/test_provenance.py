"""A results file's provenance names the repository's files as a clone has them."""

from lost_cities.evaluation import provenance


def test_paths_into_the_checkout_are_written_relative_to_it():
    root = provenance.ROOT
    argv = [str(root / "lost_cities" / "evaluate.py"), f"agent={root}/web/public/improve-d4.onnx", "deals=10"]
    expected = "python -m lost_cities.evaluate agent=web/public/improve-d4.onnx deals=10"
    assert provenance.command(argv) == expected


def test_paths_outside_the_checkout_are_kept_as_given():
    assert provenance.relative("agent=/elsewhere/run") == "agent=/elsewhere/run"
    assert provenance.relative("out=outputs/a.json") == "out=outputs/a.json"


def test_record_has_the_four_fields():
    record = provenance.provenance(["tools/results_table.py", "--check"])
    assert set(record) == {"command", "commit", "date", "machine"}
    assert record["command"] == "python tools/results_table.py --check"
