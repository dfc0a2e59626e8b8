"""The recipe runner (lost_cities/training/recipe.py): stages run in order, each from the one
before; a resume skips the finished stages and continues or restarts the interrupted one.
The stages are tests/training/fake_stage.py (the real ones take minutes each; what they do is
tested with their own entry points); what is tested here is the chaining."""

import json
import os
import signal
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from lost_cities.training import recipe

HERE = Path(__file__).parent


def _cfg(**changes):
    cfg = OmegaConf.load(Path(recipe.__file__).parents[2] / "conf" / "cli" / "recipe.yaml")
    del cfg["hydra"]
    cfg.progress = False
    cfg.gates.opponents = ["heuristic_expert"]
    cfg.xi_steps = 2
    return OmegaConf.merge(cfg, changes)


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """Stages and gates run tests/training/fake_stage.py; returns a reader of its command log."""
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", str(HERE))
    monkeypatch.setattr(recipe, "entry_module", lambda entry: "fake_stage")
    real_run = recipe.subprocess.run

    def run(command, **kwargs):  # the entry the recipe meant, told to the stand-in
        if command[:3] != [sys.executable, "-m", "fake_stage"]:
            return real_run(command, **kwargs)  # not the recipe's (matplotlib asks for fonts)
        return real_run(command, env={**os.environ, "FAKE_ENTRY": _entry_of(command)}, **kwargs)

    monkeypatch.setattr(recipe.subprocess, "run", run)
    return lambda: [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def _entry_of(command):
    if any(a.startswith("agent=") for a in command):
        return "evaluate"
    return "train" if any(a.startswith(("init.checkpoint=", "resume=")) for a in command) else "pretrain"


def test_the_stages_run_in_order_each_from_the_one_before(fake, tmp_path):
    cfg, recipe_dir = recipe.prepare_recipe_dir(_cfg(), tmp_path / "r", [])
    rows = recipe.run_recipe(cfg, recipe_dir)
    assert [r["stage"] for r in rows] == ["clone", "ppo", "xi1", "xi2", "bal"]
    calls = [c for c in fake() if c["entry"] != "evaluate"]
    assert [c["dir"] for c in calls] == ["clone", "ppo", "xi1", "xi2", "bal"]
    stages = recipe_dir / "stages"
    assert "init.checkpoint" not in calls[0]["args"] and "init.start" not in calls[0]["args"]
    assert calls[1]["args"]["init.checkpoint"] == str(stages / "clone")
    assert calls[1]["args"]["experiment"] == "recipe_ppo"  # each stage one experiment config
    assert calls[2]["args"]["init.start"] == str(stages / "ppo")
    assert calls[3]["args"]["init.start"] == str(stages / "xi1")
    assert calls[3]["args"]["experiment"] == "expert_iteration"
    assert calls[4]["args"]["init.checkpoint"] == str(stages / "xi2")
    assert calls[4]["args"]["experiment"] == "recipe_balanced"
    assert {c["args"]["seed"] for c in calls} == {"0"}
    gates = [c for c in fake() if c["entry"] == "evaluate"]
    assert [c["args"]["agent"] for c in gates] == [
        str(stages / s) for s in ("clone", "ppo", "xi1", "xi2", "bal")
    ]
    assert {(c["args"]["deals"], c["args"]["first_deal"]) for c in gates} == {("1000", "10000")}
    assert rows[-1]["gates"]["heuristic_expert"]["win_rate"] == 0.6
    assert [
        json.loads(line)["stage"] for line in (recipe_dir / recipe.STAGES_FILE).read_text().splitlines()
    ] == ["clone", "ppo", "xi1", "xi2", "bal"]
    assert recipe.plot_recipe(rows, recipe_dir / "curve.png", "t").stat().st_size > 0


@pytest.mark.parametrize("dies, entry", [("ppo", "train"), ("xi1", "pretrain")])
def test_a_resume_continues_where_the_recipe_stopped(fake, monkeypatch, tmp_path, dies, entry):
    monkeypatch.setenv("FAKE_DIE", dies)
    cfg, recipe_dir = recipe.prepare_recipe_dir(_cfg(), tmp_path / "r", [])
    with pytest.raises(recipe.StageFailed, match=f"stage {dies}: {entry} failed .*resume="):
        recipe.run_recipe(cfg, recipe_dir)
    finished = [
        json.loads(line)["stage"] for line in (recipe_dir / recipe.STAGES_FILE).read_text().splitlines()
    ]
    assert dies not in finished and finished[-1] == ("clone" if dies == "ppo" else "ppo")
    before = len(fake())
    cfg, _ = recipe.prepare_recipe_dir(_cfg(resume=str(recipe_dir)), tmp_path / "unused", ["resume=x"])
    rows = recipe.run_recipe(cfg, recipe_dir)
    assert [r["stage"] for r in rows] == ["clone", "ppo", "xi1", "xi2", "bal"]
    again = [c for c in fake()[before:] if c["entry"] != "evaluate"]
    assert again[0]["dir"] == dies  # nothing finished ran again
    stage_dir = recipe_dir / "stages" / dies
    if entry == "train":  # continued from its checkpoint
        assert again[0]["args"] == {"resume": str(stage_dir), "progress": "false"}
    else:  # restarted; the partial run kept aside
        assert "hydra.run.dir" in again[0]["args"]
        assert (stage_dir.with_name(f"{dies}.interrupted-1") / "config.yaml").exists()
    row = next(r for r in rows if r["stage"] == dies)
    assert row["attempts"] == 2


def test_a_recipe_stopped_by_sigterm_records_the_attempt_it_stopped(fake, monkeypatch, tmp_path):
    """Its seconds count towards the recipe's (a budget claim would otherwise undercount)."""
    monkeypatch.setenv("FAKE_STOP", "xi1")
    cfg, recipe_dir = recipe.prepare_recipe_dir(_cfg(), tmp_path / "r", [])
    before = signal.getsignal(signal.SIGTERM)
    try:
        recipe._interrupt_on_sigterm()
        with pytest.raises(recipe.Interrupted, match="SIGTERM"):
            recipe.run_recipe(cfg, recipe_dir)
    finally:
        signal.signal(signal.SIGTERM, before)
    stopped = [json.loads(line) for line in (recipe_dir / recipe.ATTEMPTS_FILE).read_text().splitlines()][-1]
    assert stopped["stage"] == "xi1" and stopped["exit_code"] is None
    assert stopped["interrupted"] == "SIGTERM" and stopped["seconds"] > 0
    cfg, _ = recipe.prepare_recipe_dir(_cfg(resume=str(recipe_dir)), tmp_path / "unused", ["resume=x"])
    rows = recipe.run_recipe(cfg, recipe_dir)
    assert [r["stage"] for r in rows] == ["clone", "ppo", "xi1", "xi2", "bal"]
    xi1 = next(r for r in rows if r["stage"] == "xi1")
    assert xi1["attempts"] == 2 and xi1["seconds"] >= stopped["seconds"]


def test_a_resume_may_add_steps_before_the_last_stage_and_refuses_other_changes(fake, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_DIE", "xi2")
    cfg, recipe_dir = recipe.prepare_recipe_dir(_cfg(), tmp_path / "r", [])
    with pytest.raises(recipe.StageFailed):
        recipe.run_recipe(cfg, recipe_dir)
    with pytest.raises(ValueError, match=r"ignore \['seed'\]"):
        recipe.prepare_recipe_dir(
            _cfg(resume=str(recipe_dir), seed=1), tmp_path / "u", ["resume=x", "seed=1"]
        )
    cfg, _ = recipe.prepare_recipe_dir(
        _cfg(resume=str(recipe_dir), xi_steps=3), tmp_path / "u", ["resume=x", "xi_steps=3"]
    )
    before = len(fake())
    rows = recipe.run_recipe(cfg, recipe_dir)
    assert [r["stage"] for r in rows][-3:] == ["xi2", "xi3", "bal"]
    calls = [c for c in fake()[before:] if c["entry"] != "evaluate"]
    assert [c["dir"] for c in calls] == ["xi2", "xi3", "bal"]
    assert calls[-1]["args"]["init.checkpoint"] == str(recipe_dir / "stages" / "xi3")
    assert OmegaConf.load(recipe_dir / recipe.RECIPE_CONFIG).xi_steps == 3
    # Once bal has finished, a step more would run behind it: refused, nothing changed.
    saved = (recipe_dir / recipe.RECIPE_CONFIG).read_text()
    with pytest.raises(ValueError, match=r"stage xi4 would run before \['bal'\], which finished"):
        recipe.prepare_recipe_dir(
            _cfg(resume=str(recipe_dir), xi_steps=4), tmp_path / "u", ["resume=x", "xi_steps=4"]
        )
    assert (recipe_dir / recipe.RECIPE_CONFIG).read_text() == saved


@pytest.mark.parametrize(
    "stages, message",
    [
        ([{"name": "a", "entry": "evaluate"}], "an entry in"),
        ([{"name": "a", "entry": "train", "start_key": "init.checkpoint"}], "it is the first"),
        ([{"name": "a", "entry": "train"}, {"name": "a", "entry": "train"}], "repeated: \\['a'\\]"),
        ([{"name": "a", "entry": "train", "repeat": -1}], "whole number"),
    ],
)
def test_a_recipe_that_could_not_run_is_refused_before_it_writes(tmp_path, stages, message):
    cfg = _cfg()
    cfg.stages = stages
    with pytest.raises(ValueError, match=message):
        recipe.prepare_recipe_dir(cfg, tmp_path / "r", [])
    assert not (tmp_path / "r").exists()


def test_a_new_recipe_refuses_a_dir_that_holds_files(tmp_path):
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "x").write_text("")
    with pytest.raises(FileExistsError, match="resume="):
        recipe.prepare_recipe_dir(_cfg(), tmp_path / "r", [])


def test_a_recipe_can_start_from_a_given_run_or_model(fake, tmp_path):
    """``start=``: the first stage's ``start_key`` gets it (here: expert-iteration steps on a
    shipped model); a first stage with nothing to take it, or a start that is not there, is
    refused before anything is written."""
    model = tmp_path / "agent.onnx"
    model.write_bytes(b"")
    steps = [{"name": "xi", "entry": "pretrain", "start_key": "init.start", "repeat": 2, "overrides": []}]
    cfg, recipe_dir = recipe.prepare_recipe_dir(_cfg(start=str(model), stages=steps), tmp_path / "r", [])
    recipe.run_recipe(cfg, recipe_dir)
    calls = [c for c in fake() if c["entry"] != "evaluate"]
    assert [c["dir"] for c in calls] == ["xi1", "xi2"]
    assert calls[0]["args"]["init.start"] == str(model)
    assert calls[1]["args"]["init.start"] == str(recipe_dir / "stages" / "xi1")
    with pytest.raises(ValueError, match="start=.*the first stage \\(clone\\) has no start_key"):
        recipe.prepare_recipe_dir(_cfg(start=str(model)), tmp_path / "r2", [])
    with pytest.raises(ValueError, match="stage xi1 starts from a previous stage .*name what it starts from"):
        recipe.prepare_recipe_dir(_cfg(stages=steps), tmp_path / "r3", [])
    with pytest.raises(FileNotFoundError, match="start=.*nothing.onnx does not exist"):
        recipe.prepare_recipe_dir(
            _cfg(start=str(tmp_path / "nothing.onnx"), stages=steps), tmp_path / "r4", []
        )
    assert not any((tmp_path / name).exists() for name in ("r2", "r3", "r4"))


def test_the_continue_preset_steps_on_a_given_agent(tmp_path):
    """``--config-name recipe_continue``: ``xi_steps`` expert-iteration stages, the first from
    ``start`` (required: a recipe without it says so), then the PPO stage against balanced."""
    from hydra import compose, initialize_config_module

    with initialize_config_module("lost_cities.conf.cli", version_base=None):
        cfg = compose("recipe_continue", [f"start={tmp_path}", "xi_steps=2"])
        missing = compose("recipe_continue")
    stages = recipe.expand_stages(cfg)
    assert [(s.name, s.entry, s.start_key) for s in stages] == [
        ("xi1", "pretrain", "init.start"),
        ("xi2", "pretrain", "init.start"),
        ("bal", "train", "init.checkpoint"),
    ]
    assert all(s.overrides == ("experiment=expert_iteration",) for s in stages[:2])
    assert stages[2].overrides == ("experiment=ppo_balanced",)
    with pytest.raises(ValueError, match="stage xi1 starts from a previous stage .*start=<run dir or .onnx>"):
        recipe.expand_stages(missing)


@pytest.mark.parametrize("recipe_name", ["recipe", "recipe_continue"])
@pytest.mark.slow
def test_every_stage_of_the_shipped_recipes_validates(recipe_name, tmp_path):
    """A stage override that only fails when the recipe reaches it, hours in, is a late
    error: each stage's config (its entry's, with its overrides and a start) must validate."""
    from hydra import compose, initialize_config_module

    from lost_cities.ppo.config import validate

    with initialize_config_module("lost_cities.conf.cli", version_base=None):
        cfg = compose(recipe_name, [f"start={tmp_path}"] if recipe_name == "recipe_continue" else [])
    stages = recipe.expand_stages(cfg)
    entry_config = {"train": "config", "pretrain": "pretrain"}
    with initialize_config_module("lost_cities.conf", version_base=None):
        for stage in stages:
            start = [] if stage.start_key is None else [f"{stage.start_key}={tmp_path}"]
            stage_cfg = compose(entry_config[stage.entry], [f"seed={cfg.seed}", *stage.overrides, *start])
            validate(stage_cfg)
    assert stages[-1].name == "bal"
