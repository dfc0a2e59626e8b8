"""Lost Cities RL: a pure-JAX rules engine, agents and training (the contract: docs/).

This module re-exports the public engine API (docs/api.md: ``reset``, ``step``,
``match_reset``, ``match_step``, observations and their ``batched_*`` forms). The package
is layered, top to bottom; a module imports only from its own package and the layers
below it (``lint-imports`` checks it, the contract is in pyproject.toml):

| layer                                   | contract                                              |
| --------------------------------------- | ----------------------------------------------------- |
| ``cli``                                 | the entry points: parse a config, call one function   |
| ``agents`` / ``export`` / ``benchmarks`` | any spec as ``act()``; ONNX + manifests; throughput  |
| ``training``                            | the run: run dirs, resume, the loop, recipe, reports  |
| ``imitation``                           | behaviour cloning, warm starts, fitting beliefs       |
| ``ppo``                                 | PPO: config schema, rollout, GAE, trainer, opponents  |
| ``evaluation``                          | duplicate evaluation, deal banks, pooling, gates      |
| ``policies``                            | the one resolver: a spec string to a policy           |
| ``search``                              | determinized (PIMC) search over given policies        |
| ``models``                              | trained networks: checkpoints, exported models        |
| ``networks``                            | af1 action features, MLP and ActionNet, critics       |
| ``bots`` / ``envs``                     | scripted players; ``Env``, the interface above rules  |
| ``obs``                                 | observations v1 (round), v2 (match), privileged       |
| ``game`` / ``checkpoints`` / ``parallel`` / ``distributed`` | the rules; checkpoint store; devices; hosts |
"""

# A multi-host run joins its processes before any device is touched (JAX requires it, and
# the modules below hold device constants): lost_cities.distributed.
from lost_cities.distributed import join_from_environment

join_from_environment()

from lost_cities.game.cards import MAX_STEPS, N_ACTIONS
from lost_cities.game.engine import (
    State,
    batched_legal_mask,
    batched_reset,
    batched_step,
    board_score,
    legal_action_mask,
    reset,
    reset_from_order,
    score,
    step,
)
from lost_cities.game.match import (
    MatchState,
    batched_match_legal_mask,
    batched_match_reset,
    batched_match_reset_from,
    batched_match_step,
    match_legal_action_mask,
    match_reset,
    match_reset_from,
    match_step,
)
from lost_cities.obs.v1 import OBS_DIM, batched_obs, observation
from lost_cities.obs.v2 import (
    OBS_V2_DIM,
    OBS_V2_VERSION,
    batched_match_obs,
    match_observation,
    privileged_match_observation,
)

__all__ = [
    "MAX_STEPS",
    "MatchState",
    "batched_match_legal_mask",
    "batched_match_reset",
    "batched_match_reset_from",
    "batched_match_step",
    "match_legal_action_mask",
    "match_reset",
    "match_reset_from",
    "match_step",
    "N_ACTIONS",
    "OBS_DIM",
    "OBS_V2_DIM",
    "OBS_V2_VERSION",
    "batched_match_obs",
    "match_observation",
    "privileged_match_observation",
    "State",
    "batched_legal_mask",
    "batched_obs",
    "batched_reset",
    "batched_step",
    "board_score",
    "legal_action_mask",
    "observation",
    "reset",
    "reset_from_order",
    "score",
    "step",
]
