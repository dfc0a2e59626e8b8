"""Pure-JAX rules engine for one round of Lost Cities (docs/rules.md, docs/encodings.md, docs/api.md).

Representation, chosen for batched speed on CPU (all small integer arrays, updated
with one-hot selects rather than gathers/scatters so that ``vmap`` lowers to fused
element-wise loops):

- ``loc[c]``: where card ``c`` is. ``0..59`` is its position in the deck (undrawn
  cards have ``loc >= deck_ptr``); the codes below mark hands, expeditions and piles.
  The deal is therefore just the inverse permutation of the deck order.
- ``hands[p]``: seat ``p``'s 8 cards sorted by id, so ``hand_slot`` indexes it
  directly. It caches what ``loc`` implies; keeping it avoids a prefix count over 60
  cards on every ply.
- discard piles: a pile card's ``loc`` is ``LOC_PILE`` plus its depth in its colour's
  pile (0 at the bottom), and ``pile_size[c]`` counts the pile, so the top of pile ``c``
  is its card at depth ``pile_size[c] - 1``. A separate stack array would be one more
  60-entry update (and copy) per ply; the draw and placement passes over ``loc`` are
  made anyway.
- ``exp_*[p, c]``: expedition summaries (highest number slot, sum of numbers,
  handshakes, card count): all that legality and scoring need.
- ``recent_*[k]``: the round's ``k``-th latest move (``0`` the last; ``MOVE_HISTORY`` kept)
  as both seats saw it: the action, the card placed, the card taken from a pile (not a
  deck draw's card, which only its drawer saw). No rule reads them; the search weighs its
  sampled worlds by them (lost_cities/search/inference.py).

Every function is written for one game but also accepts states whose arrays carry
extra *trailing* batch axes (``loc[60, B]``, ``to_move[B]``): constants are shaped to
broadcast from the left and reductions run over leading axes, so batch-last layouts
(e.g. ``match_reset(key, (B,))``) need no transposes. ``jax.vmap`` (batch first, the
public ``batched_*`` API) works as usual and measured faster in the random-play
benchmark loop on the 2-core CPU, so the benchmark uses it.

Written for XLA:CPU's fusion, which was measured (``jax.profiler`` traces of the
benchmark loop) to decide the speed more than operation counts do: XLA fuses every
cheap element-wise producer into each consumer, so a per-game value broadcast over 60
cards is recomputed for each of them. Values that take many operations (legality, a
card's colour lookup, per-source counts) are therefore results of reductions, which
XLA stores once per game, and only a few operations follow them before they meet the
60-card arrays. Cumulative sums (quadratic, via reduce-window) are avoided.
"""

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from lost_cities.game.cards import (
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
    encode_action,
    slot_rank,
)

# loc codes above the deck positions 0..59; add the seat for the per-seat codes.
LOC_HAND = 64  # in seat p's hand, unknown to the other seat
LOC_KNOWN = 66  # in seat p's hand, drawn from a discard pile, so known to the other seat
LOC_EXPEDITION = 68
LOC_PILE = 70  # plus the card's depth in its pile: 70..81

NO_MOVE = np.int8(-1)  # a State's recent_* entries before the round's first move
MOVE_HISTORY = 16  # the round's latest moves a State keeps (8 of each seat)
SEATS = jnp.arange(2, dtype=jnp.int32)
COLOURS = jnp.arange(N_COLOURS, dtype=jnp.int8)
HAND_INDEX = jnp.arange(HAND_SIZE, dtype=jnp.int8)


@struct.dataclass
class State:
    loc: jax.Array  # int8[60]
    hands: jax.Array  # int8[2, 8], sorted by card id
    pile_size: jax.Array  # int8[5]
    exp_top: jax.Array  # int8[2, 5], highest number slot on the expedition, 0 if none
    exp_sum: jax.Array  # int8[2, 5], sum of number ranks
    exp_handshakes: jax.Array  # int8[2, 5]
    exp_count: jax.Array  # int8[2, 5]
    deck_ptr: jax.Array  # int8, deck position of the next card to draw (16..60)
    plies: jax.Array  # int32, placements made this round
    to_move: jax.Array  # int32 seat to move
    done: jax.Array  # bool
    # The round's latest moves, newest first, as both seats saw them (-1 before the round's
    # first move): what search needs to weigh its sampled worlds by the opponent's play
    # (search/inference.py).
    recent_actions: jax.Array = struct.field(default_factory=lambda: _no_moves(()))  # int8[16], action ids
    recent_cards: jax.Array = struct.field(default_factory=lambda: _no_moves(()))  # int8[16], cards placed
    recent_drawn: jax.Array = struct.field(  # int8[16], cards taken from a discard pile (-1: from the deck)
        default_factory=lambda: _no_moves(())
    )


