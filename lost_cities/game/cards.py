"""Card and action encodings (docs/encodings.md). Fixed: the web client and the tests depend on them."""

import jax.numpy as jnp

N_COLOURS = 5
N_SLOTS = 12  # per colour: slots 0..2 handshakes, slots 3..11 numbers 2..10
N_CARDS = N_COLOURS * N_SLOTS
N_HANDSHAKE_SLOTS = 3
HAND_SIZE = 8
DEALT = 2 * HAND_SIZE  # deck positions 0..7 go to seat 0, 8..15 to seat 1
DECK_DRAWS = N_CARDS - DEALT  # 44 cards are drawn from the deck in a round
MAX_STEPS = 400

N_PLACE_TYPES = 2  # 0 play on my expedition, 1 discard
N_DRAW_SOURCES = 1 + N_COLOURS  # 0 deck, 1..5 the discard pile of colour 0..4
N_ACTIONS = HAND_SIZE * N_PLACE_TYPES * N_DRAW_SOURCES  # 96

CARD_IDS = jnp.arange(N_CARDS, dtype=jnp.int8)
CARD_COLOUR = CARD_IDS // N_SLOTS


def slot_rank(slot):
    """Face value of a slot's card: slot 3 is the 2, slot 11 the 10; 0 for a handshake slot
    (so that sums of ranks over a colour's cards count numbers only)."""
    return jnp.where(slot >= N_HANDSHAKE_SLOTS, slot - 1, 0)


def encode_action(hand_slot, place_type, draw_source):
    return (hand_slot * N_PLACE_TYPES + place_type) * N_DRAW_SOURCES + draw_source


def decode_action(action):
    """Return (hand_slot, place_type, draw_source) of an action id."""
    return (
        action // (N_PLACE_TYPES * N_DRAW_SOURCES),
        (action // N_DRAW_SOURCES) % N_PLACE_TYPES,
        action % N_DRAW_SOURCES,
    )
