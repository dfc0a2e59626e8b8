"""Determinization: a full world consistent with what the seat to move has seen.

From the mover's information set the hidden cards are the deck and the opponent's
*unknown* hand cards (those it drew from the deck); everything else is public or the
mover's own: its hand, both expeditions, the discard piles, and the opponent's *known*
cards (taken from a discard pile, ``LOC_KNOWN``), which stay in the opponent's hand.
:func:`determinize_round` deals the hidden cards afresh, uniformly at random, over the
same places: a uniform permutation of the unseen cards fills the undrawn deck positions
``deck_ptr..59`` and then the opponent's unknown hand slots, so the deck size and the
opponent's hand size are unchanged.

A match state also holds what no player has seen yet: the later rounds' deck orders
(``deal_loc`` / ``deal_hands``, including the current round's original deal, which
would reveal the opponent's dealt hand) and the tie coins of the later rounds.
:func:`determinize` replaces all of them with fresh uniform deals and coins, so nothing
the world carries is read from the true hidden state.

The world keeps every public field (``pile_size``, ``exp_*``, ``deck_ptr``, ``plies``,
``to_move``, ``done``, and in a match ``round_idx``, ``carry``, ``starter`` and the
coins of the rounds already started); the tests check that the mover's observation
(v1 and v2) and legal mask are exactly those of the true state.
"""

import jax
import jax.numpy as jnp

from lost_cities.game.cards import HAND_SIZE, N_CARDS
from lost_cities.game.engine import LOC_HAND, LOC_KNOWN
from lost_cities.game.views import redeal

CARD_IDS = jnp.arange(N_CARDS, dtype=jnp.int32)


def unseen_cards(state, player):
    """bool[60]: the cards ``player`` has not seen (deck, or the opponent's unknown hand)."""
    opponent = 1 - jnp.asarray(player, jnp.int32)
    return (state.loc < LOC_HAND) | (state.loc == LOC_HAND + opponent)


def rank_within(keys, members):
    """int32[60]: each member's rank among the members by ``keys`` (ties by card id)."""
    before = (keys[None, :] < keys[:, None]) | (
        (keys[None, :] == keys[:, None]) & (CARD_IDS[None, :] < CARD_IDS[:, None])
    )
    return jnp.sum(before & members[None, :], axis=1, dtype=jnp.int32)


def sorted_hand(in_hand):
    """int8[8]: the ids of the 8 cards of ``in_hand`` (bool[60]) in increasing order."""
    position = jnp.sum(in_hand[None, :] & (CARD_IDS[None, :] < CARD_IDS[:, None]), axis=1)
    slots = jnp.arange(HAND_SIZE)
    hit = in_hand[None, :] & (position[None, :] == slots[:, None])
    return jnp.sum(jnp.where(hit, CARD_IDS[None, :], 0), axis=1).astype(jnp.int8)


def determinize_round(rng, state):
    """A round ``State`` whose hidden cards (for the seat to move) are dealt afresh.

    Only ``state.loc`` of the unseen cards and the opponent's sorted hand change.
    """
    mover = state.to_move
    opponent = 1 - mover
    hidden = unseen_cards(state, mover)
    keys = jax.random.bits(rng, (N_CARDS,), jnp.uint32)
    rank = rank_within(keys, hidden)
    deck_left = N_CARDS - state.deck_ptr.astype(jnp.int32)
    new_loc = jnp.where(rank < deck_left, state.deck_ptr.astype(jnp.int32) + rank, LOC_HAND + opponent)
    loc = jnp.where(hidden, new_loc, state.loc.astype(jnp.int32)).astype(jnp.int8)
    opponent_hand = sorted_hand((loc == LOC_HAND + opponent) | (loc == LOC_KNOWN + opponent))
    hands = jnp.where((jnp.arange(2) == opponent)[:, None], opponent_hand[None], state.hands)
    return state.replace(loc=loc, hands=hands)


def deck_dealt_afresh(rng, state):
    """The round ``State`` with only its undrawn deck cards dealt afresh over the same
    positions (the hands as they are: a world whose opponent hand was chosen otherwise)."""
    in_deck = state.loc < LOC_HAND
    rank = rank_within(jax.random.bits(rng, (N_CARDS,), jnp.uint32), in_deck)
    deck_ptr = state.deck_ptr.astype(jnp.int32)
    loc = jnp.where(in_deck, deck_ptr + rank, state.loc.astype(jnp.int32)).astype(jnp.int8)
    return state.replace(loc=loc)


def determinize(rng, env_state):
    """A world for the seat to move of a round ``State`` or a ``MatchState`` (see the module doc)."""
    return redeal(rng, env_state, determinize_round)
