"""Worlds that explain the opponent's last move (the search's ``inference_pool`` knob).

A uniform world (:mod:`lost_cities.search.determinize`) deals the opponent any hand of the
unseen cards, but the opponent chose its last move with its real hand. So the search draws
``inference_pool`` times as many worlds as it keeps, rebuilds in each the opponent's decision
before that move (:func:`previous_decision`), asks the opponent model (the base policy)
what it would have played there, and keeps the worlds where that is the move the opponent
made first, the others after, each group in random order. When the pool holds enough
consistent worlds the kept ones are draws from the posterior of a deterministic opponent
model given that move, without repeats; otherwise the rest are uniform worlds, as before.

Everything read is public: the round's last move (``State.last_action``, the card placed,
the card taken from a discard pile) and the world itself. A deck draw's card is hidden, so
the rebuilt decision takes one of the world's unknown opponent cards as the one drawn, at
random: every such card is equally likely under the uniform deal, so the world's
consistency is an unbiased draw of its likelihood.
"""

import jax
import jax.numpy as jnp

from lost_cities.game.cards import CARD_IDS, N_COLOURS, N_HANDSHAKE_SLOTS, N_SLOTS, decode_action, slot_rank
from lost_cities.game.engine import LOC_EXPEDITION, LOC_HAND, LOC_KNOWN, LOC_PILE, NO_MOVE, State
from lost_cities.search.determinize import determinize, round_of, sorted_hand, with_round

COLOURS = jnp.arange(N_COLOURS)


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
    """The round ``State`` in which the last mover chose ``state.last_action``: the card it
    placed back in its hand, the card it drew back on top of the deck (``deck_card``, when
    it drew from the deck) or of its pile. Its own ``last_*`` are unknown (``-1``)."""
    mover = 1 - state.to_move
    _, place_type, source = (x.astype(jnp.int32) for x in decode_action(state.last_action.astype(jnp.uint32)))
    card = state.last_card.astype(jnp.int32)
    from_deck = source == 0
    drawn = jnp.where(from_deck, deck_card, state.last_drawn.astype(jnp.int32))
    pile_size = state.pile_size.astype(jnp.int32)
    drawn_pile = COLOURS == source - 1
    pile_top = LOC_PILE + jnp.sum(jnp.where(drawn_pile, pile_size, 0))
    back_code = jnp.where(from_deck, state.deck_ptr.astype(jnp.int32) - 1, pile_top)
    loc = jnp.where(CARD_IDS == drawn, back_code, state.loc.astype(jnp.int32))
    loc = jnp.where(CARD_IDS == card, LOC_HAND + mover, loc)
    pile_size = pile_size + (drawn_pile & ~from_deck) - ((COLOURS == card // N_SLOTS) & (place_type == 1))
    top, total, handshakes, count = _expeditions(loc)
    in_hand = (loc == LOC_HAND + mover) | (loc == LOC_KNOWN + mover)
    hands = jnp.where((jnp.arange(2) == mover)[:, None], sorted_hand(in_hand)[None], state.hands)
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
        last_action=jnp.int8(NO_MOVE),
        last_card=jnp.int8(NO_MOVE),
        last_drawn=jnp.int8(NO_MOVE),
    )


def explains_last_move(world, opponent_model, rng):
    """Whether ``opponent_model`` (a policy) plays the round's last move in ``world``'s
    rebuilt decision before it: the same card, placed the same way, the same draw source.
    True when the round has no move yet."""
    state = round_of(world)
    card_key, model_key = jax.random.split(rng)
    unknown = state.loc == LOC_HAND + (1 - state.to_move)
    deck_card = jnp.argmax(jnp.where(unknown, jax.random.uniform(card_key, unknown.shape), -1.0))
    before = previous_decision(state, deck_card)
    model_slot, *model_move = decode_action(
        opponent_model(with_round(world, before), model_key).astype(jnp.uint32)
    )
    _, *last_move = decode_action(state.last_action.astype(jnp.uint32))
    hand = before.hands[before.to_move]
    model_card = jnp.sum(jnp.where(jnp.arange(hand.shape[0]) == model_slot, hand, 0))
    same = (model_card == state.last_card) & (model_move[0] == last_move[0]) & (model_move[1] == last_move[1])
    return (state.last_action < 0) | same


def sample_worlds(rng, env_state, count, pool, opponent_model):
    """``count`` worlds for the seat to move: uniform ones (``pool`` 1: the worlds of ``rng``
    exactly as without inference), or of ``count * pool`` uniform worlds the ones that
    explain the opponent's last move first."""

    def uniform(key, n):
        return jax.vmap(determinize, in_axes=(0, None))(jax.random.split(key, n), env_state)

    if pool == 1:
        return uniform(rng, count)
    world_key, check_key, order_key = jax.random.split(rng, 3)
    worlds = uniform(world_key, count * pool)
    keys = jax.random.split(check_key, count * pool)
    consistent = jax.vmap(explains_last_move, in_axes=(0, None, 0))(worlds, opponent_model, keys)
    order = consistent + jax.random.uniform(order_key, consistent.shape)  # consistent first, then random
    keep = jax.lax.top_k(order, count)[1]
    return jax.tree.map(lambda x: x[keep], worlds)
