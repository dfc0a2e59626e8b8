"""Pure-JAX rules engine for one round of Lost Cities (SPEC §2, §4, §5).

Representation, chosen for batched speed on CPU (all small integer arrays, updated
with one-hot selects rather than gathers/scatters so that ``vmap`` lowers to fused
element-wise loops):

- ``loc[c]``: where card ``c`` is. ``0..59`` is its position in the deck (undrawn
  cards have ``loc >= deck_ptr``); the codes below mark hands, expeditions and piles.
  The deal is therefore just the inverse permutation of the deck order.
- ``hands[p]``: seat ``p``'s 8 cards sorted by id, so ``hand_slot`` indexes it
  directly. It caches what ``loc`` implies; keeping it avoids a prefix count over 60
  cards on every ply.
- ``piles[c, i]``: the discard pile of colour ``c`` as a stack, ``-1`` when empty.
- ``exp_*[p, c]``: expedition summaries (highest number slot, sum of numbers,
  handshakes, card count): all that legality and scoring need.
"""

import jax
import jax.numpy as jnp
from flax import struct

from lost_cities.cards import (
    CARD_IDS,
    DEALT,
    HAND_SIZE,
    MAX_STEPS,
    N_ACTIONS,
    N_CARDS,
    N_COLOURS,
    N_HANDSHAKE_SLOTS,
    N_SLOTS,
    decode_action,
)

# loc codes above the deck positions 0..59; add the seat for the per-seat codes.
LOC_HAND = 64  # in seat p's hand, unknown to the other seat
LOC_KNOWN = 66  # in seat p's hand, drawn from a discard pile, so known to the other seat
LOC_EXPEDITION = 68
LOC_PILE = 70
EMPTY = -1

SEATS = jnp.arange(2, dtype=jnp.int32)
COLOURS = jnp.arange(N_COLOURS, dtype=jnp.int8)
PILE_DEPTH = jnp.arange(N_SLOTS, dtype=jnp.int8)
HAND_INDEX = jnp.arange(HAND_SIZE, dtype=jnp.int8)


@struct.dataclass
class State:
    loc: jax.Array  # int8[60]
    hands: jax.Array  # int8[2, 8], sorted by card id
    piles: jax.Array  # int8[5, 12], stack per colour, EMPTY above the top
    pile_size: jax.Array  # int8[5]
    exp_top: jax.Array  # int8[2, 5], highest number slot on the expedition, 0 if none
    exp_sum: jax.Array  # int8[2, 5], sum of number ranks
    exp_handshakes: jax.Array  # int8[2, 5]
    exp_count: jax.Array  # int8[2, 5]
    deck_ptr: jax.Array  # int8, deck position of the next card to draw (16..60)
    plies: jax.Array  # int32, placements made this round
    to_move: jax.Array  # int32 seat to move
    done: jax.Array  # bool


def seat_view(x, player):
    """``x[player]`` for a per-seat array, as a select (cheap under vmap)."""
    return jnp.where(player == 0, x[0], x[1])


def _sorted_members(member):
    """Ids of the 8 cards where ``member`` is true, ascending."""
    index = jnp.cumsum(member.astype(jnp.int32)) - 1
    hit = member[None, :] & (index[None, :] == HAND_INDEX[:, None].astype(jnp.int32))
    return jnp.sum(jnp.where(hit, CARD_IDS[None, :], 0), axis=1).astype(jnp.int8)


def reset_from_positions(positions, first_player=0):
    """Deal a round from ``positions[c]``, card ``c``'s index in the deck order."""
    positions = jnp.asarray(positions, jnp.int8)
    seat0 = positions < HAND_SIZE
    seat1 = (positions >= HAND_SIZE) & (positions < DEALT)
    loc = jnp.where(seat0, LOC_HAND, jnp.where(seat1, LOC_HAND + 1, positions))
    zeros = jnp.zeros((2, N_COLOURS), jnp.int8)
    return State(
        loc=loc.astype(jnp.int8),
        hands=jnp.stack([_sorted_members(seat0), _sorted_members(seat1)]),
        piles=jnp.full((N_COLOURS, N_SLOTS), EMPTY, jnp.int8),
        pile_size=jnp.zeros(N_COLOURS, jnp.int8),
        exp_top=zeros,
        exp_sum=zeros,
        exp_handshakes=zeros,
        exp_count=zeros,
        deck_ptr=jnp.int8(DEALT),
        plies=jnp.int32(0),
        to_move=jnp.asarray(first_player, jnp.int32),
        done=jnp.bool_(False),
    )


