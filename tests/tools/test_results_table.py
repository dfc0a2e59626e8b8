"""tools/results_table.py: docs/results.md is what the generator writes, and a claim must have provenance."""

import importlib.util
import json
from pathlib import Path

import pytest

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
