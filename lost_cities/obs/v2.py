"""Observation v2: the match encoding (docs/encodings.md), 512 floats from one player's view.

It is observation v1 of the current round followed by what the match adds: the score
of the finished rounds, where the match stands, the deck clock, and per colour how many
points are still reachable on top of each expedition, split by where those cards are.
Margins are scaled by 75 (and bucketed) so that a 50-point lead is a large signal.

Every scaling is a multiplication by a float32 reciprocal (``x * (1/75)``), not a
division: XLA rewrites compiled division by a constant that way but not every other path
does, so writing it out gives the same bits in eager and jitted JAX, the Python
reference and the web client.

| indices   | content                                                                  |
| --------- | ------------------------------------------------------------------------ |
| 0..453    | observation v1 of the current round (``lost_cities.obs.v1.observation``) |
| 454       | carry margin (my finished-round points - the opponent's) / 75            |
| 455..463  | carry margin bucket one-hot: <=-50, -49..-25, -24..-10, -9..-1, 0,       |
|           | 1..9, 10..24, 25..49, >=50                                               |
| 464..466  | round index one-hot (round 1, 2, 3)                                      |
| 467       | rounds left after this one / 2                                           |
| 468       | it is my turn                                                            |
| 469       | I started this round                                                     |
| 470       | deck clock: I draw the last deck card if only deck draws happen from     |
|           | now on (deck cards left odd and I am to move, or even and I am not);     |
|           | 0 once the match is over                                                 |
| 471       | board-score difference this round (mine - the opponent's) / 50           |
| 472       | projected match margin (carry margin + board difference) / 75            |
| 473..481  | projected match margin bucket one-hot (buckets as at 455)                |
| 482..496  | me: per colour, the ranks of the numbers above my highest number / 54,   |
|           | 5 values each for the cards in my hand, in the discard piles, unseen by  |
|           | me (deck or the opponent's unknown hand)                                 |
| 497..511  | the opponent: per colour, the ranks of the numbers above their highest   |
|           | number / 54, 5 values each for the cards known to be in their hand, in   |
|           | the discard piles, unseen by me                                          |

The same layout as data: :data:`OBS_V2_LAYOUT` (name, offset, size of each block, in
order; the table's rows), which :func:`match_observation` assembles its blocks by, and
``python tools/web_contract.py`` writes for the web client.

The privileged v2 observation (critic only) appends ``lost_cities.obs.privileged.hidden_information``.
"""

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.game.cards import N_CARDS, N_COLOURS, N_SLOTS, slot_rank
from lost_cities.game.engine import (
    LOC_EXPEDITION,
    LOC_HAND,
    LOC_KNOWN,
    LOC_PILE,
    board_score,
    seat_view,
    shaped,
)
from lost_cities.game.match import N_ROUNDS
from lost_cities.obs.privileged import HIDDEN_DIM, hidden_information
from lost_cities.obs.v1 import OBS_DIM, assemble, block, layout, layout_size, observation, reciprocal

OBS_V2_VERSION = "v2"

MARGIN_SCALE = 75  # carry and projected match margins
BOARD_SCALE = 50  # this round's board-score difference
COLOUR_RANK_TOTAL = 54  # 2 + 3 + ... + 10: a colour's reachable ranks
ROUNDS_LEFT_SCALE = N_ROUNDS - 1
PER_MARGIN = reciprocal(MARGIN_SCALE)
PER_BOARD = reciprocal(BOARD_SCALE)
PER_COLOUR_RANKS = reciprocal(COLOUR_RANK_TOTAL)
PER_ROUNDS_LEFT = reciprocal(ROUNDS_LEFT_SCALE)
# A margin m (an integer) falls in bucket i when it exceeds exactly i of these.
MARGIN_THRESHOLDS = np.array([-50, -25, -10, -0.5, 0.5, 9.5, 24.5, 49.5], np.float32)
N_MARGIN_BUCKETS = len(MARGIN_THRESHOLDS) + 1
# Reachable ranks: per seat, 3 places (me: hand, piles, unseen; the opponent: known hand,
# piles, unseen) of one value per colour.
N_REACHABLE_PLACES = 3
OBS_V2_LAYOUT = layout(
    (
        ("v1", OBS_DIM),  # observation v1 of the current round
        ("carry_margin", 1),
        ("carry_bucket", N_MARGIN_BUCKETS),
        ("round", N_ROUNDS),  # one-hot
        ("rounds_left", 1),
        ("my_turn", 1),
        ("i_started", 1),
        ("deck_clock", 1),
        ("board_margin", 1),
        ("projected_margin", 1),
        ("projected_bucket", N_MARGIN_BUCKETS),
        ("my_reachable", N_REACHABLE_PLACES * N_COLOURS),  # place-major: place * 5 + colour
        ("their_reachable", N_REACHABLE_PLACES * N_COLOURS),
    )
)
OBS_V2_DIM = layout_size(OBS_V2_LAYOUT)
PRIVILEGED_V2_DIM = OBS_V2_DIM + HIDDEN_DIM
CARRY_INDEX = block(OBS_V2_LAYOUT, "carry_margin").offset
ROUND_BLOCK = block(OBS_V2_LAYOUT, "round")

