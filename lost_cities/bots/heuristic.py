"""Rule-based players: every legal action scored in points, the best one taken.

An action is a placement (play or discard one of the 8 hand cards) and a draw (deck or
one of 5 pile tops), so its value is ``placement[8, 2] + draw[8, 2, 5]`` (the draw term
depends on the placement only through the colour just played). Everything is
element-wise over small fixed axes: no gathers, no argmax, cheap under ``vmap``.

The scoring, in points of the mover's final score:

- Each colour has a *projection*: ``(1 + handshakes) * (numbers - 20)`` where numbers
  counts the expedition, the live hand numbers (above the expedition's top), and a
  share of the unseen live numbers that shrinks as the deck runs down.
- **Open** a colour (first card on an empty expedition) when its projection clears
  ``open_threshold``; stake a handshake when it clears ``handshake_threshold``.
- **Play** on a started expedition: worth ``play_bonus`` (a turn used to score), minus
  what the card skips over (hand numbers below it, a share of the unseen ones, hand
  handshakes that a first number would strand).
- **Discard**: costs the card's *keep value* (how much the colour's value drops without
  it; dead cards cost nothing) plus ``danger_weight`` times what it is worth to the
  opponent (a live card on their started expedition, a little on an empty one).
- **Draw** a pile top when its keep value beats a deck card by ``pile_draw_cost``;
  ``extend_draws_only`` restricts pile draws to a number that will be the next card on
  one of the mover's expeditions, so such a player can never be made to stall.

:class:`Style` holds the knobs; ``heuristic_balanced`` and ``heuristic_cautious`` are two
parameter sets, the expert (bots/expert.py) adds the deck clock and the match.
"""

from dataclasses import dataclass

import jax.numpy as jnp

from lost_cities.bots.context import best_legal, round_and_match
from lost_cities.game.cards import (
    DECK_DRAWS,
    HAND_SIZE,
    N_CARDS,
    N_COLOURS,
    N_HANDSHAKE_SLOTS,
    N_SLOTS,
    slot_rank,
)
from lost_cities.game.engine import LOC_HAND, legal_action_mask, seat_view
from lost_cities.obs.v1 import pile_tops

COLOURS = jnp.arange(N_COLOURS, dtype=jnp.int32)
SLOTS = jnp.arange(N_SLOTS, dtype=jnp.int32)
SLOT_RANK = slot_rank(SLOTS)
EXPEDITION_COST = 20.0
GIFT_TO_EMPTY_EXPEDITION = 0.25  # share of a card's points the opponent may open with
HANDSHAKE_WORTH = 5.0  # points a live handshake is taken to be worth to the opponent


@dataclass(frozen=True)
class Style:
    """Knobs of the rule-based scoring (all in points unless said otherwise)."""

    open_threshold: float  # projection a colour needs before its first card
    handshake_threshold: float  # projection a colour needs before a handshake is staked
    unseen_share: float  # share of unseen live numbers counted as future support (full deck)
    play_bonus: float  # value of using a turn to put a card on an expedition
    keep_floor: float  # points per rank kept for a live card of a colour not worth opening
    danger_weight: float  # weight of what a discard is worth to the opponent
    pile_draw_cost: float  # a pile top must beat an unknown deck card by this much
    extend_draws_only: bool = False  # pile draws only for the next card of an expedition


# heuristic_balanced: opens a colour whose projection clears 4 points (a handshake: 14),
# counting 30% of the unseen higher numbers; weighs a gift to the opponent at 0.7; takes
# a pile top worth 3 points more to it than an unknown deck card.
BALANCED = Style(
    open_threshold=4.0,
    handshake_threshold=14.0,
    unseen_share=0.3,
    play_bonus=3.0,
    keep_floor=0.3,
    danger_weight=0.7,
    pile_draw_cost=3.0,
)
# heuristic_cautious: opens only above 12 points (a handshake: 24), counting 20% of the
# unseen higher numbers; weighs a gift to the opponent fully; draws as balanced does.
CAUTIOUS = Style(
    open_threshold=12.0,
    handshake_threshold=24.0,
    unseen_share=0.2,
    play_bonus=2.0,
    keep_floor=0.3,
    danger_weight=1.0,
    pile_draw_cost=3.0,
)


def _per_card(onehot, per_colour):
    """``per_colour[colour of each hand card]`` as a select-sum over the one-hot."""
    return jnp.sum(jnp.where(onehot, per_colour[None, :], 0), axis=1)


def _colour_value(projection, started, threshold):
    """A started colour is committed; an empty one is an option worth taking above the bar."""
    return jnp.where(started, projection, jnp.maximum(0.0, projection - threshold))


