"""Lost Cities RL: a pure-JAX rules engine, agents and training (the contract: SPEC.md).

This module re-exports the public engine API of SPEC §5 (``reset``, ``step``,
``match_reset``, ``match_step``, observations and their ``batched_*`` forms). The
package is layered; a layer imports only the ones above it in this table, except that
``evaluation.policies`` loads a checkpoint or ``.onnx`` opponent through ``agents``
(lazily, when given a path), and ``evaluation.policies`` and ``agents.load`` build a
``search:<base>`` spec through ``search`` (lazily):

| package                  | contract                                                       |
| ------------------------ | -------------------------------------------------------------- |
| ``lost_cities.distributed`` | joining a multi-host run's processes (on import, below)    |
| ``lost_cities.parallel`` | the device mesh and shardings of data-parallel training        |
| ``lost_cities.game``     | the rules: cards and actions, one round, the 3-round match     |
| ``lost_cities.obs``      | observations v1 (round), v2 (match), privileged (critic only)  |
| ``lost_cities.envs``     | ``Env``: the one interface above the rules; ``make(name)``     |
| ``lost_cities.bots``     | scripted opponents, ``policy(state, rng) -> action``           |
| ``lost_cities.evaluation`` | duplicate evaluation, deal banks, gates, the carry probe     |
| ``lost_cities.ppo``      | training: config schema, rollout, GAE, trainer, checkpoints    |
| ``lost_cities.agents``   | trained agents without the training code: ``agents.load``      |
| ``lost_cities.search``   | determinized (PIMC) search on top of any policy: ``search:<base>`` |
| ``lost_cities.export``   | a policy as ONNX plus manifest for the web client              |
| ``lost_cities.cli``      | the entry points (``python -m lost_cities.<verb>``)            |
| ``lost_cities.conf``     | the Hydra configs (``conf/`` in the checkout, in the wheel)    |
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
