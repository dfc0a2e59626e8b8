"""What every bot reads first: the round being played and the match around it.

Bots accept a round :class:`~lost_cities.game.engine.State` or a ``MatchState``, read
through :mod:`lost_cities.game.views` (the one place that tells the two apart). A lone
round is treated as the last round of a level match: only its own margin matters.
"""

import jax.numpy as jnp

from lost_cities.game.cards import N_ACTIONS
from lost_cities.game.engine import seat_view
from lost_cities.game.views import carry, current_round, round_index

ACTION_IDS = jnp.arange(N_ACTIONS, dtype=jnp.int32)


def round_and_match(state):
    """``(round_state, round_idx, carry_lead)``: the lead is the mover's carried points minus
    the opponent's (0 for a lone round)."""
    round_state, carried = current_round(state), carry(state)
    mover = round_state.to_move
    lead = seat_view(carried, mover) - seat_view(carried, 1 - mover)
    return round_state, round_index(state), lead.astype(jnp.float32)


def best_legal(values, mask):
    """The legal action of highest value, lowest id on ties.

    A max reduce plus a min over ids, rather than ``jnp.argmax``: XLA:CPU lowers argmax
    to a variadic reduce that is slow inside batched scans.
    """
    values = jnp.where(mask, values, -jnp.inf)
    best = jnp.max(values)
    return jnp.min(jnp.where(mask & (values >= best), ACTION_IDS, N_ACTIONS)).astype(jnp.int32)