def action_values(round_state, style, open_shift=0.0, hand_weight=1.0):
    """float32[96]: the value of every action for the seat to move (legal or not).

    ``open_shift`` raises (or lowers) both opening bars; ``hand_weight`` in [0, 1] is the
    chance a live hand card still gets played (the expert's deck clock).
    """
    rs = round_state
    me = rs.to_move
    opp = 1 - me
    hand = seat_view(rs.hands, me).astype(jnp.int32)
    colour = hand // N_SLOTS
    slot = hand % N_SLOTS
    is_number = slot >= N_HANDSHAKE_SLOTS
    rank = slot_rank(slot).astype(jnp.float32)
    onehot = colour[:, None] == COLOURS[None, :]  # [8, 5]

    my_top = seat_view(rs.exp_top, me).astype(jnp.int32)
    my_sum = seat_view(rs.exp_sum, me).astype(jnp.float32)
    my_handshakes = seat_view(rs.exp_handshakes, me).astype(jnp.float32)
    started = seat_view(rs.exp_count, me) > 0
    opp_top = seat_view(rs.exp_top, opp).astype(jnp.int32)
    opp_mult = 1.0 + seat_view(rs.exp_handshakes, opp).astype(jnp.float32)
    opp_started = seat_view(rs.exp_count, opp) > 0

    # Hand cards: live ones can still go on my expedition.
    top_of_card = _per_card(onehot, my_top)
    live = jnp.where(is_number, slot > top_of_card, top_of_card == 0)
    live_number = live & is_number
    live_handshake = live & ~is_number
    hand_numbers = jnp.sum(jnp.where(onehot & live_number[:, None], rank[:, None], 0.0), axis=0)
    hand_handshakes = jnp.sum(onehot & live_handshake[:, None], axis=0).astype(jnp.float32)

    # Unseen numbers above my top (in the deck or the opponent's unknown hand).
    unseen = ((rs.loc < LOC_HAND) | (rs.loc == LOC_HAND + opp)).reshape(N_COLOURS, N_SLOTS)
    unseen_live = unseen & (SLOTS[None, :] >= N_HANDSHAKE_SLOTS) & (SLOTS[None, :] > my_top[:, None])
    deck_share = (N_CARDS - rs.deck_ptr.astype(jnp.float32)) / DECK_DRAWS
    unseen_weight = style.unseen_share * deck_share
    unseen_numbers = jnp.sum(jnp.where(unseen_live, SLOT_RANK[None, :], 0), axis=1).astype(jnp.float32)

    numbers = my_sum + hand_weight * hand_numbers + unseen_weight * unseen_numbers
    handshakes = my_handshakes + hand_weight * hand_handshakes
    projection = (1.0 + handshakes) * (numbers - EXPEDITION_COST)
    open_bar = style.open_threshold + open_shift
    handshake_bar = style.handshake_threshold + open_shift
    value = _colour_value(projection, started, open_bar)

    # Per hand card, its colour's figures.
    card_numbers = _per_card(onehot, numbers)
    card_handshakes = _per_card(onehot, handshakes)
    card_value = _per_card(onehot, value)
    card_started = _per_card(onehot, started.astype(jnp.int32)) > 0
    card_projection = _per_card(onehot, projection)

    # Keep value: how much the colour's value drops without the card.
    without_numbers = card_numbers - jnp.where(live_number, hand_weight * rank, 0.0)
    without_handshakes = card_handshakes - jnp.where(live_handshake, hand_weight, 0.0)
    without = (1.0 + without_handshakes) * (without_numbers - EXPEDITION_COST)
    keep = card_value - _colour_value(without, card_started, open_bar)
    keep = jnp.where(live, keep + style.keep_floor * rank, 0.0)

    # What a play skips over: hand numbers below it, unseen ones, stranded handshakes.
    same_colour = colour[:, None] == colour[None, :]
    below = same_colour & live_number[None, :] & (slot[None, :] < slot[:, None])  # [i, j]: j below i
    skipped_hand = jnp.sum(jnp.where(below, rank[None, :], 0.0), axis=1)
    card_unseen = jnp.sum(jnp.where(onehot[:, :, None], unseen_live[None, :, :], False), axis=1)
    unseen_below = card_unseen & (SLOTS[None, :] < slot[:, None])
    skipped_unseen = jnp.sum(jnp.where(unseen_below, SLOT_RANK[None, :], 0), axis=1).astype(jnp.float32)
    hand_handshakes_of_card = _per_card(onehot, hand_handshakes)
    stranded = jnp.where(
        is_number & (top_of_card == 0),
        hand_handshakes_of_card * jnp.maximum(0.0, card_numbers - EXPEDITION_COST),
        0.0,
    )
    mult = 1.0 + card_handshakes
    skip_cost = mult * (hand_weight * skipped_hand + unseen_weight * skipped_unseen) + stranded

    extend = style.play_bonus - skip_cost
    open_number = style.play_bonus + card_projection - open_bar - skip_cost
    open_handshake = style.play_bonus + card_projection - handshake_bar
    handshake_more = style.play_bonus + (card_numbers - EXPEDITION_COST) - handshake_bar
    play = jnp.where(
        is_number,
        jnp.where(card_started, extend, open_number),
        jnp.where(card_started, handshake_more, open_handshake),
    )

    # Discard: lose the keep value, hand the opponent what the card is worth to them.
    opp_top_of_card = _per_card(onehot, opp_top)
    opp_live = jnp.where(is_number, slot > opp_top_of_card, opp_top_of_card == 0)
    opp_card_started = _per_card(onehot, opp_started.astype(jnp.int32)) > 0
    opp_worth = jnp.where(is_number, rank, HANDSHAKE_WORTH)
    danger = jnp.where(
        opp_live,
        jnp.where(
            opp_card_started,
            _per_card(onehot, opp_mult) * opp_worth,
            GIFT_TO_EMPTY_EXPEDITION * opp_worth,
        ),
        0.0,
    )
    discard = -keep - style.danger_weight * danger
    placement = jnp.stack([play, discard], axis=1)  # [8, 2]

    after_top, after_started = _after_placement(my_top, started, colour, slot, is_number)
    draw = _pile_draw_values(
        rs,
        style,
        after_top,
        after_started,
        numbers,
        handshakes,
        value,
        open_bar,
        hand_weight,
        held=(colour, slot, is_number, my_top),
    )
    deck = jnp.zeros((HAND_SIZE, 2, 1))
    return (placement[:, :, None] + jnp.concatenate([deck, draw], axis=2)).reshape(-1)


