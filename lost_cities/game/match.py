"""The real game: a 3-round match on top of the round engine (docs/rules.md, docs/api.md).

All randomness is drawn at reset: three deck orders and three coins. The three rounds'
deals (``loc`` and sorted hands) are computed there too and kept in the ``MatchState``,
so the round change inside :func:`match_step` is a cheap select. Under ``vmap`` both
sides of that select run for every game on every ply, so dealing (a sort) must never
happen there.

Like the round engine, :func:`match_step`, :func:`match_legal_action_mask` and
``match_observation`` also accept states whose arrays carry extra *trailing* batch axes
(e.g. ``jax.vmap(match_reset, out_axes=-1)(keys)``), which XLA:CPU runs faster than the
batch-first layout of the ``batched_*`` functions.

Coins: ``coins[r]`` is a seat. Round 1 is started by seat ``coins[0]``; rounds 2 and 3
by the seat with more cumulative points, and on an exact tie by seat ``coins[r]``
(coin 0: seat 0 starts). Mirroring a match (swap deck positions 0..7 with 8..15 and
flip every coin) therefore swaps the seats exactly.
"""

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from lost_cities.game.cards import N_CARDS
from lost_cities.game.engine import (
    State,
    board_score,
    legal_action_mask,
    positions_from_order,
    reset_from_positions,
    shuffled_positions,
    step,
)

N_ROUNDS = 3


@struct.dataclass
class MatchState:
    round: State  # the round being played (the finished round 3 once the match is done)
    deal_loc: jax.Array  # int8[3, 60], each round's dealt ``State.loc``
    deal_hands: jax.Array  # int8[3, 2, 8], each round's dealt ``State.hands``
    round_idx: jax.Array  # int32 0..2
    carry: jax.Array  # float32[2], each seat's points from the finished rounds
    coins: jax.Array  # int32[3], seat that starts round 1 / wins a tie before rounds 2, 3
    starter: jax.Array  # int32, the seat that started the current round

    @property
    def to_move(self):
        return self.round.to_move

    @property
    def done(self):
        """Only round 3 can stay finished: earlier rounds are replaced at their last ply."""
        return self.round.done


def _dealt_round(loc, hands, first_player):
    """A freshly dealt round, to be selected into a state of ``first_player``'s batch shape.

    Dealt rounds differ only in ``loc``, ``hands`` and the starting seat, so every other
    field is a compile-time constant (cheap to select), given unit batch axes so that it
    broadcasts against trailing batch axes.
    """
    batch_axes = jnp.ndim(first_player)
    with jax.ensure_compile_time_eval():
        template = reset_from_positions(jnp.arange(N_CARDS))
    template = jax.tree.map(lambda x: x.reshape(x.shape + (1,) * batch_axes), template)
    return template.replace(loc=loc, hands=hands, to_move=jnp.asarray(first_player, jnp.int32))


def _start(positions, coins):
    """A match from each round's deck ``positions`` (3 arrays ``int8[60, *batch]``) and
    ``coins`` ``int32[3, *batch]``."""
    deals = [reset_from_positions(p) for p in positions]
    batch = coins.shape[1:]
    return MatchState(
        round=deals[0].replace(to_move=coins[0]),
        deal_loc=jnp.stack([deal.loc for deal in deals]),
        deal_hands=jnp.stack([deal.hands for deal in deals]),
        round_idx=jnp.zeros(batch, jnp.int32),
        carry=jnp.zeros((2,) + batch, jnp.float32),
        coins=coins,
        starter=coins[0],
    )


def _check_deal(deck_orders, coins):
    """Clear early errors for malformed deals; value checks only where values are concrete."""
    if jnp.shape(deck_orders) != (N_ROUNDS, N_CARDS) or jnp.shape(coins) != (N_ROUNDS,):
        raise ValueError(
            f"match_reset_from needs deck_orders of shape (3, 60) and coins of shape (3,), got "
            f"{jnp.shape(deck_orders)} and {jnp.shape(coins)}; use the batched version for batches"
        )
    if isinstance(deck_orders, jax.core.Tracer) or isinstance(coins, jax.core.Tracer):
        return
    orders = np.asarray(deck_orders)
    if not (np.sort(orders, axis=1) == np.arange(N_CARDS)).all():
        raise ValueError("each deck order must be a permutation of the card ids 0..59")
    if not np.isin(np.asarray(coins), (0, 1)).all():
        raise ValueError(f"coins must be seats 0 or 1, got {np.asarray(coins).tolist()}")


