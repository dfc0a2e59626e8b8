"""``discard_only``: never opens an expedition. It discards its lowest card (the card of
smallest slot: a handshake before any number, then the lowest number; on ties the
lower colour) and always draws from the deck."""

import jax.numpy as jnp

from lost_cities.bots.context import round_and_match
from lost_cities.game.cards import HAND_SIZE, N_SLOTS, encode_action
from lost_cities.game.engine import seat_view

HAND_SLOTS = jnp.arange(HAND_SIZE, dtype=jnp.int32)


def lowest_card_slot(round_state):
    """Hand slot of the mover's lowest card (a min over ``slot * 8 + hand slot``)."""
    hand = seat_view(round_state.hands, round_state.to_move).astype(jnp.int32)
    key = (hand % N_SLOTS) * HAND_SIZE + HAND_SLOTS
    return jnp.min(key) % HAND_SIZE


def discard_only(state, rng):
    round_state, _, _ = round_and_match(state)
    return encode_action(lowest_card_slot(round_state), 1, 0).astype(jnp.int32)
