"""tools/results_table.py: docs/results.md is what the generator writes, a claim must have provenance,
and every shipped net has a lineage that holds (tools/lineage.yaml)."""

import importlib.util
import json
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


def load_generator():
    spec = importlib.util.spec_from_file_location("results_table", ROOT / "tools" / "results_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_table_is_what_the_generator_writes(tmp_path):
    generator = load_generator()
    out = tmp_path / "results.md"
    assert generator.main(["--out", str(out)]) == 0
    assert out.read_text() == (ROOT / "docs" / "results.md").read_text(), "run: python tools/results_table.py"


def test_a_results_file_without_provenance_is_refused(tmp_path, monkeypatch, capsys):
    generator = load_generator()
    source = ROOT / "experiments/expert-iteration/continue-xi6/xi6_vs_expert_10k.json"
    result = json.loads(source.read_text())
    del result["provenance"]
    bare = tmp_path / "xi6_vs_expert_10k.json"
    bare.write_text(json.dumps(result))
    with pytest.raises(generator.ClaimError, match=f"{bare}: lacks provenance"):
        generator.render(claims=[("bc-ppo-xi6", bare)])

    out = tmp_path / "results.md"
    monkeypatch.setattr(generator, "CLAIMS", (("bc-ppo-xi6", bare),))
    assert generator.main(["--out", str(out)]) == 1
    assert str(bare) in capsys.readouterr().err
    assert not out.exists()


def test_a_results_file_missing_a_needed_field_is_refused(tmp_path):
    generator = load_generator()
    source = ROOT / "experiments/expert-iteration/continue-xi6/xi6_vs_expert_10k.json"
    result = json.loads(source.read_text())
    del result["margin_lower"]
    result["provenance"]["commit"] = ""
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(result))
    with pytest.raises(generator.ClaimError, match="lacks margin_lower, provenance.commit"):
        generator.render(claims=[("bc-ppo-xi6", partial)])


def net(data, name):
    return next(each for each in data["nets"] if each["net"] == name)


def drop_policy(data):
    data["nets"].remove(net(data, "ppo-match3-3m"))


def start_elsewhere(data):
    net(data, "bc-ppo-af1")["steps"][1]["from"] = "outputs/runs/elsewhere"


def write_outside_the_clone(data):
    # An absolute path (this machine's, made at run time: the repository names none).
    net(data, "bc-ppo-af1")["steps"][0]["writes"] = str(Path.cwd().absolute() / "runs" / "clone0")


def rename_the_export(data):
    export = net(data, "bc-ppo-af1")["steps"][-1]
    export["command"] = export["command"].replace("393k decisions", "394k decisions")


def export_elsewhere(data):
    export = net(data, "improve-d4")["steps"][-1]
    export["command"] = export["command"].replace(
        "out=web/public/improve-d4.onnx", "out=outputs/improve-d4.onnx"
    )


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (drop_policy, "no chain for web/public/policy.onnx"),
        (
            start_elsewhere,
            "'bc-ppo-af1' step 2: starts from 'outputs/runs/elsewhere', which no earlier step writes",
        ),
        (write_outside_the_clone, "'bc-ppo-af1' step 1: its writes names an absolute path"),
        (rename_the_export, "'bc-ppo-af1' step 3: exports the name .*394k.*; the manifest's is"),
        (export_elsewhere, "'improve-d4' step 3: writes web/public/improve-d4.onnx, but its command's out="),
    ],
)
def test_a_lineage_that_does_not_hold_is_refused(tmp_path, monkeypatch, edit, message):
    generator = load_generator()
    data = yaml.safe_load((ROOT / generator.LINEAGE).read_text())
    edit(data)
    lineage = tmp_path / "lineage.yaml"
    lineage.write_text(yaml.safe_dump(data))
    monkeypatch.setattr(generator, "LINEAGE", str(lineage))
    with pytest.raises(generator.LineageError, match=message):
        generator.render()
