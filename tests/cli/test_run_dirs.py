"""Commands that write results never collide or overwrite: each run gets its own dir, and an
explicit ``out`` that exists is refused before any game unless ``overwrite=true``."""

import json
import subprocess
import sys

import pytest


def _evaluate(cwd, *overrides):
    command = [sys.executable, "-m", "lost_cities.evaluate", "deals=2", "progress=false", *overrides]
    return subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_evaluations_started_together_keep_two_results_files(tmp_path):
    runs = [_evaluate(tmp_path, f"agent={agent}", "opponent=random") for agent in ("random", "discard_only")]
    for run in runs:
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, err[-2000:]
    files = sorted((tmp_path / "outputs" / "evaluate").glob("*/results.json"))
    assert len(files) == 2
    assert sorted(json.loads(f.read_text())["agent"] for f in files) == ["discard_only", "random"]


@pytest.mark.slow
def test_an_existing_out_is_refused_before_any_game_unless_overwrite(tmp_path):
    out = tmp_path / "mine.json"
    out.write_text("finished work\n")
    refused = _evaluate(tmp_path, "agent=random", "opponent=random", f"out={out}")
    _, err = refused.communicate(timeout=600)
    assert refused.returncode != 0 and f"out={out} exists" in err and "overwrite=true" in err
    assert out.read_text() == "finished work\n"
    assert not (tmp_path / "outputs").exists()  # a refused command leaves no run dir
    replaced = _evaluate(tmp_path, "agent=random", "opponent=random", f"out={out}", "overwrite=true")
    _, err = replaced.communicate(timeout=600)
    assert replaced.returncode == 0, err[-2000:]
    assert json.loads(out.read_text())["provenance"]["command"].startswith("python -m lost_cities.evaluate")


def test_pool_results_refuses_an_existing_out(tmp_path, capsys):
    from lost_cities.cli.pool_results import main

    out = tmp_path / "pooled.json"
    out.write_text("{}")
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "part.json"), "--out", str(out)])
    assert stop.value.code == 2 and "exists" in capsys.readouterr().err
    assert out.read_text() == "{}"
