"""Lost Cities RL: a pure-JAX rules engine, agents and training (see SPEC.md)."""

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
