"""The W&B workspace of a sweep or a loop, built offline (no network, nothing saved)."""

import importlib.util
import json
import sys

import pytest

from lost_cities.cli.report import main
from lost_cities.training import dashboards

needs_library = pytest.mark.skipif(
    importlib.util.find_spec("wandb_workspaces") is None,
    reason="wandb-workspaces not installed (pip install -e '.[dashboards]')",
)

GATES = ("heuristic_expert", "random")


def _gate(win_rate):
    return {
        "win_rate": win_rate,
        "win_rate_lower": win_rate - 0.05,
        "win_rate_upper": win_rate + 0.05,
        "passed": True,
    }


def _sweep(root):
    """A 2 x 2 sweep's run dirs as training leaves them: overrides, config, W&B id, gates."""
    for job, (coef, lam) in enumerate(
        [("0.003", "0.9"), ("0.003", "0.95"), ("0.03", "0.9"), ("0.03", "0.95")]
    ):
        run = root / f"{job}_ppo.ent_coef={coef},ppo.gae_lambda={lam}"
        (run / ".hydra").mkdir(parents=True)
        overrides = ["experiment=tiny", f"ppo.ent_coef={coef}", f"ppo.gae_lambda={lam}"]
        (run / ".hydra" / "overrides.yaml").write_text("".join(f"- {item}\n" for item in overrides))
        (run / "config.yaml").write_text(
            f"experiment_name: tiny\nppo:\n  ent_coef: {coef}\n  gae_lambda: {lam}\n"
        )
        (run / "wandb_id.txt").write_text(f"run{job}")
        (run / "metrics.jsonl").write_text(json.dumps({"update": 1, "gates/random/win_rate": 0.9}) + "\n")
        (run / "gates.json").write_text(json.dumps({name: _gate(0.6) for name in GATES}))
    return root


def _wire(workspace):
    """The view W&B would be sent (made offline)."""
    return workspace._to_model().model_dump(by_alias=True, exclude_none=True)["spec"]["section"]


def _filters(workspace):
    return [
        (f["key"]["name"], f["op"], f["value"]) for f in _wire(workspace)["runSets"][0]["filters"]["filters"]
    ]


def _panels(workspace):
    return {panel.title: panel for section in workspace.sections for panel in section.panels}


@needs_library
def test_a_sweeps_workspace_shows_each_gate_by_config_column_with_its_interval(tmp_path):
    import wandb_workspaces.reports.v2 as wr
    import wandb_workspaces.workspaces as ws

    workspace = dashboards.workspace_for_runs([_sweep(tmp_path / "sweep")], "team/lost-cities")
    assert isinstance(workspace, ws.Workspace)
    assert (workspace.entity, workspace.project, workspace.name) == ("team", "lost-cities", "gates: sweep")
    assert [s.name for s in workspace.sections] == [
        "gates by ppo.ent_coef",
        "gates by ppo.gae_lambda",
        "gates: each run's interval",
        "gates by update",
    ]
    panels = _panels(workspace)
    for gate in GATES:
        for column in ("ppo.ent_coef", "ppo.gae_lambda"):
            scatter = panels[f"vs {gate} by {column}"]
            assert isinstance(scatter, wr.ScatterPlot)
            assert scatter.x.name == column and scatter.y.name == f"gates/{gate}/win_rate"
        keys = [f"gates/{gate}/win_rate", f"gates/{gate}/win_rate_lower", f"gates/{gate}/win_rate_upper"]
        assert panels[f"vs {gate} by update [95%]"].y == keys
        assert panels[f"vs {gate}: final [lower, mean, upper]"].metrics == keys
    # The runs are the sweep's (by their W&B ids); the table pins the knobs and the intervals.
    assert _filters(workspace) == [("name", "IN", ["run0", "run1", "run2", "run3"])]
    pinned = workspace.runset_settings.pinned_columns
    assert "config:ppo.value.ent_coef" in pinned and "summary:gates/random/win_rate_upper" in pinned
    # W&B's wire format, made offline: the scatter's x is the nested config value.
    wire = [p["config"] for s in _wire(workspace)["panelBankConfig"]["sections"] for p in s["panels"]]
    assert {"chartTitle": "vs random by ppo.ent_coef", "xAxis": "config:ppo.value.ent_coef"}.items() <= next(
        c for c in wire if c.get("chartTitle") == "vs random by ppo.ent_coef"
    ).items()


@needs_library
@pytest.mark.slow
def test_a_loops_workspace_shows_its_gate_and_anchors_by_iteration():
    workspace = dashboards.loop_workspace("team", "lost-cities", ["heuristic_expert"], group="improve")
    assert _filters(workspace) == [("group", "=", "improve")]
    assert [s.name for s in workspace.sections] == ["gates by iteration"]
    panels = _panels(workspace)
    assert panels["vs heuristic_expert by iteration [95%]"].y == [
        "anchors/heuristic_expert/win_rate",
        "anchors/heuristic_expert/win_rate_lower",
        "anchors/heuristic_expert/win_rate_upper",
    ]
    assert panels["gate: student vs champion by iteration [95%]"].y[1:] == [
        "gate/win_rate_lower",
        "gate/win_rate_upper",
    ]
    assert panels["margin vs the first champion by iteration [95%]"].y[0] == "anchors/first/margin_mean"


@needs_library
@pytest.mark.slow
def test_the_cli_builds_the_workspace_and_saves_only_when_asked(tmp_path, monkeypatch, capsys):
    root = _sweep(tmp_path / "sweep")
    saved = []
    monkeypatch.setattr(
        dashboards, "save", lambda workspace: saved.append(workspace) or "https://wandb.example/view"
    )
    assert main([str(root), "--wandb-workspace", "team/lost-cities", "--group", "tiny/sweep"]) == 0
    out = capsys.readouterr().out
    assert not saved and "not saved" in out and "gates by ppo.gae_lambda: vs heuristic_expert by" in out
    assert (root / "report.md").exists()
    assert main([str(root), "--wandb-workspace", "team/lost-cities", "--save"]) == 0
    assert len(saved) == 1 and "saved: https://wandb.example/view" in capsys.readouterr().out


def test_bad_workspace_input_is_an_error_before_any_output(tmp_path, monkeypatch, capsys):
    root = _sweep(tmp_path / "sweep")
    with pytest.raises(SystemExit) as exit_info:
        main([str(root), "--save"])
    assert exit_info.value.code == 2 and "--wandb-workspace" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main([str(root), "--wandb-workspace", "no-project"])
    assert exit_info.value.code == 2 and "an entity and a project" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "wandb_workspaces", None)  # the extra not installed
    with pytest.raises(SystemExit) as exit_info:
        main([str(root), "--wandb-workspace", "team/lost-cities"])
    assert exit_info.value.code == 2 and "pip install 'lost-cities-rl[dashboards]'" in capsys.readouterr().err
    assert not (root / "report.md").exists() and not (root / "report.png").exists()
