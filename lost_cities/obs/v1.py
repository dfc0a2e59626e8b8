"""Observation v1 (docs/encodings.md): the single-round encoding, 454 floats, bit-exact.

| indices              | content                                                    |
| -------------------- | ---------------------------------------------------------- |
| ``card * 7 + ch``    | one-hot channel per card: 0 my hand, 1 my expeditions,     |
|                      | 2 opponent expeditions, 3 top of a discard pile, 4 in a    |
|                      | pile below the top, 5 opponent hand and known to me,       |
|                      | 6 unknown to me (deck or the opponent's unknown hand)      |
| 420                  | deck cards left / 44                                       |
| 421                  | opponent hand cards unknown to me / 8                      |
| 422                  | plies this round / 400                                     |
| 423..437             | me: highest number per colour / 10, handshakes / 3,        |
|                      | cards / 12 (5 values each)                                 |
| 438..452             | the opponent: the same 15 values                           |
| 453                  | (my board score - opponent board score) / 780              |

The same layout as data: :data:`OBS_V1_LAYOUT` (name, offset, size of each block, in
order) and :data:`CHANNELS` (the card channels); :func:`observation` assembles its blocks
by name from it, and ``python tools/web_contract.py`` writes it for the web client.
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.game.cards import DECK_DRAWS, HAND_SIZE, MAX_STEPS, N_CARDS, N_COLOURS, N_SLOTS
from lost_cities.game.engine import (
    LOC_EXPEDITION,
    LOC_HAND,
    LOC_KNOWN,
    LOC_PILE,
    board_score,
    pile_top_code,
    seat_view,
    shaped,
)


class Block(NamedTuple):
    """One block of a flat float layout: ``size`` values from index ``offset``."""

    name: str
    offset: int
    size: int

    @property
    def stop(self):
        return self.offset + self.size


def layout(sizes, start=0):
    """``tuple[Block, ...]``: consecutive blocks of ``sizes`` (``(name, size)`` pairs) from ``start``."""
    blocks, offset = [], start
    for name, size in sizes:
        blocks.append(Block(name, offset, size))
        offset += size
    if len({block.name for block in blocks}) != len(blocks):
        raise ValueError(f"a layout's block names must be distinct: {[block.name for block in blocks]}")
    return tuple(blocks)


def block(blocks, name):
    """The :class:`Block` of ``blocks`` named ``name``."""
    for candidate in blocks:
        if candidate.name == name:
            return candidate
    raise KeyError(f"no block {name!r} in the layout {[b.name for b in blocks]}")


def layout_size(blocks):
    """The number of values a layout spans (its last block's stop)."""
    return blocks[-1].stop


def assemble(blocks, parts, axis=0):
    """The concatenation along ``axis`` of ``parts[name]`` in ``blocks``' order, each part
    checked (at trace time) to hold its block's ``size`` values along that axis.

    The first block is joined to the concatenation of the others: XLA:CPU ran the batched
    observations about 10% slower as one flat concatenation of their many small blocks."""
    if blocks[0].offset != 0:
        raise ValueError(f"a layout assembled into one array starts at 0, not {blocks[0].offset}")
    missing = {block.name for block in blocks} ^ set(parts)
    if missing:
        raise ValueError(f"the parts and the layout differ in {sorted(missing)}")
    for name, size in ((block.name, block.size) for block in blocks):
        if parts[name].shape[axis] != size:
            raise ValueError(f"block {name!r} holds {size} values, its part {parts[name].shape[axis]}")
    first, rest = parts[blocks[0].name], [parts[block.name] for block in blocks[1:]]
    return jnp.concatenate([first, jnp.concatenate(rest, axis=axis)] if rest else [first], axis=axis)


OBS_VERSION = "v1"
# A card's channel from the observer's point of view (one-hot per card, ``card * 7 + ch``).
CHANNELS = (
    "my_hand",  # in my hand
    "my_expedition",
    "opponent_expedition",
    "pile_top",  # the top of a discard pile
    "pile_below",  # in a discard pile below its top
    "opponent_known",  # in the opponent's hand, known to me (drawn from a pile)
    "unseen",  # the deck or the opponent's unknown hand
)
N_CHANNELS = len(CHANNELS)
N_CARD_FEATURES = N_CARDS * N_CHANNELS
# Per seat: highest number / 10, handshakes / 3, cards / 12, per colour.
EXPEDITION_SCALES = (("highest", 10), ("handshakes", 3), ("cards", 12))
N_EXPEDITION_FEATURES = len(EXPEDITION_SCALES) * N_COLOURS
SCORE_SCALE = 780.0
OBS_V1_LAYOUT = layout(
    (
        ("cards", N_CARD_FEATURES),  # card * N_CHANNELS + channel
        ("deck_left", 1),  # / DECK_DRAWS
        ("opponent_unknown", 1),  # the opponent's hand cards unknown to me / HAND_SIZE
        ("plies", 1),  # / MAX_STEPS
        ("my_expeditions", N_EXPEDITION_FEATURES),
        ("opponent_expeditions", N_EXPEDITION_FEATURES),
        ("board_margin", 1),  # / SCORE_SCALE
    )
)
OBS_DIM = layout_size(OBS_V1_LAYOUT)
DECK_LEFT_INDEX = block(OBS_V1_LAYOUT, "deck_left").offset
PLIES_INDEX = block(OBS_V1_LAYOUT, "plies").offset


def reciprocal(divisor):
    """The float32 reciprocal of ``divisor`` (correctly rounded), the factor of :func:`scaled`."""
    return np.float32(1.0) / np.float32(divisor)


def scaled(x, divisor):
    """``x / divisor`` as XLA compiles it under jit: a product with the float32 reciprocal.

    Written out so that eager and jitted calls (and the TypeScript port) give the same
    bits; the correctly rounded quotient can differ from it by one float32 ulp. Every
    observation scales this way (v2 multiplies by ``reciprocal`` constants).
    """
    return x.astype(jnp.float32) * reciprocal(divisor)


def pile_tops(state):
    """int8[5]: the top card of each discard pile, -1 where empty."""
    loc = state.loc.reshape((N_COLOURS, N_SLOTS) + state.loc.shape[1:])
    at_top = (loc == pile_top_code(state.pile_size[:, None])) & (state.pile_size[:, None] > 0)
    ids = shaped(jnp.arange(N_CARDS, dtype=jnp.int8), (N_COLOURS, N_SLOTS), state.to_move)
    return jnp.sum(jnp.where(at_top, ids + 1, 0), axis=1).astype(jnp.int8) - 1


def card_channels(state, player):
    """bool[60, 7]: each card's channel from ``player``'s point of view."""
    player = jnp.broadcast_to(jnp.asarray(player, jnp.int32), state.to_move.shape)
    opponent = 1 - player
    loc = state.loc
    in_pile = loc >= LOC_PILE
    own_pile_size = jnp.repeat(state.pile_size, N_SLOTS, axis=0)
    is_top = loc == pile_top_code(own_pile_size)
    channels = {
        "my_hand": (loc == LOC_HAND + player) | (loc == LOC_KNOWN + player),
        "my_expedition": loc == LOC_EXPEDITION + player,
        "opponent_expedition": loc == LOC_EXPEDITION + opponent,
        "pile_top": in_pile & is_top,
        "pile_below": in_pile & ~is_top,
        "opponent_known": loc == LOC_KNOWN + opponent,
        "unseen": (loc < LOC_HAND) | (loc == LOC_HAND + opponent),
    }
    return jnp.stack([channels[name] for name in CHANNELS], axis=1)


def expedition_features(state, seat):
    """float32[15]: highest number / 10, handshakes / 3, cards / 12 per colour (``EXPEDITION_SCALES``)."""
    top = seat_view(state.exp_top, seat).astype(jnp.float32)
    values = {
        "highest": jnp.where(top > 0, top - 1, 0.0),
        "handshakes": seat_view(state.exp_handshakes, seat),
        "cards": seat_view(state.exp_count, seat),
    }
    return jnp.concatenate([scaled(values[name], scale) for name, scale in EXPEDITION_SCALES])


def observation(state, player):
    """float32[454]: observation v1 of ``state`` from ``player``'s point of view."""
    player = jnp.broadcast_to(jnp.asarray(player, jnp.int32), state.to_move.shape)
    opponent = 1 - player
    unknown_opponent_cards = jnp.sum(state.loc == LOC_HAND + opponent, axis=0)
    boards = board_score(state)
    margin = seat_view(boards, player) - seat_view(boards, opponent)
    cards = card_channels(state, player).astype(jnp.float32)
    parts = {
        "cards": cards.reshape((N_CARD_FEATURES,) + player.shape),
        "deck_left": scaled(N_CARDS - state.deck_ptr.astype(jnp.float32), DECK_DRAWS)[None],
        "opponent_unknown": scaled(unknown_opponent_cards, HAND_SIZE)[None],
        "plies": scaled(state.plies, MAX_STEPS)[None],
        "my_expeditions": expedition_features(state, player),
        "opponent_expeditions": expedition_features(state, opponent),
        "board_margin": scaled(margin, SCORE_SCALE)[None],
    }
    return assemble(OBS_V1_LAYOUT, parts)


batched_obs = jax.jit(jax.vmap(observation))
