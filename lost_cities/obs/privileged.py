"""Hidden information for the omniscient critic (never part of the policy's input).

``hidden_information(state, player)`` is 120 floats: a one-hot of the opponent's whole
hand (60, by card id) then a one-hot of the cards still in the deck (60, by card id:
the deck's composition, not its order). Each environment appends it to its own policy
observation to form the privileged observation.
"""

import jax.numpy as jnp

from lost_cities.game.cards import N_CARDS
from lost_cities.game.engine import LOC_HAND, LOC_KNOWN

HIDDEN_DIM = 2 * N_CARDS


def hidden_information(state, player):
    opponent = 1 - jnp.asarray(player, jnp.int32)
    loc = state.loc
    opponent_hand = (loc == LOC_HAND + opponent) | (loc == LOC_KNOWN + opponent)
    in_deck = loc < LOC_HAND
    return jnp.concatenate([opponent_hand, in_deck]).astype(jnp.float32)
