"""Observation v1 (SPEC §4): the single-round encoding, 454 floats, bit-exact.

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
"""

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

OBS_VERSION = "v1"
N_CHANNELS = 7
N_CARD_FEATURES = N_CARDS * N_CHANNELS
OBS_DIM = N_CARD_FEATURES + 34
SCORE_SCALE = 780.0


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
    return jnp.stack(
        [
            (loc == LOC_HAND + player) | (loc == LOC_KNOWN + player),
            loc == LOC_EXPEDITION + player,
            loc == LOC_EXPEDITION + opponent,
            in_pile & is_top,
            in_pile & ~is_top,
            loc == LOC_KNOWN + opponent,
            (loc < LOC_HAND) | (loc == LOC_HAND + opponent),
        ],
        axis=1,
    )


def expedition_features(state, seat):
    """float32[15]: highest number / 10, handshakes / 3, cards / 12 per colour."""
    top = seat_view(state.exp_top, seat).astype(jnp.float32)
    highest = jnp.where(top > 0, top - 1, 0.0)
    return jnp.concatenate(
        [
            scaled(highest, 10),
            scaled(seat_view(state.exp_handshakes, seat), 3),
            scaled(seat_view(state.exp_count, seat), 12),
        ]
    )


def observation(state, player):
    """float32[454]: observation v1 of ``state`` from ``player``'s point of view."""
    player = jnp.broadcast_to(jnp.asarray(player, jnp.int32), state.to_move.shape)
    opponent = 1 - player
    unknown_opponent_cards = jnp.sum(state.loc == LOC_HAND + opponent, axis=0)
    boards = board_score(state)
    margin = seat_view(boards, player) - seat_view(boards, opponent)
    scalars = jnp.concatenate(
        [
            jnp.stack(
                [
                    scaled(N_CARDS - state.deck_ptr.astype(jnp.float32), DECK_DRAWS),
                    scaled(unknown_opponent_cards, HAND_SIZE),
                    scaled(state.plies, MAX_STEPS),
                ]
            ),
            expedition_features(state, player),
            expedition_features(state, opponent),
            scaled(margin, SCORE_SCALE)[None],
        ]
    )
    cards = card_channels(state, player).astype(jnp.float32)
    return jnp.concatenate([cards.reshape((N_CARD_FEATURES,) + player.shape), scalars])


batched_obs = jax.jit(jax.vmap(observation))