def _no_moves(batch):
    """int8[MOVE_HISTORY, *batch] of ``NO_MOVE``: a round's move history before its first move."""
    return jnp.full((MOVE_HISTORY,) + tuple(batch), NO_MOVE, jnp.int8)


def pile_top_code(pile_size):
    """The ``loc`` code of the top card of a pile holding ``pile_size`` (> 0) cards."""
    return LOC_PILE - 1 + pile_size


def shaped(values, shape, like):
    """Constant ``values`` reshaped to ``shape`` plus one unit axis per batch axis of ``like``
    (so that it broadcasts against ``like``'s trailing batch axes)."""
    return values.reshape(shape + (1,) * jnp.ndim(like))


def seat_view(x, player):
    """``x[player]`` for a per-seat array, as a select (cheap under vmap)."""
    return jnp.where(player == 0, x[0], x[1])


def _dealt_hands(positions):
    """int8[2, 8]: each seat's dealt cards (deck positions 0..7 and 8..15), sorted by id.

    The 16 dealt cards are read off the deck order and each group of 8 is ranked by
    pairwise comparison: a few hundred operations per game, where sorting the
    60-card membership mask by prefix counts costs thousands.
    """
    dealt_positions = shaped(jnp.arange(DEALT, dtype=jnp.int8), (DEALT, 1), positions[0])
    ids = shaped(CARD_IDS, (1, N_CARDS), positions[0])
    dealt = jnp.sum(jnp.where(positions[None] == dealt_positions, ids, 0), axis=1, dtype=jnp.int8)
    hands = dealt.reshape((2, HAND_SIZE) + dealt.shape[1:])
    rank = jnp.sum(hands[:, None] < hands[:, :, None], axis=2, dtype=jnp.int8)  # [2, 8]
    slots = shaped(HAND_INDEX, (1, HAND_SIZE, 1), positions[0])
    return jnp.sum(jnp.where(rank[:, None] == slots, hands[:, None], 0), axis=2, dtype=jnp.int8)


def reset_from_positions(positions, first_player=0):
    """Deal a round from ``positions[c]``, card ``c``'s index in the deck order."""
    positions = jnp.asarray(positions, jnp.int8)
    batch = positions.shape[1:]
    seat0 = positions < HAND_SIZE
    seat1 = (positions >= HAND_SIZE) & (positions < DEALT)
    loc = jnp.where(seat0, LOC_HAND, jnp.where(seat1, LOC_HAND + 1, positions))
    zeros = jnp.zeros((2, N_COLOURS) + batch, jnp.int8)
    return State(
        loc=loc.astype(jnp.int8),
        hands=_dealt_hands(positions),
        pile_size=jnp.zeros((N_COLOURS,) + batch, jnp.int8),
        exp_top=zeros,
        exp_sum=zeros,
        exp_handshakes=zeros,
        exp_count=zeros,
        deck_ptr=jnp.full(batch, DEALT, jnp.int8),
        plies=jnp.zeros(batch, jnp.int32),
        to_move=jnp.broadcast_to(jnp.asarray(first_player, jnp.int32), batch),
        done=jnp.zeros(batch, bool),
        recent_actions=_no_moves(batch),
        recent_cards=_no_moves(batch),
        recent_drawn=_no_moves(batch),
    )


