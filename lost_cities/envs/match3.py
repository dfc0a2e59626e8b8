"""``env=match3``: the real game, a 3-round match, with observation v2."""

import jax.numpy as jnp

from lost_cities.envs.base import Env
from lost_cities.game.engine import score
from lost_cities.game.match import (
    MatchState,
    carry_margin,
    match_legal_action_mask,
    match_reset,
    match_reset_from,
    match_step,
)
from lost_cities.obs.v2 import (
    OBS_V2_DIM,
    OBS_V2_VERSION,
    PRIVILEGED_V2_DIM,
    match_observation,
    privileged_match_observation,
)


def match_margin(ms):
    """float32[2]: carry margin plus the current round's board difference.

    Once the match is done round 3 is already in the carry, so its board is not added
    again: the value then equals the final reward, and it never jumps at a round change
    (the carry gains exactly the board difference that the fresh round drops).
    """
    live_board = jnp.where(ms.done, 0.0, score(ms.round))
    return carry_margin(ms) + live_board


def make_match3() -> Env:
    return Env(
        name="match3",
        obs_version=OBS_V2_VERSION,
        obs_dim=OBS_V2_DIM,
        privileged_dim=PRIVILEGED_V2_DIM,
        rounds=3,
        state_type=MatchState,
        init=match_reset,
        init_from_deal=match_reset_from,
        step=match_step,
        observe=match_observation,
        privileged=privileged_match_observation,
        legal_mask=match_legal_action_mask,
        to_move=lambda ms: ms.to_move,
        done=lambda ms: ms.done,
        final_margin=match_margin,
        round_state=lambda ms: ms.round,
    )
