"""What every bot reads first: the round being played and the match around it.

Bots accept a round :class:`~lost_cities.game.engine.State` or a match state (anything with
``.round``, ``.round_idx`` and ``.carry``, i.e. ``lost_cities.game.match.MatchState``). The
dispatch is on the Python type, so it is static under ``jit``. A lone round is treated
as the last round of a level match: only its own margin matters.
"""

import jax.numpy as jnp

from lost_cities.game.cards import N_ACTIONS
from lost_cities.game.engine import State, seat_view

LAST_ROUND = 2
ACTION_IDS = jnp.arange(N_ACTIONS, dtype=jnp.int32)


def round_and_match(state):
    """``(round_state, round_idx, carry_lead)``: the lead is the mover's carried points minus
    the opponent's (0 for a lone round)."""
    if isinstance(state, State):
        return state, jnp.int32(LAST_ROUND), jnp.float32(0.0)
    round_state = state.round
    mover = round_state.to_move
    lead = seat_view(state.carry, mover) - seat_view(state.carry, 1 - mover)
    return round_state, jnp.asarray(state.round_idx, jnp.int32), lead.astype(jnp.float32)


def best_legal(values, mask):
    """The legal action of highest value, lowest id on ties.

    A max reduce plus a min over ids, rather than ``jnp.argmax``: XLA:CPU lowers argmax
    to a variadic reduce that is slow inside batched scans.
    """
    values = jnp.where(mask, values, -jnp.inf)
    best = jnp.max(values)
    return jnp.min(jnp.where(mask & (values >= best), ACTION_IDS, N_ACTIONS)).astype(jnp.int32)
