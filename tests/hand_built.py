"""Hand-built round positions for the rule tests: cards by colour and rank, a deal from chosen
hands and deck draws, and legal moves stepped by card (tests/game/test_rules.py,
tests/obs/test_observation_v1.py). A module on the tests' path, so that any test dir can
import it whichever dirs a run collects."""

import jax
import jax.numpy as jnp
import numpy as np
from reference_engine import build_deck_order, make_action, make_card

from lost_cities import legal_action_mask, reset_from_order, step

jit_step = jax.jit(step)
jit_mask = jax.jit(legal_action_mask)

PLAY, DISCARD = 0, 1
DECK = 0


def hs(colour, i=0):
    """The ``i``-th handshake (0..2) of ``colour``."""
    return make_card(colour, i)


def num(colour, rank):
    """The number card ``rank`` (2..10) of ``colour``."""
    return make_card(colour, rank + 1)


def pile(colour):
    """The draw source of ``colour``'s discard pile."""
    return 1 + colour


def deal(hand0, hand1, draws=(), first_player=0):
    return reset_from_order(jnp.asarray(build_deck_order(hand0, hand1, draws)), first_player)


def action_for(state, card, place_type, draw_source):
    """The action that places ``card`` from the mover's hand (which must hold it)."""
    hand = np.asarray(state.hands[int(state.to_move)]).tolist()
    assert card in hand, f"card {card} is not in the mover's hand {hand}"
    return make_action(hand.index(card), place_type, draw_source)


def is_legal(state, card, place_type, draw_source):
    return bool(jit_mask(state)[action_for(state, card, place_type, draw_source)])


def move(state, card, place_type, draw_source):
    """Apply a mid-round move that must be legal: ``plies`` advances, no reward, no end."""
    before = int(state.plies)
    state, reward, done = jit_step(state, action_for(state, card, place_type, draw_source))
    assert int(state.plies) == before + 1, f"move ({card}, {place_type}, {draw_source}) was refused"
    assert not bool(done) and not np.asarray(reward).any(), "reward or end in mid-round"
    return state, reward, done


def play_moves(state, moves):
    for card, place_type, draw_source in moves:
        state, _, _ = move(state, card, place_type, draw_source)
    return state


def same_state(a, b):
    """Whole pytrees equal: structure, every leaf's dtype, shape and values."""
    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    return tree_a == tree_b and all(
        x.dtype == y.dtype and np.array_equal(x, y)
        for x, y in zip(map(np.asarray, leaves_a), map(np.asarray, leaves_b), strict=True)
    )


def nth_state(batched, i):
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[i], batched)


def discard_from_deck(state):
    """Discard the mover's last hand card and draw from the deck (always legal)."""
    state, reward, done = jit_step(state, make_action(7, DISCARD, DECK))
    return state, reward, done