def match_reset_from(deck_orders, coins):
    """A match on fixed deals: ``deck_orders`` int32[3, 60], ``coins`` int32[3] (seats)."""
    _check_deal(deck_orders, coins)
    deck_orders = jnp.asarray(deck_orders, jnp.int32)
    return _start([positions_from_order(order) for order in deck_orders], jnp.asarray(coins, jnp.int32))


def match_reset(rng, batch_shape=()):
    """A fresh match: three shuffled decks and three fair coins.

    With ``batch_shape`` it deals that many independent matches with trailing batch
    axes, directly in the layout the round engine runs fastest in.
    """
    batch_shape = tuple(batch_shape)
    *deck_keys, coin_key = jax.random.split(rng, N_ROUNDS + 1)
    positions = [shuffled_positions(key, batch_shape) for key in deck_keys]
    coins = jax.random.bernoulli(coin_key, 0.5, (N_ROUNDS,) + batch_shape).astype(jnp.int32)
    return _start(positions, coins)


def match_legal_action_mask(ms):
    """bool[96]: legal actions of the seat to move (all false once the match is done)."""
    return legal_action_mask(ms.round)


def carry_margin(ms):
    """float32[2]: ``[c0 - c1, c1 - c0]`` of the finished rounds."""
    return jnp.stack([ms.carry[0] - ms.carry[1], ms.carry[1] - ms.carry[0]])


def starting_seat(carry, tie_coin):
    """The seat that starts round 2 or 3: the one with more points in ``carry``; on an
    exact tie ``tie_coin`` (that round's coin)."""
    return jnp.where(carry[0] > carry[1], 0, jnp.where(carry[1] > carry[0], 1, tie_coin))


def match_step(ms, action):
    """Apply ``action`` for the seat to move: ``(next_match_state, reward float32[2], done)``.

    A round's last ply adds its board scores to the carry; before round 3 it also deals
    the next round with its starting seat, so the returned state is never between rounds.
    The reward is the final carry margin, on the match's last transition only. Illegal
    and post-done actions are no-ops (the round engine leaves the state unchanged).
    """
    played, _, round_done = step(ms.round, action)
    round_ended = round_done & ~ms.round.done
    carry = ms.carry + jnp.where(round_ended, board_score(played), 0.0)
    next_round = ms.round_idx + 1
    advance = round_ended & (next_round < N_ROUNDS)
    into_round_2 = next_round == 1
    tie_coin = jnp.where(into_round_2, ms.coins[1], ms.coins[2])
    first = starting_seat(carry, tie_coin)
    dealt = _dealt_round(
        jnp.where(into_round_2, ms.deal_loc[1], ms.deal_loc[2]),
        jnp.where(into_round_2, ms.deal_hands[1], ms.deal_hands[2]),
        first,
    )
    next_ms = ms.replace(
        round=jax.tree.map(lambda new, old: jnp.where(advance, new, old), dealt, played),
        round_idx=jnp.where(advance, next_round, ms.round_idx),
        carry=carry,
        starter=jnp.where(advance, first, ms.starter),
    )
    match_over = round_ended & ~advance
    reward = jnp.where(match_over, carry_margin(next_ms), 0.0).astype(jnp.float32)
    return next_ms, reward, next_ms.done


batched_match_reset = jax.jit(jax.vmap(match_reset))
batched_match_reset_from = jax.jit(jax.vmap(match_reset_from))
batched_match_step = jax.jit(jax.vmap(match_step))
batched_match_legal_mask = jax.jit(jax.vmap(match_legal_action_mask))

__all__ = [
    "N_ROUNDS",
    "MatchState",
    "batched_match_legal_mask",
    "batched_match_reset",
    "batched_match_reset_from",
    "batched_match_step",
    "carry_margin",
    "match_legal_action_mask",
    "match_reset",
    "match_reset_from",
    "match_step",
    "starting_seat",
]
