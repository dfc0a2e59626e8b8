"""A leaf value learned for the base net's own play, and the search with it.

    python experiments/search-vs-net/value_leaf.py train OUT.msgpack POSITIONS STEPS [base=SPEC]
    python experiments/search-vs-net/value_leaf.py use SCRIPT.py ARGS ... depth=N leaf=VALUE.msgpack

``train`` fits an MLP (512, 512) from the privileged observation of a seat (the
observation v2 plus the opponent's whole hand and the deck's composition, not its order)
to that seat's match points still to come in the round, carry and board, under the
base net's greedy self-play: POSITIONS positions of that play (every 3rd ply), each played
on to the round's end on its true deck (realized.py's ``rest_of_round``), from both seats'
views. It prints the held-out mean squared error against the targets' variance.

``use`` runs ``experiments/search-vs-net/SCRIPT.py ARGS`` (realized.py or run.py) with the search's
``leaf`` knob reading such a file: the points the seat has now plus the learned rest of the
round.

Why it exists: 98% of the variance of a search's paired gain over one world is
the deck's order (noise.py), so a leaf value that averages the order out of a rollout's
tail would let fewer worlds judge as well as more. Measured, it does not (see
experiments/search-vs-net/README.md); the package's leaf remains a checkpoint's critic.
"""

import sys
import time
from pathlib import Path

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import serialization
from oracle import run_script
from realized import rest_of_round

import lost_cities.policies
from lost_cities import envs
from lost_cities.evaluation.positions import positions as self_play_positions
from lost_cities.policies import network
from lost_cities.search.config import knob_overrides
from lost_cities.search.rollout import match_points

PAGE_NET = "web/public/bc-ppo-xi6-bal2700.onnx"
HIDDEN = (512, 512)
BATCH = 1024
CHUNK = 4096


class Value(nn.Module):
    hidden: tuple = HIDDEN

    @nn.compact
    def __call__(self, x):
        for width in self.hidden:
            x = nn.relu(nn.Dense(width)(x))
        return nn.Dense(1)(x)[..., 0]


def dataset(env, policy, count, seed):
    """``(privileged observations, points still to come)`` of ``count`` positions, both seats."""
    states = self_play_positions(env, count, seed=seed, every=3, policy=policy)
    n = jax.tree.leaves(states)[0].shape[0]
    keys = jax.random.split(jax.random.key(seed), n)
    play = jax.jit(lambda s, k: rest_of_round(policy, policy, s, k))
    final = []
    for i in range(0, n, CHUNK):
        points, done = play(jax.tree.map(lambda x, i=i: x[i : i + CHUNK], states), keys[i : i + CHUNK])
        if not np.asarray(done).all():
            raise RuntimeError("a round did not end")
        final.append(np.asarray(points))
    view = jax.jit(jax.vmap(lambda s, p: (env.privileged(s, p), match_points(s, s.round, p, 0.0))))
    mover = states.round.to_move
    (x_mover, now), (x_other, _) = view(states, mover), view(states, 1 - mover)
    rest = np.concatenate(final) - np.asarray(now)
    x = np.concatenate([np.asarray(x_mover), np.asarray(x_other)])
    return x, np.concatenate([rest, -rest]).astype(np.float32)  # the margin is zero-sum


def train(out, positions, steps, base):
    env = envs.make("match3")
    policy = network(base, env, "base").policy
    start = time.perf_counter()
    x, y = dataset(env, policy, positions, 100)
    x_test, y_test = dataset(env, policy, 20_000, 900)
    print(f"{len(y)} rows, {len(y_test)} held out, {time.perf_counter() - start:.0f} s")
    net = Value()
    params = net.init(jax.random.key(0), x[:1])
    optimiser = optax.adam(optax.cosine_decay_schedule(1e-3, steps, 0.05))
    opt_state = optimiser.init(params)

    @jax.jit
    def update(params, opt_state, bx, by):
        loss, grads = jax.value_and_grad(lambda p: jnp.mean((net.apply(p, bx) - by) ** 2))(params)
        updates, opt_state = optimiser.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state, loss

    held_out = jax.jit(lambda p: jnp.mean((net.apply(p, x_test) - y_test) ** 2))
    rng = np.random.default_rng(0)
    for i in range(steps):
        rows = rng.integers(0, len(y), BATCH)
        params, opt_state, loss = update(params, opt_state, x[rows], y[rows])
        if i % 2000 == 0 or i == steps - 1:
            test = float(held_out(params))
            print(f"step {i}: train {float(loss):.1f}, held-out {test:.1f} (variance {y_test.var():.1f})")
    Path(out).write_bytes(serialization.msgpack_serialize(jax.tree.map(np.asarray, params)))


def value_leaf(path, env):
    """``leaf(env_state, player) -> points``: the seat's match points now plus the learned rest."""
    params = serialization.msgpack_restore(Path(path).read_bytes())

    def leaf(env_state, player):
        now = match_points(env_state, env_state.round, player, 0.0)
        return now + Value().apply(params, env.privileged(env_state, player))

    return leaf


def main():
    command, *args = sys.argv[1:]
    if command == "train":
        out, positions, steps, *knobs = args
        base = str(knob_overrides(knobs).get("base", PAGE_NET))
        train(out, int(positions), int(steps), base)
    elif command == "use":
        script, *rest = args
        lost_cities.policies._leaf = value_leaf  # make_policy looks it up when it builds the search
        run_script(script, rest)
    else:
        raise SystemExit(
            "usage: value_leaf.py train OUT POSITIONS STEPS [base=SPEC] | "
            "use SCRIPT.py ARGS depth=N leaf=VALUE"
        )


if __name__ == "__main__":
    main()
