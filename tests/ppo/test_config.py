"""One source of truth for the training config: the YAML holds every value and every
``_target_``; the schema dataclasses hold types, required markers and checks only."""

import dataclasses

import pytest
from hydra import compose, initialize_config_module
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
    with initialize_config_module(config_module="lost_cities.conf", version_base=None):
        return compose("config", overrides=[f"{group}={option}", "logger=none"])[group]


@pytest.mark.parametrize(
    "group, option", [(g, o) for g in ("reward", "critic", "opponent", "logger") for o in schema.SCHEMAS[g]]
)
def test_every_built_group_names_its_target_in_yaml(group, option):
    cfg = compose_group(group, option)
    assert cfg._target_.startswith("lost_cities.") and not OmegaConf.is_missing(cfg, "_target_")


def test_a_yaml_missing_a_value_fails_clearly():
    with initialize_config_module(config_module="lost_cities.conf", version_base=None):
        cfg = compose("config", overrides=["reward.scale=???"])  # as a yaml that forgot it
    with pytest.raises(Exception, match="reward.scale"):
        schema.validate(cfg)
