"""Worlds that explain the opponent's recent moves (the search's ``inference_*`` knobs).

A uniform world (:mod:`lost_cities.search.determinize`) deals the opponent any hand of the
unseen cards, but the opponent chose its moves with its real one. So the search draws
``inference_pool`` times as many worlds as it keeps, rewinds each through the round's
recent moves (:func:`previous_decision`, one ply at a time), asks the opponent model (the
base policy) at each of the opponent's latest ``inference_moves`` decisions what it would
have played there, and keeps the worlds that explain the most of those moves first, ties in
random order. Against a deterministic model the worlds that explain every move are draws
from its posterior given those moves; when the pool holds too few, the kept ones are the
nearest to it.

Everything read is public: the round's recent moves (``State.recent_*``: the action, the
card placed, the card taken from a discard pile) and the world itself. A deck draw's card
is hidden, so rewinding one puts back one of the drawer's cards that the other seat cannot
know: for the opponent's draws, one with which the model plays the move (at random among
those, so that the true world explains every move the model truly made but for later
picks that happen to be wrong), for the searcher's own draws any, at random (the deck and
that unknown hand are one unseen pool to the opponent, so the choice does not change what
it saw). Measured on 221 expert-vs-expert positions (the expert as the model), the share of
the opponent's latest 1 / 4 / 8 moves explained: uniform worlds 0.65 / 0.66 / 0.66, the true
world 1.00 / 0.92 / 0.85 (experiments/search-inference/).
"""

import functools

import jax
import jax.numpy as jnp

from lost_cities.game.cards import CARD_IDS, N_COLOURS, N_HANDSHAKE_SLOTS, N_SLOTS, decode_action, slot_rank
from lost_cities.game.engine import (
    LOC_EXPEDITION,
    LOC_HAND,
    LOC_KNOWN,
    LOC_PILE,
    MOVE_HISTORY,
    NO_MOVE,
    State,
)
from lost_cities.game.views import current_round, with_round
from lost_cities.search.determinize import determinize, sorted_hand

COLOURS = jnp.arange(N_COLOURS)
MOVE_INDEX = jnp.arange(MOVE_HISTORY)


def _expeditions(loc):
    """``(top, sum, handshakes, count)`` int8[2, 5] of the expeditions ``loc`` holds."""
    colour, slot = CARD_IDS // N_SLOTS, CARD_IDS % N_SLOTS
    number = slot >= N_HANDSHAKE_SLOTS
    on = loc[None, None, :] == LOC_EXPEDITION + jnp.arange(2)[:, None, None]
    of = on & (colour[None, None, :] == COLOURS[None, :, None])  # [2, 5, 60]
    top = jnp.max(jnp.where(of & number, slot, 0), axis=-1)
    total = jnp.sum(jnp.where(of & number, slot_rank(slot), 0), axis=-1)
    handshakes = jnp.sum(of & ~number, axis=-1)
    return tuple(x.astype(jnp.int8) for x in (top, total, handshakes, jnp.sum(of, axis=-1)))


