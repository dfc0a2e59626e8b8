"""The evaluation commands end to end: evaluate / tournament (subprocess) and report on synthetic runs."""

import json
import subprocess
import sys

import matplotlib.image
import pytest

from lost_cities.cli.report import main
from lost_cities.training.report import find_runs, read_metrics, run_labels


def _run(module, *overrides, cwd):
    done = subprocess.run(
        [sys.executable, "-m", module, *overrides], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_tournament_prints_and_writes_the_duplicate_result(tmp_path):
    # Identical deterministic bots mirrored: exactly even, whatever the deals.
    out = _run(
        "lost_cities.tournament",
        "a=discard_only",
        "b=discard_only",
        "env=single_round",
        "deals=3",
        "batch_size=3",
        "progress=false",
        f"out={tmp_path / 'copy.json'}",
        f"hydra.run.dir={tmp_path / 'run'}",
        cwd=tmp_path,
    )
    assert "discard_only vs discard_only (single_round, 3 deals x 2 seats): win rate 0.500" in out
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results == json.loads((tmp_path / "copy.json").read_text())
    assert results["win_rate"] == 0.5 and results["games"] == 6 and results["margin_mean"] == 0.0
    assert (results["agent"], results["opponent"], results["bank"]) == ("discard_only", "discard_only", "v1")


def test_evaluate_rejects_an_unknown_agent_with_a_clear_message(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lost_cities.evaluate",
            "agent=nobody",
            "env=single_round",
            "deals=2",
            f"hydra.run.dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert "'nobody' is neither an existing checkpoint directory" in done.stderr


def _gate(win_rate, passed):
    return {
        "win_rate": win_rate,
        "win_rate_lower": win_rate - 0.05,
        "win_rate_upper": win_rate + 0.05,
        "passed": passed,
    }


def _synthetic_sweep(root):
    """Two runs as a Hydra multirun lays them out, one with a cut-off last metrics line."""
    for job, (coef, slope) in enumerate([("0.01", 0.002), ("0.03", 0.001)]):
        run = root / f"{job}_ppo.ent_coef={coef}"
        (run / ".hydra").mkdir(parents=True)
        (run / ".hydra" / "overrides.yaml").write_text(f"- experiment=tiny\n- ppo.ent_coef={coef}\n")
        steps_key = "env_steps" if job == 0 else "learner/env_steps"  # both spellings are read
        rows = [
            {
                "update": u,
                steps_key: 1000.0 * u,
                "episode/return": slope * u,
                "train/entropy": 2.0 - slope * u,
            }
            for u in range(1, 51)
        ]
        text = "\n".join(json.dumps(row) for row in rows) + '\n{"update": 51, "env_st'
        (run / "metrics.jsonl").write_text(text)
        gates = {"random": _gate(0.9 + slope, True), "heuristic_expert": _gate(0.3 + 100 * slope, job == 0)}
        (run / "gates.json").write_text(json.dumps(gates))
    return root


def test_report_compares_a_sweep(tmp_path):
    root = _synthetic_sweep(tmp_path / "multirun")
    runs = find_runs([root])
    assert [run.name for run in runs] == ["0_ppo.ent_coef=0.01", "1_ppo.ent_coef=0.03"]
    assert run_labels(runs, root) == ["ppo.ent_coef=0.01", "ppo.ent_coef=0.03"]  # the shared override dropped
    assert len(read_metrics(runs[0])) == 50  # the cut-off line of a run still writing is ignored

    assert main([str(root)]) == 0
    image = matplotlib.image.imread(root / "report.png")
    assert image.shape[0] > 300 and image.shape[1] > 800
    assert image[..., :3].std() > 0.05  # something was drawn
    table = (root / "report.md").read_text().splitlines()
    header = next(line for line in table if line.startswith("| run"))
    assert "vs heuristic_expert" in header and "episode/return" in header
    row = next(line for line in table if line.startswith("| ppo.ent_coef=0.03"))
    assert "| 50 | 50000 |" in row and "0.400 [0.350, 0.450] FAIL" in row and "0.05 |" in row


def test_report_metric_patterns_and_errors(tmp_path, capsys):
    root = _synthetic_sweep(tmp_path / "multirun")
    runs = sorted(root.iterdir())
    assert main([str(run) for run in runs] + ["--metrics", "train/*", "--out", str(tmp_path / "out")]) == 0
    header = (tmp_path / "out" / "report.md").read_text().splitlines()[4]
    assert "train/entropy" in header and "episode/return" not in header
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "missing")])
    assert exit_info.value.code == 2 and "not a directory" in capsys.readouterr().err
