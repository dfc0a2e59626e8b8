"""The evaluation commands end to end: evaluate / tournament (subprocess) and report on synthetic runs."""

import json
import subprocess
import sys

import matplotlib.colors
import matplotlib.image
import numpy.testing
import pytest

from lost_cities.cli.report import main
from lost_cities.training import report
from lost_cities.training.report import find_runs, read_metrics, run_labels


def _run(module, *overrides, cwd):
    done = subprocess.run(
        [sys.executable, "-m", module, *overrides], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow
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


@pytest.mark.slow
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


def _write_run(run, overrides, rows, gates=None):
    (run / ".hydra").mkdir(parents=True)
    (run / ".hydra" / "overrides.yaml").write_text("".join(f"- {item}\n" for item in overrides))
    (run / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    if gates is not None:
        (run / "gates.json").write_text(json.dumps(gates))
    return run


def _pixels_near(image, color, tolerance=0.02):
    """How many pixels of ``image`` are within ``tolerance`` of the RGB ``color``."""
    return int((abs(image[..., :3] - matplotlib.colors.to_rgb(color)) < tolerance).all(axis=-1).sum())


def test_report_draws_runs_of_a_single_point(tmp_path):
    # A tiny run's episode metrics appear in its last update only: one point per run.
    root = tmp_path / "multirun"
    for job, value in enumerate((0.2, 0.7)):
        rows = [{"update": 1, "env_steps": 128.0}, {"update": 2, "env_steps": 256.0, "episode/return": value}]
        _write_run(root / f"{job}_seed={job}", ["experiment=tiny", f"seed={job}"], rows)
    assert main([str(root)]) == 0
    image = matplotlib.image.imread(root / "report.png")
    panel = image[: int(image.shape[0] * 0.75)]  # above the legend, whose samples have the runs' colours
    assert _pixels_near(panel, "C0") > 5 and _pixels_near(panel, "C1") > 5


# A 2 x 2 grid: (ppo.ent_coef, ppo.gae_lambda) -> heuristic_expert's win rate.
GRID = {("0.003", "0.9"): 0.1, ("0.003", "0.95"): 0.3, ("0.03", "0.9"): 0.6, ("0.03", "0.95"): 0.85}


def _grid_sweep(root, cells=GRID):
    """A tiny sweep's run dirs: gated once, in the last of two updates."""
    for job, ((coef, lam), win_rate) in enumerate(cells.items()):
        overrides = ["experiment=tiny", f"ppo.ent_coef={coef}", f"ppo.gae_lambda={lam}"]
        gates = {"random": _gate(0.95, True), "heuristic_expert": _gate(win_rate, win_rate > 0.5)}
        gate_row = {
            f"gates/{name}/{k}": v for name, gate in gates.items() for k, v in gate.items() if k != "passed"
        }
        rows = [
            {"update": 1, "learner/env_steps": 128.0},
            {"update": 2, "learner/env_steps": 256.0, **gate_row},
        ]
        _write_run(root / f"{job}_ppo.ent_coef={coef},ppo.gae_lambda={lam}", overrides, rows, gates)
    return root


def test_report_draws_a_heatmap_per_gate_over_a_two_knob_grid(tmp_path):
    root = _grid_sweep(tmp_path / "multirun")
    assert main([str(root)]) == 0
    text = (root / "report.md").read_text()
    section = text.split(
        "## vs heuristic_expert: final win rate [95% interval] by ppo.ent_coef and ppo.gae_lambda"
    )[1]
    table = [line for line in section.splitlines() if line.startswith("|")]
    assert table[0] == "| ppo.ent_coef \\ ppo.gae_lambda | 0.9 | 0.95 |"
    assert table[2] == "| 0.003 | 0.100 [0.050, 0.150] FAIL | 0.300 [0.250, 0.350] FAIL |"
    assert table[3] == "| 0.03 | 0.600 [0.550, 0.650] pass | 0.850 [0.800, 0.900] pass |"
    assert "## vs random: final win rate" in text
    # Each cell of the heatmap is a block of its win rate's colour (no bar or line has these).
    image = matplotlib.image.imread(root / "report.png")
    for win_rate in GRID.values():
        assert _pixels_near(image, matplotlib.colormaps["RdYlGn"](win_rate)) > 1000


def test_report_draws_no_heatmap_off_a_grid(tmp_path):
    cells = dict(list(GRID.items())[:3])  # a missing corner: not a grid
    root = _grid_sweep(tmp_path / "multirun", cells)
    assert main([str(root)]) == 0
    assert "final win rate [95% interval]" not in (root / "report.md").read_text()
    one_knob = _synthetic_sweep(tmp_path / "one")
    assert main([str(one_knob)]) == 0
    assert "final win rate [95% interval]" not in (one_knob / "report.md").read_text()


def _anchors(win_rate, margin):
    return {
        "anchors/heuristic_expert/win_rate": win_rate,
        "anchors/heuristic_expert/win_rate_lower": win_rate - 0.03,
        "anchors/heuristic_expert/win_rate_upper": win_rate + 0.03,
        "anchors/heuristic_expert/margin_mean": margin,
        "anchors/heuristic_expert/margin_lower": margin - 3.0,
        "anchors/heuristic_expert/margin_upper": margin + 3.0,
    }


def _loop_run(run):
    """An improvement loop's run dir after two iterations (the second promoted), the third cut off."""
    gate = {
        "gate/win_rate": 0.45,
        "gate/win_rate_lower": 0.35,
        "gate/win_rate_upper": 0.55,
        "gate/margin_mean": -2.0,
    }
    rows = [
        {"iteration": 0, "promoted": True, "champion": "champions/0000", **_anchors(0.6, 20.0)},
        {"iteration": 1, **gate, "promoted": False, "champion": "champions/0000", **_anchors(0.6, 20.0)},
        {
            "iteration": 2,
            **{**gate, "gate/win_rate": 0.7, "gate/win_rate_lower": 0.62, "gate/win_rate_upper": 0.78},
            "promoted": True,
            "champion": "students/0002",
            **_anchors(0.72, 29.0),
            "anchors/first/win_rate": 0.66,
            "anchors/first/win_rate_lower": 0.6,
            "anchors/first/win_rate_upper": 0.71,
            "anchors/first/margin_mean": 12.5,
            "anchors/first/margin_lower": 8.0,
            "anchors/first/margin_upper": 17.0,
        },
    ]
    run.mkdir(parents=True)
    text = "".join(json.dumps(row) + "\n" for row in rows) + '{"iteration": 3, "gate/win'
    (run / "iterations.jsonl").write_text(text)
    (run / "config.yaml").write_text("experiment_name: improve\n")
    (run / "students" / "0002" / "checkpoints").mkdir(parents=True)
    return run


def test_report_takes_an_improvement_loop_by_iteration(tmp_path, monkeypatch):
    run = _loop_run(tmp_path / "outputs" / "improve" / "loop")
    assert find_runs([tmp_path / "outputs"]) == [run]
    figures = []
    monkeypatch.setattr(report.plt, "close", figures.append)  # keep the figure to look at it
    assert main([str(run), "--out", str(tmp_path / "out")]) == 0
    table = (tmp_path / "out" / "report.md").read_text().splitlines()
    header = next(line for line in table if line.startswith("| run"))
    assert "| iterations |" in header and "vs heuristic_expert" in header and "vs first" in header
    assert "gate/win_rate" in header and "anchors/heuristic_expert/win_rate" in header
    row = table[table.index(header) + 2]
    # The last anchors, against heuristic_expert and the first champion.
    assert "| 2 |" in row and "0.720 [0.690, 0.750]" in row and "0.660 [0.600, 0.710]" in row
    axes = {ax.get_title(): ax for ax in figures[0].axes}
    gate = axes["gate/win_rate"]
    assert gate.get_xlabel() == "iteration" and list(gate.lines[0].get_xdata()) == [1, 2]
    bars = [c for c in gate.collections if len(c.get_segments()) == 2]  # each iteration's interval
    numpy.testing.assert_allclose(bars[0].get_segments(), [[[1, 0.35], [1, 0.55]], [[2, 0.62], [2, 0.78]]])
    assert "anchors/first/margin_mean" in axes