def previous_decision(state, deck_card):
    """The round ``State`` in which the last mover chose ``state.recent_actions[0]``: the
    card it placed back in its hand (known to the other seat if the window shows it took it
    from a pile), the card it drew back on top of the deck (``deck_card``, when it drew from
    the deck) or of its pile, and the move history one move shorter (the entry before the
    window is unknown, ``-1``)."""
    mover = 1 - state.to_move
    decoded = decode_action(state.recent_actions[0].astype(jnp.uint32))
    _, place_type, source = (x.astype(jnp.int32) for x in decoded)
    card = state.recent_cards[0].astype(jnp.int32)
    from_deck = source == 0
    drawn = jnp.where(from_deck, deck_card, state.recent_drawn[0].astype(jnp.int32))
    pile_size = state.pile_size.astype(jnp.int32)
    drawn_pile = COLOURS == source - 1
    pile_top = LOC_PILE + jnp.sum(jnp.where(drawn_pile, pile_size, 0))
    back_code = jnp.where(from_deck, state.deck_ptr.astype(jnp.int32) - 1, pile_top)
    own_earlier = (MOVE_INDEX > 0) & (MOVE_INDEX % 2 == 0)  # the same mover's earlier moves
    was_known = jnp.any(own_earlier & (state.recent_drawn.astype(jnp.int32) == card))
    loc = jnp.where(CARD_IDS == drawn, back_code, state.loc.astype(jnp.int32))
    loc = jnp.where(CARD_IDS == card, jnp.where(was_known, LOC_KNOWN, LOC_HAND) + mover, loc)
    pile_size = pile_size + (drawn_pile & ~from_deck) - ((COLOURS == card // N_SLOTS) & (place_type == 1))
    top, total, handshakes, count = _expeditions(loc)
    in_hand = (loc == LOC_HAND + mover) | (loc == LOC_KNOWN + mover)
    hands = jnp.where((jnp.arange(2) == mover)[:, None], sorted_hand(in_hand)[None], state.hands)
    earlier = lambda recent: jnp.concatenate([recent[1:], jnp.full((1,), NO_MOVE, jnp.int8)])  # noqa: E731
    return State(
        loc=loc.astype(jnp.int8),
        hands=hands,
        pile_size=pile_size.astype(jnp.int8),
        exp_top=top,
        exp_sum=total,
        exp_handshakes=handshakes,
        exp_count=count,
        deck_ptr=state.deck_ptr - from_deck.astype(jnp.int8),
        plies=state.plies - 1,
        to_move=mover.astype(jnp.int32),
        done=jnp.bool_(False),
        recent_actions=earlier(state.recent_actions),
        recent_cards=earlier(state.recent_cards),
        recent_drawn=earlier(state.recent_drawn),
    )


def _rewind_one(state, rng):
    """``previous_decision`` with the drawn card, for a deck draw, one of the last mover's
    cards the other seat cannot know, at random."""
    unknown = state.loc == LOC_HAND + (1 - state.to_move)
    deck_card = jnp.argmax(jnp.where(unknown, jax.random.uniform(rng, unknown.shape), -1.0))
    return previous_decision(state, deck_card)


def _plays(opponent_model, world, before, after, rng):
    """Whether ``opponent_model`` plays, in the decision ``before``, the move that led to
    ``after`` (its latest): the same card, placed the same way, the same draw source."""
    model_slot, *model_move = decode_action(opponent_model(with_round(world, before), rng).astype(jnp.uint32))
    _, *move = decode_action(after.recent_actions[0].astype(jnp.uint32))
    hand = before.hands[before.to_move]
    model_card = jnp.sum(jnp.where(jnp.arange(hand.shape[0]) == model_slot, hand, 0))
    return (model_card == after.recent_cards[0]) & (model_move[0] == move[0]) & (model_move[1] == move[1])


def _explained_decision(opponent_model, world, after, rng):
    """``(before, explained)``: the opponent's decision before its latest move in ``after``,
    with the card it drew from the deck one that makes the model play that move if any of
    its unknown cards does (at random among those), and whether one does."""
    pick_key, model_key = jax.random.split(rng)
    mover = 1 - after.to_move
    hand = after.hands[mover].astype(jnp.int32)
    hand_loc = jnp.sum(jnp.where(CARD_IDS[None, :] == hand[:, None], after.loc[None, :], 0), axis=1)
    from_deck = decode_action(after.recent_actions[0].astype(jnp.uint32))[2] == 0
    eligible = (hand_loc == LOC_HAND + mover) | ~from_deck  # a pile draw: every pick rebuilds the same
    befores = jax.vmap(previous_decision, in_axes=(None, 0))(after, hand)
    plays = jax.vmap(_plays, in_axes=(None, None, 0, None, None))(
        opponent_model, world, befores, after, model_key
    )
    pick = jnp.argmax(eligible * (1.0 + 2.0 * plays) + jax.random.uniform(pick_key, hand.shape))
    return jax.tree.map(lambda x: x[pick], befores), jnp.any(eligible & plays)


def explained_moves(world, opponent_model, rng, moves=1):
    """How many of the opponent's latest ``moves`` moves of the round ``opponent_model`` (a
    policy) plays in ``world``'s rebuilt decisions before them, rewinding one ply at a time.
    A deck draw's card is the one unknown card of the drawer (the opponent's: one that
    explains its move, if any does). A move before the round's first counts as explained."""
    state = current_round(world)

    def rewind(carry, key):
        after, count = carry
        decision_key, mine_key = jax.random.split(key)
        before, explained = _explained_decision(opponent_model, world, after, decision_key)
        count = count + ((after.recent_actions[0] < 0) | explained)
        return (_rewind_one(before, mine_key), count), None  # and my move before it

    (_, count), _ = jax.lax.scan(rewind, (state, jnp.int32(0)), jax.random.split(rng, moves))
    return count


def sample_worlds(rng, env_state, count, pool, opponent_model, moves=1, deal=None):
    """``count`` worlds for the seat to move, each ``deal(rng, env_state)`` (``None``: a
    uniform one, :func:`determinize`): with ``pool`` 1 the worlds of ``rng`` exactly as without
    inference; else of ``count * pool`` such worlds the ones that explain the most of the
    opponent's latest ``moves`` moves first."""
    deal = determinize if deal is None else deal  # looked up when traced (oracle.py replaces it)

    def uniform(key, n):
        return jax.vmap(deal, in_axes=(0, None))(jax.random.split(key, n), env_state)

    if pool == 1:
        return uniform(rng, count)
    world_key, check_key, order_key = jax.random.split(rng, 3)
    worlds = uniform(world_key, count * pool)
    keys = jax.random.split(check_key, count * pool)
    explain = functools.partial(explained_moves, opponent_model=opponent_model, moves=moves)
    explained = jax.vmap(explain)(worlds, rng=keys)
    order = explained + jax.random.uniform(order_key, explained.shape)  # most explained first, ties random
    keep = jax.lax.top_k(order, count)[1]
    return jax.tree.map(lambda x: x[keep], worlds)