def positions_from_order(deck_order):
    """Inverse permutation: the deck index of every card id."""
    deck_order = jnp.asarray(deck_order, jnp.int32)
    cards = shaped(jnp.arange(N_CARDS, dtype=jnp.int32), (N_CARDS, 1), deck_order[0])
    index = shaped(jnp.arange(N_CARDS, dtype=jnp.int32), (1, N_CARDS), deck_order[0])
    hit = deck_order[None] == cards
    return jnp.sum(jnp.where(hit, index, 0), axis=1).astype(jnp.int8)


def reset_from_order(deck_order, first_player=0):
    return reset_from_positions(positions_from_order(deck_order), first_player)


def shuffled_positions(rng, batch_shape=()):
    """Uniformly random decks, as every card's deck index (``int8[60, *batch_shape]``).

    Ranks of 60 random 32-bit keys (ties broken by card id), computed by pairwise
    comparison: for 60 items this fuses into one element-wise loop and is much
    cheaper than XLA's sort behind ``jax.random.permutation``.
    """
    keys = jax.random.bits(rng, (N_CARDS,) + tuple(batch_shape), jnp.uint32)
    ids = shaped(jnp.arange(N_CARDS), (N_CARDS,), keys[0])
    before = (keys[None] < keys[:, None]) | ((keys[None] == keys[:, None]) & (ids[None] < ids[:, None]))
    return jnp.sum(before, axis=1, dtype=jnp.int8)


def reset(rng):
    """A fresh round on a uniformly shuffled deck; seat 0 starts."""
    return reset_from_positions(shuffled_positions(rng))


def _play_ok(hand, exp_top):
    """Whether each hand card can be played on the mover's expedition.

    A handshake needs an expedition with no number (top 0); a number must exceed the
    top. Keying handshakes as 1 makes both one comparison: ``key > top``.
    """
    colour = hand // N_SLOTS
    slot = hand % N_SLOTS
    key = jnp.where(slot >= N_HANDSHAKE_SLOTS, slot, 1)
    colours = shaped(COLOURS, (N_COLOURS, 1), hand[0])
    top = jnp.sum(jnp.where(colour[None] == colours, exp_top[:, None], 0), axis=0, dtype=jnp.int8)
    return key > top


