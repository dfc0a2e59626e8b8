"""Engine throughput: ``python -m lost_cities.bench [--batch 8192] [--steps 256] [--runs 5]``.

Random legal play inside one jitted ``lax.scan``: every ply each of ``batch`` games
takes a uniformly random legal action; finished games are re-dealt inside the scan
from a fresh uniform shuffle. Only real plies (taken in a live game) are counted.
Prints ``key=value`` lines; rates are the median of ``runs`` timed runs after compile.

The batch axis is kept last (the engine accepts trailing batch axes) so that every
update is an element-wise loop over contiguous rows. Fresh decks are shuffled once per
``RESHUFFLE_EVERY`` plies for every game and kept as a spare deal: a round lasts at
least 44 plies, so no game can finish twice between two refills.
"""

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.cards import DECK_DRAWS
from lost_cities.engine import reset_from_positions, shuffled_positions, step
from lost_cities.observation import observation
from lost_cities.sampling import random_legal_action

RESHUFFLE_EVERY = 32
assert RESHUFFLE_EVERY <= DECK_DRAWS


def _replace_done(state, spare):
    return jax.tree.map(lambda live, fresh: jnp.where(state.done, fresh, live), state, spare)


def make_random_play(batch, steps, with_obs=False):
    """A jitted ``run(key) -> (real plies, checksum)`` of random legal play."""
    chunks = max(steps // RESHUFFLE_EVERY, 1)

    def ply(carry, key):
        state, spare, plies, checksum = carry
        if with_obs:
            checksum = checksum + jnp.sum(observation(state, state.to_move))
        action = random_legal_action(key, state)
        plies = plies + jnp.sum(~state.done, dtype=jnp.int32)
        state, _, _ = step(state, action)
        return (_replace_done(state, spare), spare, plies, checksum), None

    def chunk(carry, key):
        state, plies, checksum = carry
        deal_key, ply_key = jax.random.split(key)
        spare = reset_from_positions(shuffled_positions(deal_key, (batch,)))
        ply_keys = jax.random.split(ply_key, RESHUFFLE_EVERY)
        (state, _, plies, checksum), _ = jax.lax.scan(ply, (state, spare, plies, checksum), ply_keys)
        return (state, plies, checksum), None

    @jax.jit
    def run(key):
        deal_key, chunk_key = jax.random.split(key)
        state = reset_from_positions(shuffled_positions(deal_key, (batch,)))
        carry = (state, jnp.int32(0), jnp.float32(0))
        (_, plies, checksum), _ = jax.lax.scan(chunk, carry, jax.random.split(chunk_key, chunks))
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=8192)
    parser.add_argument("--steps", type=int, default=256)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    print(f"backend={jax.default_backend()}")
    print(f"batch_size={args.batch}")
    print(f"steps={args.steps}")
    print(f"runs={args.runs}")
    elapsed, rate = median_rate(make_random_play(args.batch, args.steps), args.runs)
    print(f"elapsed_sec={elapsed:.4f}")
    print(f"steps_per_sec={rate:.0f}")
    _, obs_rate = median_rate(make_random_play(args.batch, args.steps, with_obs=True), args.runs)
    print(f"obs_steps_per_sec={obs_rate:.0f}")


if __name__ == "__main__":
    main()
