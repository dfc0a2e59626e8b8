"""How many rollout plies a batched search computes for lanes that have already ended.

    python experiments/throughput/lane_waste.py [POSITIONS]

The search's rollouts run under ``vmap`` in a ``while_loop`` until the last lane of the batch
ends, and every lane pays every iteration. This replays the batched search's geometry (the
duplicate evaluation's progress passes: positions sorted by the deck pointer, 8 passes;
32 uniform worlds x the net's 4 best moves per position, the shipped net playing both seats to
the round's end) and records when each lane's round ends. It prints, per pass and in all,
the plies computed (iterations x lanes) against the plies the lanes needed; their ratio bounds
what compacting finished lanes could save.
"""

import sys

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities import envs
from lost_cities.evaluation.duplicate import PROGRESS_PASSES
from lost_cities.evaluation.positions import positions
from lost_cities.game.engine import step
from lost_cities.game.views import current_round, with_round
from lost_cities.policies import make_policy
from lost_cities.search.determinize import determinize

WORLDS, CANDIDATES = 32, 4


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 128
    env = envs.make("match3")
    policy = make_policy("bc-ppo-xi6-bal2700.onnx", env)
    states = positions(env, count)
    order = np.argsort(np.asarray(current_round(states).deck_ptr), kind="stable")
    per_pass = -(-count // PROGRESS_PASSES)

    @jax.jit
    def end_times(states, key):
        n = jax.tree.leaves(states)[0].shape[0]
        worlds = jax.vmap(
            lambda k, s: jax.vmap(determinize, in_axes=(0, None))(jax.random.split(k, WORLDS), s)
        )(jax.random.split(key, n), states)  # [n, W]
        lanes = jax.tree.map(
            lambda x: jnp.repeat(x.reshape((n * WORLDS,) + x.shape[2:]), CANDIDATES, 0), worlds
        )
        first = jnp.tile(jnp.arange(CANDIDATES), n * WORLDS)  # any legal-or-not first move: its own lane
        mask = jax.vmap(env.legal_mask)(lanes)
        first = jnp.argsort(~mask, axis=1, stable=True)[
            jnp.arange(first.shape[0]), first
        ]  # the k-th legal action
        rounds = jax.vmap(step)(current_round(lanes), first.astype(jnp.int32))[0]

        def body(carry):
            t, rounds, ended = carry
            moves = jax.vmap(policy)(
                jax.vmap(with_round)(lanes, rounds), jnp.zeros((rounds.done.shape[0], 2), jnp.uint32)
            )
            played = jax.vmap(step)(rounds, moves)[0]
            ended = jnp.where(rounds.done, ended, t + 1)
            return t + 1, played, ended

        _, _, ended = jax.lax.while_loop(
            lambda c: jnp.any(~c[1].done),
            body,
            (jnp.int32(0), rounds, jnp.zeros(rounds.done.shape, jnp.int32)),
        )
        return ended

    computed = needed = 0
    for p in range(PROGRESS_PASSES):
        index = order[p * per_pass : (p + 1) * per_pass]
        if len(index) == 0:
            continue
        batch = jax.tree.map(lambda x, index=index: x[index], states)
        ended = np.asarray(end_times(batch, jax.random.PRNGKey(p)))
        pass_computed, pass_needed = ended.max() * ended.size, ended.sum()
        computed, needed = computed + pass_computed, needed + pass_needed
        print(
            f"pass {p}: {len(index)} positions, {ended.size} lanes, {ended.max()} iterations, "
            f"lane plies needed {ended.mean():.1f} (min {ended.min()}), "
            f"computed/needed {pass_computed / pass_needed:.2f}"
        )
    print(f"all: computed {computed:,} lane plies, needed {needed:,}: {computed / needed:.2f}x")


if __name__ == "__main__":
    main()