def legal_action_mask(state):
    """bool[96]: legal actions of the seat to move (all false once the round is done)."""
    player = state.to_move
    hand = seat_view(state.hands, player)
    play_ok = _play_ok(hand, seat_view(state.exp_top, player))
    draw_ok = jnp.concatenate([jnp.ones((1,) + player.shape, bool), state.pile_size > 0])  # [6]
    colours = shaped(COLOURS, (1, N_COLOURS), player)
    redraw = jnp.concatenate(
        [jnp.zeros((HAND_SIZE, 1) + player.shape, bool), (hand // N_SLOTS)[:, None] == colours], axis=1
    )
    play = play_ok[:, None] & draw_ok[None]
    discard = draw_ok[None] & ~redraw
    mask = jnp.stack([play, discard], axis=1)  # [8, 2, 6]
    return mask.reshape((N_ACTIONS,) + player.shape) & ~state.done


def _locate(counts, k):
    """For items with ``counts[n, ...]``, the item holding the k-th unit and k's offset in it.

    The inclusive prefix sums are one masked [n, n] sum per game: XLA:CPU's cumsum is
    quadratic with a slow reduce-window, and a matmul is a separate library call.
    """
    n = counts.shape[0]
    lower = shaped(np.tri(n, dtype=bool), (n, n), k)
    inclusive = jnp.sum(jnp.where(lower, counts[None].astype(jnp.int32), 0), axis=1)
    item = jnp.sum((inclusive <= k).astype(jnp.int32), axis=0)
    index = shaped(jnp.arange(n), (n,), k)
    before = jnp.sum(jnp.where(index == item, inclusive - counts, 0), axis=0)
    return item, k - before


def kth_set_bit(word, k, width=32):
    """Index of the k-th (0-based) set bit among the low ``width`` bits of uint32 ``word``.

    A binary search on population counts: a handful of scalar operations per game, where
    searching an unpacked mask costs a prefix sum over it.
    """
    position = jnp.zeros_like(k)
    half = width // 2
    while half:
        count = jax.lax.population_count(word & jnp.uint32((1 << half) - 1)).astype(jnp.int32)
        skip = k >= count
        k = jnp.where(skip, k - count, k)
        word = jnp.where(skip, word >> half, word)
        position = position + jnp.where(skip, half, 0)
        half //= 2
    return position


def _legal_by_source(state):
    """Per draw source (deck, piles 0..4), the number of legal placements of the seat to
    move; also which hand cards can be played, how many, and each hand card's colour."""
    player = state.to_move
    hand = seat_view(state.hands, player)
    colour = hand // N_SLOTS
    play_ok = _play_ok(hand, seat_view(state.exp_top, player))
    plays = jnp.sum(play_ok.astype(jnp.int32), axis=0)
    colours = shaped(COLOURS, (N_COLOURS, 1), player)
    held = jnp.sum((colour[None] == colours).astype(jnp.int32), axis=1)
    # Any card can be discarded with a deck draw, but not onto the pile it draws from.
    per_pile = jnp.where(state.pile_size > 0, plays + HAND_SIZE - held, 0)
    per_source = jnp.concatenate([(plays + HAND_SIZE)[None], per_pile])
    return per_source, play_ok, plays, colour


def legal_action_count(state):
    """int32: the number of legal actions (0 once the round is done)."""
    per_source, _, _, _ = _legal_by_source(state)
    return jnp.where(state.done, 0, jnp.sum(per_source, axis=0))


def kth_legal_action(state, k):
    """The k-th (0-based) legal action of the seat to move, enumerated by draw source
    (deck, then piles 0..4) and within a source plays then discards, by hand slot.

    Found from the legal moves' structure rather than from the 96-entry mask, which on
    XLA:CPU costs more to materialise and search than the engine step itself. Any fixed
    enumeration serves a uniform sampler; this one needs only a 6-way prefix sum and a
    bit search over the 8 hand slots.
    """
    player = state.to_move
    per_source, play_ok, plays, colour = _legal_by_source(state)
    k = jnp.broadcast_to(jnp.asarray(k, jnp.int32), player.shape)
    source, k = _locate(per_source, k)
    is_play = k < plays
    candidates = jnp.where(is_play, play_ok, colour != source - 1)
    shifts = shaped(jnp.arange(HAND_SIZE, dtype=jnp.uint32), (HAND_SIZE,), player)
    word = jnp.sum(candidates.astype(jnp.uint32) << shifts, axis=0, dtype=jnp.uint32)
    hand_slot = kth_set_bit(word, jnp.where(is_play, k, k - plays), HAND_SIZE)
    return encode_action(hand_slot, jnp.where(is_play, 0, 1), source)


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
    i = shaped(jnp.arange(HAND_SIZE - 1), (HAND_SIZE - 1,), card)
    rest = jnp.where(i < remove_index, hand[:-1], hand[1:])
    pos = jnp.sum(rest < card, axis=0, dtype=jnp.int8)
    j = shaped(jnp.arange(HAND_SIZE), (HAND_SIZE,), card)
    left = jnp.concatenate([rest, rest[-1:]])
    right = jnp.concatenate([rest[:1], rest])
    return jnp.where(j < pos, left, jnp.where(j == pos, card, right))


def _recorded(live, value, recent):
    """``recent`` (newest first) with ``value`` put in front when the move is ``live``."""
    return jnp.where(live, jnp.concatenate([value[None], recent[:-1]]), recent)


def step(state, action):
    """Apply ``action`` for the seat to move: ``(next_state, reward float32[2], done)``.

    Illegal actions and any action after the end leave the state unchanged with zero
    reward. The reward is the score margin, on the ending transition only. Legality is
    one reduction over the hand slots (see the module docstring on fusion).
    """
    # Unsigned: a negative action decodes to a hand slot past the hand, so no slot matches.
    decoded = decode_action(jnp.asarray(action).astype(jnp.uint32))
    hand_slot, place_type, draw_source = (part.astype(jnp.int32) for part in decoded)
    player = state.to_move
    hand_index = shaped(HAND_INDEX, (HAND_SIZE,), player)
    colours = shaped(COLOURS, (N_COLOURS,), player)
    card_ids = shaped(CARD_IDS, (N_CARDS,), player)
    seats = shaped(SEATS, (2, 1), player)

    hand = seat_view(state.hands, player)
    hand_colour = hand // N_SLOTS
    at_slot = hand_index == hand_slot
    card = jnp.sum(jnp.where(at_slot, hand, 0), axis=0, dtype=jnp.int8)
    colour = card // N_SLOTS
    slot = card % N_SLOTS
    is_number = slot >= N_HANDSHAKE_SLOTS

    pile_colour = draw_source.astype(jnp.int8) - 1
    from_deck = draw_source == 0
    is_pile_colour = colours == pile_colour
    pile_size = state.pile_size
    draw_pile_size = jnp.sum(jnp.where(is_pile_colour, pile_size, 0), axis=0, dtype=jnp.int8)
    source_open = from_deck | (draw_pile_size > 0)
    placeable = jnp.where(
        place_type == 0, _play_ok(hand, seat_view(state.exp_top, player)), hand_colour != pile_colour
    )
    live = jnp.any(at_slot & placeable & source_open & ~state.done, axis=0)
    play = live & (place_type == 0)
    discard = live & (place_type == 1)

    # Place the card, then draw: the drawn card is the one whose location is the deck
    # position ``deck_ptr`` or the top depth of the chosen pile (never the pile just
    # discarded on, so the placement cannot change that top).
    is_colour = colours == colour
    on_expedition = (seats == player) & is_colour[None] & play
    exp_top = jnp.where(on_expedition & is_number, slot, state.exp_top)
    exp_sum = state.exp_sum + jnp.where(on_expedition, slot_rank(slot), 0).astype(jnp.int8)
    exp_handshakes = state.exp_handshakes + (on_expedition & ~is_number).astype(jnp.int8)
    exp_count = state.exp_count + on_expedition.astype(jnp.int8)
    discard_depth = jnp.sum(jnp.where(is_colour, pile_size, 0), axis=0, dtype=jnp.int8)
    draw_code = jnp.where(from_deck, state.deck_ptr, pile_top_code(draw_pile_size)).astype(jnp.int8)
    drawable = (state.loc == draw_code) & (from_deck | (card_ids // N_SLOTS == pile_colour))
    new_card = jnp.sum(jnp.where(drawable, card_ids, 0), axis=0, dtype=jnp.int8)
    pile_size = pile_size + (is_colour & discard).astype(jnp.int8)
    pile_size = pile_size - (is_pile_colour & live & ~from_deck).astype(jnp.int8)

    placed_code = jnp.where(play, LOC_EXPEDITION + player, LOC_PILE + discard_depth)
    drawn_code = jnp.where(from_deck, LOC_HAND, LOC_KNOWN) + player
    loc = jnp.where(live & (card_ids == card), placed_code, state.loc)
    loc = jnp.where(live & (card_ids == new_card), drawn_code, loc).astype(jnp.int8)
    new_hand = _insert_sorted(hand, hand_slot, new_card)
    hands = jnp.where(live & (seats == player), new_hand[None], state.hands)

    deck_ptr = state.deck_ptr + (live & from_deck).astype(jnp.int8)
    plies = state.plies + live.astype(jnp.int32)
    ended = live & ((deck_ptr >= N_CARDS) | (plies >= MAX_STEPS))
    next_state = State(
        loc=loc,
        hands=hands,
        pile_size=pile_size,
        exp_top=exp_top,
        exp_sum=exp_sum,
        exp_handshakes=exp_handshakes,
        exp_count=exp_count,
        deck_ptr=deck_ptr,
        plies=plies,
        to_move=jnp.where(live, 1 - player, player),
        done=state.done | ended,
        recent_actions=_recorded(live, jnp.asarray(action).astype(jnp.int8), state.recent_actions),
        recent_cards=_recorded(live, card, state.recent_cards),
        recent_drawn=_recorded(live, jnp.where(from_deck, NO_MOVE, new_card), state.recent_drawn),
    )
    reward = jnp.where(ended, score(next_state), 0.0).astype(jnp.float32)
    return next_state, reward, next_state.done


batched_reset = jax.jit(jax.vmap(reset))
batched_step = jax.jit(jax.vmap(step))
batched_legal_mask = jax.jit(jax.vmap(legal_action_mask))
