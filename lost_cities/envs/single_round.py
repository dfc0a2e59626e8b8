"""``env=single_round``: one round of Lost Cities with observation v1."""

import jax.numpy as jnp

from lost_cities.envs.base import Env
from lost_cities.game.engine import State, legal_action_mask, reset, reset_from_order, score, step
from lost_cities.obs.privileged import HIDDEN_DIM, hidden_information
from lost_cities.obs.v1 import OBS_DIM, OBS_VERSION, observation


def _privileged(state, player):
    return jnp.concatenate([observation(state, player), hidden_information(state, player)])


def make_single_round() -> Env:
    return Env(
        name="single_round",
        obs_version=OBS_VERSION,
        obs_dim=OBS_DIM,
        privileged_dim=OBS_DIM + HIDDEN_DIM,
        rounds=1,
        state_type=State,
        init=reset,
        init_from_deal=lambda deck_orders, coins: reset_from_order(deck_orders[0], coins[0]),
        step=step,
        observe=observation,
        privileged=_privileged,
        legal_mask=legal_action_mask,
        to_move=lambda state: state.to_move,
        done=lambda state: state.done,
        final_margin=score,
        round_state=lambda state: state,
    )