def positions_from_order(deck_order):
    """Inverse permutation: the deck index of every card id."""
    deck_order = jnp.asarray(deck_order, jnp.int32)
    hit = deck_order[None, :] == jnp.arange(N_CARDS, dtype=jnp.int32)[:, None]
    return jnp.sum(jnp.where(hit, jnp.arange(N_CARDS), 0), axis=1).astype(jnp.int8)


def reset_from_order(deck_order, first_player=0):
    return reset_from_positions(positions_from_order(deck_order), first_player)


def shuffled_positions(rng):
    """A uniformly random deck, as every card's deck index.

    Ranks of 60 random 32-bit keys (ties broken by card id), computed by pairwise
    comparison: for 60 items this fuses into one element-wise loop and is much
    cheaper under vmap than XLA's sort behind ``jax.random.permutation``.
    """
    keys = jax.random.bits(rng, (N_CARDS,), jnp.uint32)
    ids = jnp.arange(N_CARDS)
    before = (keys[None, :] < keys[:, None]) | (
        (keys[None, :] == keys[:, None]) & (ids[None, :] < ids[:, None])
    )
    return jnp.sum(before, axis=1).astype(jnp.int8)


def reset(rng):
    """A fresh round on a uniformly shuffled deck; seat 0 starts."""
    return reset_from_positions(shuffled_positions(rng))


def _hand_columns(hand):
    colour = hand // N_SLOTS
    slot = hand % N_SLOTS
    return colour, slot


def _play_ok(hand, exp_top):
    """Whether each hand card can be played on the mover's expedition.

    A handshake needs an expedition with no number (top 0); a number must exceed the
    top. Keying handshakes as 1 makes both one comparison: ``key > top``.
    """
    colour, slot = _hand_columns(hand)
    key = jnp.where(slot >= N_HANDSHAKE_SLOTS, slot, 1)
    top = jnp.sum(jnp.where(colour[:, None] == COLOURS[None, :], exp_top[None, :], 0), axis=1)
    return key > top


def legal_action_mask(state):
    """bool[96]: legal actions of the seat to move (all false once the round is done)."""
    hand = seat_view(state.hands, state.to_move)
    colour, _ = _hand_columns(hand)
    play_ok = _play_ok(hand, seat_view(state.exp_top, state.to_move))
    place_ok = jnp.stack([play_ok, jnp.ones_like(play_ok)], axis=1)  # [8, 2]
    pile_ok = state.pile_size > 0
    draw_ok = jnp.concatenate([jnp.ones((1,), bool), pile_ok])  # [6]
    discarded_here = colour[:, None] == COLOURS[None, :]  # [8, 5]
    redraw = jnp.concatenate([jnp.zeros((HAND_SIZE, 1), bool), discarded_here], axis=1)
    mask = place_ok[:, :, None] & draw_ok[None, None, :]
    mask = mask.at[:, 1, :].set(mask[:, 1, :] & ~redraw)
    return mask.reshape(N_ACTIONS) & ~state.done


def board_score(state):
    """float32[2]: each seat's score of its current expeditions."""
    count = state.exp_count.astype(jnp.int32)
    value = (state.exp_sum.astype(jnp.int32) - 20) * (1 + state.exp_handshakes.astype(jnp.int32))
    value = value + jnp.where(count >= 8, 20, 0)
    return jnp.sum(jnp.where(count > 0, value, 0), axis=1).astype(jnp.float32)


def score(state):
    """float32[2]: the zero-sum margin ``[s0 - s1, s1 - s0]``."""
    b = board_score(state)
    return jnp.stack([b[0] - b[1], b[1] - b[0]])


def _insert_sorted(hand, remove_index, card):
    """``hand`` without its ``remove_index``-th card, with ``card`` inserted in order."""
    i = jnp.arange(HAND_SIZE - 1)
    rest = jnp.where(i < remove_index, hand[:-1], hand[1:])
    pos = jnp.sum(rest < card)
    j = jnp.arange(HAND_SIZE)
    left = jnp.concatenate([rest, rest[-1:]])
    right = jnp.concatenate([rest[:1], rest])
    return jnp.where(j < pos, left, jnp.where(j == pos, card, right))


