"""One source of truth for the training config: the YAML holds every value and every
``_target_``; the schema dataclasses hold types, required markers and checks only."""

import dataclasses
import itertools
from pathlib import Path

import pytest
from omegaconf import MISSING, OmegaConf

from lost_cities.evaluation.gates import GateConfig, GatesConfig
from lost_cities.ppo import config as schema

# Fields that are not values: the renamed key kept as an error, and a gate's optional bounds.
NOT_VALUES = {("PPOConfig", "total_steps"), ("GateConfig", "min"), ("GateConfig", "max")}
SCHEMAS = [
    schema.TrainConfig,
    schema.CheckpointConfig,
    schema.EvaluationConfig,
    GatesConfig,
    GateConfig,
    *(node for options in schema.SCHEMAS.values() for node in options.values()),
]


@pytest.mark.parametrize("node", SCHEMAS, ids=lambda node: node.__name__)
def test_the_schema_holds_no_values(node):
    for f in dataclasses.fields(node):
        if (node.__name__, f.name) in NOT_VALUES:
            continue
        assert f.default is MISSING, f"{node.__name__}.{f.name} has a default: put the value in conf/"


def compose_group(group, option):
    return schema.compose([f"{group}={option}", "logger=none"])[group]


@pytest.mark.parametrize(
    "group, option", [(g, o) for g in ("reward", "critic", "opponent", "logger") for o in schema.SCHEMAS[g]]
)
def test_every_built_group_names_its_target_in_yaml(group, option):
    cfg = compose_group(group, option)
    assert cfg._target_.startswith("lost_cities.") and not OmegaConf.is_missing(cfg, "_target_")


def test_a_yaml_missing_a_value_fails_clearly():
    cfg = schema.compose(["reward.scale=???"])  # as a yaml that forgot it
    with pytest.raises(Exception, match="reward.scale"):
        schema.validate(cfg)


def test_the_learning_rate_warms_up_then_anneals_to_zero():
    from lost_cities.ppo.trainer import learning_rate_schedule

    cfg = schema.validate(schema.compose(["ppo.lr_warmup_updates=2"]))
    ppo = cfg.ppo
    per_update = ppo.epochs * ppo.minibatches
    steps = ppo.total_decisions // (ppo.num_envs * ppo.rollout_length) * per_update
    schedule = learning_rate_schedule(ppo)
    warmup = [float(schedule(i)) for i in range(2 * per_update + 1)]
    assert warmup[0] == 0.0 and warmup[-1] == pytest.approx(ppo.lr)
    assert all(a < b for a, b in itertools.pairwise(warmup))  # rises every step
    assert float(schedule(steps)) == pytest.approx(0.0, abs=1e-9)  # still ends at 0
    plain = learning_rate_schedule(schema.validate(schema.compose()).ppo)
    assert float(plain(0)) == pytest.approx(ppo.lr)  # no warm-up by default
    halfway = 2 * per_update + (steps - 2 * per_update) // 2  # the anneal fills the rest of the run
    assert float(schedule(halfway)) == pytest.approx(ppo.lr / 2, rel=1e-3)


def test_a_restart_sends_the_rate_back_up_onto_the_line_to_the_next_end():
    """``ppo.anneal_restarts=[16]`` in a 48-update run: to 0 at update 16, then on the line
    from lr to 0 at 48 (two thirds of lr at update 16), as an extended run would; after a
    warm-up of w updates the line runs over the updates after it (1 - (16-w)/(48-w))."""
    from lost_cities.ppo.trainer import learning_rate_schedule

    for warmup in (0, 4):
        ppo = schema.validate(
            schema.compose([f"ppo.lr_warmup_updates={warmup}", "ppo.anneal_restarts=[16]"])
        ).ppo
        per_update = ppo.epochs * ppo.minibatches
        schedule = learning_rate_schedule(ppo)
        rates = [float(schedule(i)) for i in range(48 * per_update + 1)]
        restart = 16 * per_update
        assert rates[restart - 1] < ppo.lr / 16  # all but 0 just before the restart
        assert rates[restart] == pytest.approx(ppo.lr * (1 - (16 - warmup) / (48 - warmup)), rel=1e-5)
        assert all(a > b for a, b in itertools.pairwise(rates[warmup * per_update : restart]))
        assert all(a > b for a, b in itertools.pairwise(rates[restart:]))
        assert rates[-1] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["ppo.anneal_restarts=[16,8]"], r"must rise strictly"),
        (["ppo.anneal_restarts=[48]"], r"before the run's end \(48 updates\)"),
        (["ppo.anneal_restarts=[2]", "ppo.lr_warmup_updates=2"], r"after the warm-up \(2 updates\)"),
        (["ppo.anneal_restarts=[16]", "ppo.anneal_lr=false"], r"needs ppo.anneal_lr=true"),
    ],
)
def test_restarts_outside_the_annealed_run_are_refused(overrides, message):
    with pytest.raises(ValueError, match=message):
        schema.validate(schema.compose(overrides))


@pytest.mark.parametrize(
    "experiment",
    sorted(p.stem for p in (Path(schema.__file__).parents[2] / "conf" / "experiment").glob("*.yaml")),
)
def test_every_experiment_config_validates(experiment, tmp_path):
    """A preset that only fails when a recipe reaches its stage hours in is a late error."""
    start = [f"init.start={tmp_path}"] if experiment == "expert_iteration" else []  # its required key
    cfg = schema.validate(schema.compose([f"experiment={experiment}", *start]))
    assert cfg.experiment_name == experiment


def test_a_warmup_as_long_as_the_run_is_refused():
    with pytest.raises(ValueError, match="ppo.lr_warmup_updates=48 must be >= 0 and less than the run's 48"):
        schema.validate(schema.compose(["ppo.lr_warmup_updates=48"]))
