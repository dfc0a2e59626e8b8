"""Engine throughput (``python -m lost_cities.bench [--batch 8192] [--steps 256] [--runs 5]``).

Random legal play inside one jitted ``lax.scan``: every ply each of ``batch`` games
takes a uniformly random legal action; finished games are re-dealt inside the scan
from fresh uniform shuffles. Only real plies (taken in a live game) are counted.
Prints ``key=value`` lines; rates are the median of ``runs`` timed runs after compile.
``backend`` and ``device_count`` say what ran: the engine loops run on one device, the
training update data-parallel over ``--devices`` (``train_devices``).
``obs_cost_us`` / ``obs_v2_cost_us`` are what computing the observation adds to a ply
(the difference of the loops' ply times), and ``obs_v2_cost_ratio`` their quotient.

Fresh deals are drawn once every ``redeal_every`` plies for every game and kept as a
spare: a round lasts at least 44 plies and a match at least 132, so no game can finish
twice between refills, and dealing (the costliest part of a reset) is not paid on
every ply.

Both games run under ``jax.vmap`` (batch first), as the batched public API does; the
engine's trailing-batch layout measured slower in this loop on the 2-core CPU. Each ply
draws one uniform per game from a single key (``sampling.legal_action_at``): splitting
a key per game would hash twice per game and ply.
"""

import time
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.benchmarks.training import measure_throughput
from lost_cities.game.cards import DECK_DRAWS
from lost_cities.game.engine import reset, step
from lost_cities.game.match import N_ROUNDS, match_reset, match_step
from lost_cities.game.sampling import legal_action_at
from lost_cities.obs.v1 import observation
from lost_cities.obs.v2 import match_observation
from lost_cities.ppo.config import compose


class Game(NamedTuple):
    """How the benchmark drives one game kind over a batch."""

    deal: object  # (key, batch) -> batched state
    advance: object  # (state, key) -> state after one random legal ply
    live: object  # state -> bool[batch]
    observe: object  # state -> observation of the player to move (any layout)
    batch_axis: int
    redeal_every: int  # plies between spare deals: at most the shortest game


def _round_game():
    def advance_one(state, u):
        next_state, _, _ = step(state, legal_action_at(state, u))
        return next_state

    def advance(state, key):
        return jax.vmap(advance_one)(state, jax.random.uniform(key, state.plies.shape))

    return Game(
        deal=lambda key, batch: jax.vmap(reset)(jax.random.split(key, batch)),
        advance=advance,
        live=lambda state: ~state.done,
        observe=lambda state: jax.vmap(observation)(state, state.to_move),
        batch_axis=0,
        redeal_every=DECK_DRAWS,
    )


def _match_game():
    def advance_one(ms, u):
        next_ms, _, _ = match_step(ms, legal_action_at(ms.round, u))
        return next_ms

    def advance(ms, key):
        return jax.vmap(advance_one)(ms, jax.random.uniform(key, ms.round_idx.shape))

    return Game(
        deal=lambda key, batch: jax.vmap(match_reset)(jax.random.split(key, batch)),
        advance=advance,
        live=lambda ms: ~ms.done,
        observe=lambda ms: jax.vmap(match_observation)(ms, ms.to_move),
        batch_axis=0,
        redeal_every=128,
    )


GAMES = {"round": _round_game, "match": _match_game}
# Plies of the shortest game of each kind: a round ends on its last deck draw.
SHORTEST_GAME = {"round": DECK_DRAWS, "match": N_ROUNDS * DECK_DRAWS}


def _redeal_finished(state, spare, live, batch_axis):
    def pick(current, fresh):
        shape = [1] * current.ndim
        shape[batch_axis] = live.shape[0]
        return jnp.where(live.reshape(shape), current, fresh)

    return jax.tree.map(pick, state, spare)


def make_random_play(game: Game, batch: int, steps: int, with_obs: bool = False):
    """A jitted ``run(key) -> (real plies, checksum)`` of random legal play."""

    def ply(carry, key):
        state, spare, plies, checksum = carry
        if with_obs:
            checksum = checksum + jnp.sum(game.observe(state))
        plies = plies + jnp.sum(game.live(state), dtype=jnp.int32)
        state = game.advance(state, key)
        state = _redeal_finished(state, spare, game.live(state), game.batch_axis)
        return (state, spare, plies, checksum), None

    def chunk(length):
        def run_chunk(carry, key):
            state, plies, checksum = carry
            deal_key, ply_key = jax.random.split(key)
            carry = (state, game.deal(deal_key, batch), plies, checksum)
            (state, _, plies, checksum), _ = jax.lax.scan(ply, carry, jax.random.split(ply_key, length))
            return (state, plies, checksum), None

        return run_chunk

    full_chunks, last_chunk = divmod(steps, game.redeal_every)

    @jax.jit
    def run(key):
        deal_key, chunk_key, last_key = jax.random.split(key, 3)
        carry = (game.deal(deal_key, batch), jnp.int32(0), jnp.float32(0))
        carry, _ = jax.lax.scan(chunk(game.redeal_every), carry, jax.random.split(chunk_key, full_chunks))
        if last_chunk:
            carry, _ = chunk(last_chunk)(carry, last_key)
        _, plies, checksum = carry
        return plies, checksum

    return run


def median_rate(run, runs):
    """Compile once, then time ``runs`` calls: (median seconds, median plies per second)."""
    jax.block_until_ready(run(jax.random.PRNGKey(0)))
    seconds, rates = [], []
    for i in range(runs):
        start = time.perf_counter()
        plies, _ = jax.block_until_ready(run(jax.random.PRNGKey(i + 1)))
        elapsed = time.perf_counter() - start
        seconds.append(elapsed)
        rates.append(int(plies) / elapsed)
    return float(np.median(seconds)), float(np.median(rates))


def observation_cost_us(with_obs_rate, without_obs_rate):
    """Microseconds an observation adds to a ply: the difference of the two loops' ply times."""
    return 1e6 / with_obs_rate - 1e6 / without_obs_rate


def train_throughput(overrides=(), repeats=3):
    """Whole PPO updates of the default training config (network=action), via ``measure_throughput``."""
    return measure_throughput(compose(["logger=none", *overrides]), repeats=repeats)