def step(state, action):
    """Apply ``action`` for the seat to move: ``(next_state, reward float32[2], done)``.

    Illegal actions and any action after the end leave the state unchanged with zero
    reward. The reward is the score margin, on the ending transition only.
    """
    action = jnp.asarray(action, jnp.int32)
    hand_slot, place_type, draw_source = decode_action(action)
    player = state.to_move
    hand = seat_view(state.hands, player)
    card = jnp.sum(jnp.where(HAND_INDEX == hand_slot, hand, 0)).astype(jnp.int8)
    colour = card // N_SLOTS
    slot = card % N_SLOTS
    is_number = slot >= N_HANDSHAKE_SLOTS

    pile_colour = (draw_source - 1).astype(jnp.int8)
    from_deck = draw_source == 0
    pile_size = state.pile_size
    play_ok = jnp.any((HAND_INDEX == hand_slot) & _play_ok(hand, seat_view(state.exp_top, player)))
    draw_pile_size = jnp.sum(jnp.where(COLOURS == pile_colour, pile_size, 0))
    legal = (
        (action >= 0)
        & (action < N_ACTIONS)
        & jnp.where(place_type == 0, play_ok, True)
        & (from_deck | ((draw_pile_size > 0) & ~((place_type == 1) & (pile_colour == colour))))
    )
    live = legal & ~state.done
    play = live & (place_type == 0)
    discard = live & (place_type == 1)

    # Place the card.
    on_expedition = (SEATS[:, None] == player) & (COLOURS[None, :] == colour) & play
    exp_top = jnp.where(on_expedition & is_number, slot, state.exp_top)
    exp_sum = state.exp_sum + jnp.where(on_expedition & is_number, slot - 1, 0).astype(jnp.int8)
    exp_handshakes = state.exp_handshakes + (on_expedition & ~is_number).astype(jnp.int8)
    exp_count = state.exp_count + on_expedition.astype(jnp.int8)
    is_colour = COLOURS == colour
    push_at = is_colour[:, None] & (PILE_DEPTH[None, :] == pile_size[:, None]) & discard
    piles = jnp.where(push_at, card, state.piles)
    pile_size = pile_size + (is_colour & discard).astype(jnp.int8)

    # Draw a card.
    take_deck = live & from_deck
    take_pile = live & ~from_deck
    deck_card = jnp.sum(jnp.where(state.loc == state.deck_ptr, CARD_IDS, 0)).astype(jnp.int8)
    pop_at = (COLOURS == pile_colour)[:, None] & (PILE_DEPTH[None, :] == pile_size[:, None] - 1) & take_pile
    pile_card = jnp.sum(jnp.where(pop_at, piles, 0)).astype(jnp.int8)
    piles = jnp.where(pop_at, EMPTY, piles)
    pile_size = pile_size - ((COLOURS == pile_colour) & take_pile).astype(jnp.int8)
    new_card = jnp.where(from_deck, deck_card, pile_card)

    placed_code = jnp.where(play, LOC_EXPEDITION, LOC_PILE) + player
    drawn_code = jnp.where(from_deck, LOC_HAND, LOC_KNOWN) + player
    loc = jnp.where(live & (CARD_IDS == card), placed_code, state.loc)
    loc = jnp.where(live & (CARD_IDS == new_card), drawn_code, loc).astype(jnp.int8)
    new_hand = _insert_sorted(hand, hand_slot, new_card)
    hands = jnp.where(live & (SEATS[:, None] == player), new_hand[None, :], state.hands)

    deck_ptr = state.deck_ptr + take_deck.astype(jnp.int8)
    plies = state.plies + live.astype(jnp.int32)
    ended = live & ((deck_ptr >= N_CARDS) | (plies >= MAX_STEPS))
    next_state = State(
        loc=loc,
        hands=hands,
        piles=piles,
        pile_size=pile_size,
        exp_top=exp_top,
        exp_sum=exp_sum,
        exp_handshakes=exp_handshakes,
        exp_count=exp_count,
        deck_ptr=deck_ptr,
        plies=plies,
        to_move=jnp.where(live, 1 - player, player),
        done=state.done | ended,
    )
    reward = jnp.where(ended, score(next_state), 0.0).astype(jnp.float32)
    return next_state, reward, next_state.done