_SLOTS = np.tile(np.arange(N_SLOTS, dtype=np.int8), N_COLOURS)
_RANKS = np.asarray(slot_rank(_SLOTS), np.float32)
_COLOUR_SUMS = np.kron(np.eye(N_COLOURS, dtype=np.float32), np.ones((N_SLOTS, 1), np.float32))
# Reachable ranks are summed packed: one base-64 digit per place (a colour's ranks add up
# to 54 < 64); four digits stay below 2**24, so float32 sums them exactly.
RANK_BITS = 6
RANK_BASE = 1 << RANK_BITS
MY_HAND, THEIR_HAND, PILES, UNSEEN = range(4)


def margin_buckets(margin):
    """float32[9]: one-hot of the margin's bucket (element-wise compares, no argmax)."""
    above = margin > shaped(MARGIN_THRESHOLDS, MARGIN_THRESHOLDS.shape, margin)
    exceeds_lower = jnp.concatenate([jnp.ones_like(above[:1]), above])
    exceeds_upper = jnp.concatenate([above, jnp.zeros_like(above[:1])])
    return (exceeds_lower & ~exceeds_upper).astype(jnp.float32)


def packed_reachable(state, player):
    """float32[2, 5]: for me, then the opponent, per colour, the packed ranks above their top.

    Digit ``place`` (base ``RANK_BASE``) of an entry sums the ranks of the colour's numbers
    in ``place`` above that seat's highest number. Under ``vmap`` XLA:CPU recomputes the
    per-game values (player, tops) for every card of a fused loop, so the cards are read
    in one pass that writes one float per card and seat, and a matmul with a constant
    sums them per colour: measured several times cheaper than a select and a sum per
    place and seat.
    """
    player = player.astype(jnp.int8)  # int8 compares against the int8 ``loc``
    opponent = 1 - player
    loc = state.loc
    like = loc[0]
    # Tested in this order, what is left below the expedition codes is the deck or the
    # opponent's unknown hand: unseen by me.
    digit = jnp.where(
        (loc == LOC_HAND + player) | (loc == LOC_KNOWN + player),
        np.float32(RANK_BASE**MY_HAND),
        jnp.where(
            loc == LOC_KNOWN + opponent,
            np.float32(RANK_BASE**THEIR_HAND),
            jnp.where(
                loc >= LOC_PILE,
                np.float32(RANK_BASE**PILES),
                jnp.where(loc < LOC_EXPEDITION, np.float32(RANK_BASE**UNSEEN), 0.0),
            ),
        ),
    )
    tops = jnp.stack([seat_view(state.exp_top, player), seat_view(state.exp_top, opponent)])
    above = shaped(_SLOTS, (N_COLOURS, N_SLOTS), like) > tops[:, :, None]
    ranks = (shaped(_RANKS, _RANKS.shape, like) * digit).reshape((N_COLOURS, N_SLOTS) + loc.shape[1:])
    taken = jnp.where(above, ranks, 0.0).reshape((2, N_CARDS) + loc.shape[1:])
    return jnp.moveaxis(jnp.tensordot(taken, _COLOUR_SUMS, axes=((1,), (0,))), -1, 1)


def unpack(packed, places):
    """float32[len(places) * 5]: the digits ``places`` of packed per-colour sums."""
    sums = packed.astype(jnp.int32)
    return jnp.concatenate(
        [((sums >> (RANK_BITS * p)) & (RANK_BASE - 1)).astype(jnp.float32) for p in places]
    )


def match_observation(ms, player):
    """float32[512]: observation v2 of match state ``ms`` from ``player``'s point of view.

    Also accepts trailing batch axes (``float32[512, *batch]``), like the round engine."""
    player = jnp.asarray(player, jnp.int32)
    opponent = 1 - player
    state = ms.round
    carry_margin = seat_view(ms.carry, player) - seat_view(ms.carry, opponent)
    boards = board_score(state)
    board_margin = seat_view(boards, player) - seat_view(boards, opponent)
    projected = carry_margin + board_margin
    my_turn = state.to_move == player
    deck_left_odd = (N_CARDS - state.deck_ptr.astype(jnp.int32)) % 2 == 1
    draws_last = (deck_left_odd == my_turn) & ~state.done

    packed = packed_reachable(state, player)
    mine = unpack(packed[0], (MY_HAND, PILES, UNSEEN))
    theirs = unpack(packed[1], (THEIR_HAND, PILES, UNSEEN))
    rounds = shaped(np.arange(N_ROUNDS), (N_ROUNDS,), ms.round_idx)
    parts = {
        "v1": observation(state, player),
        "carry_margin": (carry_margin * PER_MARGIN)[None],
        "carry_bucket": margin_buckets(carry_margin),
        "round": (rounds == ms.round_idx).astype(jnp.float32),
        "rounds_left": ((N_ROUNDS - 1 - ms.round_idx).astype(jnp.float32) * PER_ROUNDS_LEFT)[None],
        "my_turn": my_turn.astype(jnp.float32)[None],
        "i_started": (ms.starter == player).astype(jnp.float32)[None],
        "deck_clock": draws_last.astype(jnp.float32)[None],
        "board_margin": (board_margin * PER_BOARD)[None],
        "projected_margin": (projected * PER_MARGIN)[None],
        "projected_bucket": margin_buckets(projected),
        "my_reachable": mine * PER_COLOUR_RANKS,
        "their_reachable": theirs * PER_COLOUR_RANKS,
    }
    return assemble(OBS_V2_LAYOUT, parts)


def privileged_match_observation(ms, player):
    """float32[632]: observation v2 plus the hidden information, for the critic only."""
    return jnp.concatenate([match_observation(ms, player), hidden_information(ms.round, player)])


batched_match_obs = jax.jit(jax.vmap(match_observation))