def _after_placement(my_top, started, colour, slot, is_number):
    """My expedition tops and started flags after each placement, ``[8, 2, 5]``: only a
    play (place type 0) changes them, on the played card's colour."""
    played = (colour[:, None] == COLOURS[None, :])[:, None, :] & (jnp.arange(2) == 0)[None, :, None]
    top = jnp.where(played & is_number[:, None, None], jnp.maximum(my_top, slot[:, None, None]), my_top)
    return top, started | played


def _pile_draw_values(
    rs, style, after_top, after_started, numbers, handshakes, value, open_bar, hand_weight, held
):
    """float32[8, 2, 5]: the value of taking each pile top after each placement (``held``: the
    hand cards' colours, slots and number flags, and my expeditions' tops before it)."""
    colour, slot, is_number, my_top = held
    top = pile_tops(rs).astype(jnp.int32)
    top_slot = top % N_SLOTS
    top_is_number = top_slot >= N_HANDSHAKE_SLOTS
    top_rank = slot_rank(top_slot).astype(jnp.float32)
    live = (top >= 0) & jnp.where(top_is_number, top_slot > after_top, after_top == 0)

    with_numbers = numbers + jnp.where(top_is_number, hand_weight * top_rank, 0.0)
    with_handshakes = handshakes + jnp.where(top_is_number, 0.0, hand_weight)
    with_top = (1.0 + with_handshakes) * (with_numbers - EXPEDITION_COST)
    gain = _colour_value(with_top, after_started, open_bar) - value
    draw = jnp.where(live, gain + style.keep_floor * top_rank, 0.0) - style.pile_draw_cost
    if style.extend_draws_only:
        blocked = _blocked_draws(colour, slot, is_number, my_top, top_slot)
        extends = live & top_is_number & after_started & ~blocked
        draw = jnp.where(extends, draw, -jnp.inf)
    return draw


def _blocked_draws(colour, slot, is_number, my_top, top_slot):
    """bool[8, 2, 5]: after placement ``(i, p)``, another hand number of colour ``c`` lies
    between my expedition's top and pile ``c``'s top (so that top is not the next card).

    Counted per colour rather than per (placement, hand card, colour), which XLA:CPU fused
    into one loop over 640 elements a game (a third of the expert's time): a placement
    changes the count only for its own card's colour. Before it, the cards between are
    ``count[c]``; a discard or another colour's play takes the placed card out of them; a
    number played on colour ``c`` raises the floor to its rank, so the cards between are
    those of its colour above it (the card itself is not above itself).
    """
    onehot = colour[:, None] == COLOURS[None, :]  # [8, 5]
    card_top = _per_card(onehot, my_top)
    card_pile = _per_card(onehot, top_slot)
    between = is_number & (slot > card_top) & (slot < card_pile)  # [8]: card i before any placement
    count = jnp.sum(onehot & between[:, None], axis=0)  # [5]
    without = count[None, :] - (onehot & between[:, None])  # [8, 5]: the placed card has left
    same = colour[:, None] == colour[None, :]  # [i, j]
    above_played = same & is_number[None, :] & (slot[None, :] > jnp.maximum(card_top, slot)[:, None])
    played_blocked = jnp.any(above_played & (slot[None, :] < card_pile[:, None]), axis=1)  # [8]
    raised = onehot & is_number[:, None]  # the play of card i changes colour c's floor
    play = jnp.where(raised, played_blocked[:, None], without > 0)
    return jnp.stack([play, without > 0], axis=1)


def heuristic_policy(style):
    def policy(state, rng):
        round_state, _, _ = round_and_match(state)
        return best_legal(action_values(round_state, style), legal_action_mask(round_state))

    return policy
