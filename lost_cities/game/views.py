"""What every game state answers alike, a round's ``State`` or a ``MatchState``: the one
place the two kinds are told apart.

The envs expose these as their interface (:class:`lost_cities.envs.Env`), and the code
that serves both (the scripted players, the search) calls them instead of asking which
kind it holds. The dispatch is on the Python type, so it is static under ``jit``. A lone
round is the last round of a level match: nothing is carried and no round follows.
"""

import jax
import jax.numpy as jnp

from lost_cities.game.engine import State, reset_from_positions, shuffled_positions
from lost_cities.game.match import N_ROUNDS

LAST_ROUND = N_ROUNDS - 1


def current_round(state):
    """The round ``State`` being played."""
    return state if isinstance(state, State) else state.round


def with_round(state, round_state):
    """``state`` with its current round replaced by ``round_state``."""
    return round_state if isinstance(state, State) else state.replace(round=round_state)


def round_index(state):
    """int32: the current round's index (a lone round: the last)."""
    return jnp.int32(LAST_ROUND) if isinstance(state, State) else jnp.asarray(state.round_idx, jnp.int32)


def carry(state):
    """float32[2]: each seat's points from the finished rounds (a lone round: none)."""
    return jnp.zeros(2, jnp.float32) if isinstance(state, State) else state.carry


def redeal(rng, state, deal_round):
    """``state`` with its unseen cards dealt afresh: the current round by ``deal_round(key,
    round_state)``, and in a match what no player has seen yet (the later rounds' deals and
    the coins of the rounds not started) uniformly."""
    if isinstance(state, State):
        return deal_round(rng, state)
    round_key, deal_key, coin_key = jax.random.split(rng, 3)
    deals = [reset_from_positions(shuffled_positions(key)) for key in jax.random.split(deal_key, N_ROUNDS)]
    later = jnp.arange(N_ROUNDS) > state.round_idx
    fresh_coins = jax.random.bernoulli(coin_key, 0.5, (N_ROUNDS,)).astype(jnp.int32)
    return state.replace(
        round=deal_round(round_key, state.round),
        deal_loc=jnp.stack([d.loc for d in deals]),
        deal_hands=jnp.stack([d.hands for d in deals]),
        coins=jnp.where(later, fresh_coins, state.coins),
    )
