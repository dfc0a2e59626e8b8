"""The offline study of experiments/search/README.md: how much a (worlds, candidates, gate)
choice gains per decision when candidate values are judged by held-out uniform worlds.

    python experiments/search/offline.py values POSITIONS WORLDS CANDIDATES OUT.npz
    python experiments/search/offline.py analyse OUT.npz

``values`` scores the expert's top CANDIDATES moves by rollouts in WORLDS worlds at
POSITIONS positions of expert-vs-expert matches; ``analyse`` simulates a search that
sees W of the first half of the worlds and judges its choice by the mean over the second
half, for the best gate of a small grid. (This judge shares the search's model of the
hidden cards, and in play the ranking it gives was wrong: see the README.)
"""

import sys

import jax
import numpy as np

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.search import BOT_SCORES, determinize, rollout_values, top_candidates
from lost_cities.search.bench import positions
from lost_cities.search.candidates import legal_mask_of


def values(n_positions, n_worlds, n_candidates, out):
    env = envs.make("match3")
    expert = make("heuristic_expert")
    states = positions(env, n_positions, seed=5, every=5)

    def one(state, key):
        base = expert(state, key)
        actions, valid = top_candidates(
            BOT_SCORES["heuristic_expert"](state), legal_mask_of(state), base, n_candidates
        )
        world_key, rollout_key = jax.random.split(key)
        worlds = jax.vmap(determinize, in_axes=(0, None))(jax.random.split(world_key, n_worlds), state)
        keys = jax.random.split(rollout_key, n_worlds)
        return rollout_values(worlds, actions, expert, keys, None, 0.0, (0.0, 0.0, 0.0)), valid

    score = jax.jit(jax.vmap(one))
    n = jax.tree.leaves(states)[0].shape[0]
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    parts = [
        score(jax.tree.map(lambda x, i=i: x[i : i + 20], states), keys[i : i + 20]) for i in range(0, n, 20)
    ]
    np.savez(out, values=np.concatenate([p[0] for p in parts]), valid=np.concatenate([p[1] for p in parts]))


def _gain(v, valid, truth_gain, worlds, k, gate_points, gate_z, rng, reps=30):
    n, half = v.shape[0], v.shape[1] // 2
    rows = np.arange(n)
    gains = []
    for _ in range(reps):
        pick = np.stack([rng.permutation(half)[:worlds] for _ in range(n)])
        seen = np.take_along_axis(v[:, :half, :k], pick[:, :, None], axis=1)
        paired = seen - seen[:, :, :1]
        mean = np.where(valid[:, :k], paired.mean(1), -np.inf)
        best = mean.argmax(1)
        spread = paired[rows, :, best].std(1, ddof=1)
        clears = (mean[rows, best] > gate_points) & (mean[rows, best] > gate_z * spread / np.sqrt(worlds))
        chosen = np.where(clears, best, 0)
        gains.append(np.where(valid[rows, chosen], truth_gain[rows, chosen], 0.0).mean())
    return float(np.mean(gains))


def analyse(path):
    data = np.load(path)
    v, valid = data["values"], data["valid"]
    half = v.shape[1] // 2
    truth = v[:, half:, :].mean(1)
    truth_gain = np.where(valid, truth - truth[:, :1], -np.inf)
    rng = np.random.default_rng(0)
    ks = [k for k in (2, 3, 4, 6, 8, 12, 16) if k <= v.shape[2]]
    for worlds in (8, 16, 32, 64):
        if worlds > half:
            continue
        cells = []
        for k in ks:
            grid = [(gp, z) for gp in (0, 1, 2, 4) for z in (0, 1, 2)]
            gain, gp, z = max((_gain(v, valid, truth_gain, worlds, k, gp, z, rng), gp, z) for gp, z in grid)
            cells.append(f"K={k}: {gain:.2f} (gate {gp}, z {z})")
        print(f"W={worlds}: " + " | ".join(cells))


if __name__ == "__main__":
    if sys.argv[1] == "values":
        values(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        analyse(sys.argv[2])
