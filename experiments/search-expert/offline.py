"""The offline study of experiments/search-expert/README.md: how much a (worlds, candidates, gate,
inference) choice gains per decision, judged with the opponent's true hand.

    python experiments/search-expert/offline.py values POSITIONS WORLDS CANDIDATES OUT.npz [JUDGE]
    python experiments/search-expert/offline.py analyse OUT.npz
    python experiments/search-expert/offline.py check POSITIONS

``values`` scores the expert's top CANDIDATES moves by expert rollouts at POSITIONS
positions of expert-vs-expert matches, in three sets of worlds per position:

- ``uniform``: WORLDS worlds as the search samples them (the hidden cards dealt uniformly);
- ``inferred``: WORLDS worlds as ``inference_pool=4`` keeps them (those that explain the
  opponent's last move first, the expert as its model);
- ``judge``: JUDGE (default 64) worlds that keep the opponent's *true* hand and reshuffle
  only the deck. The positions come from real play, so the true hand is a draw from the
  true posterior given what the mover has seen, and the deck is uniform given the hand:
  averaged over positions, the judge's value of a choice is an unbiased estimate of its
  real expected value. (The judge cheats; it only grades, it never chooses.)

``analyse`` simulates searches that see W of the uniform (or inferred) worlds, choose by
the gate, and are graded by the judge, for a grid of W, K and gates; and the judge's own
best candidate (what knowing the opponent's hand would be worth). ``check`` grades the
real search (the default preset on the expert) the same way, and by the true deck alone. Before the
judge, the grade was the mean over held-out uniform worlds, which share the search's model of the
hidden cards, and in play the ranking it gave was wrong (see the README).
"""

import sys

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.evaluation.positions import positions
from lost_cities.game.cards import N_CARDS
from lost_cities.game.engine import LOC_HAND
from lost_cities.search import BOT_SCORES, load_preset, rollout_values, search_decision, top_candidates
from lost_cities.search.candidates import legal_mask_of
from lost_cities.search.determinize import rank_within
from lost_cities.search.inference import sample_worlds

INFERENCE_POOL = 4
CHUNK = 20  # positions per compiled batch


def reshuffled_deck(rng, ms):
    """The match state with only its undrawn deck dealt afresh: the opponent's true hand
    stays. (The later rounds' deals stay too: rollouts end with the round and never read them.)"""
    rs = ms.round
    in_deck = rs.loc < LOC_HAND
    rank = rank_within(jax.random.bits(rng, (N_CARDS,), jnp.uint32), in_deck)
    loc = jnp.where(in_deck, rs.deck_ptr.astype(jnp.int32) + rank, rs.loc.astype(jnp.int32))
    return ms.replace(round=rs.replace(loc=loc.astype(jnp.int8)))


def per_position(one, states, seed):
    """``one(state, key)``'s outputs at every position, ``CHUNK`` positions per compiled
    batch, each output concatenated over the positions (numpy)."""
    score = jax.jit(jax.vmap(one))
    n = jax.tree.leaves(states)[0].shape[0]
    keys = jax.random.split(jax.random.PRNGKey(seed), n)
    parts = [
        score(jax.tree.map(lambda x, i=i: x[i : i + CHUNK], states), keys[i : i + CHUNK])
        for i in range(0, n, CHUNK)
    ]
    return [np.concatenate([np.asarray(p[j]) for p in parts]) for j in range(len(parts[0]))]


def values(n_positions, n_worlds, n_candidates, out, n_judge=64):
    env = envs.make("match3")
    expert = make("heuristic_expert")
    states = positions(env, n_positions, seed=5, every=5)

    def one(state, key):
        base = expert(state, key)
        actions, valid = top_candidates(
            BOT_SCORES["heuristic_expert"](state), legal_mask_of(state), base, n_candidates
        )
        uniform_key, inferred_key, judge_key, rollout_key = jax.random.split(key, 4)
        keys = jax.random.split(rollout_key, max(n_worlds, n_judge))

        def score(worlds, count):
            return rollout_values(worlds, actions, expert, keys[:count], None, 0.0, (0.0, 0.0, 0.0))

        uniform = sample_worlds(uniform_key, state, n_worlds, 1, expert)
        inferred = sample_worlds(inferred_key, state, n_worlds, INFERENCE_POOL, expert)
        judge = jax.vmap(reshuffled_deck, in_axes=(0, None))(jax.random.split(judge_key, n_judge), state)
        return score(uniform, n_worlds), score(inferred, n_worlds), score(judge, n_judge), valid

    names = ("uniform", "inferred", "judge", "valid")
    np.savez(out, **dict(zip(names, per_position(one, states, seed=0), strict=True)))


def _chosen(v, valid, worlds, k, gate_points, gate_z, rng):
    """Per position, the candidate a search on ``worlds`` of the worlds in ``v`` chooses."""
    n = v.shape[0]
    rows = np.arange(n)
    pick = np.stack([rng.permutation(v.shape[1])[:worlds] for _ in range(n)])
    seen = np.take_along_axis(v[:, :, :k], pick[:, :, None], axis=1)
    paired = seen - seen[:, :, :1]
    mean = np.where(valid[:, :k], paired.mean(1), -np.inf)
    best = mean.argmax(1)
    spread = paired[rows, :, best].std(1, ddof=1)
    clears = (mean[rows, best] > gate_points) & (mean[rows, best] > gate_z * spread / np.sqrt(worlds))
    return np.where(clears, best, 0)


def _gain(v, valid, judge_gain, worlds, k, gate_points, gate_z, rng, reps=20):
    """Mean judged gain over the base move per decision, and the share of decisions changed."""
    rows = np.arange(v.shape[0])
    gains, moved = [], []
    for _ in range(reps):
        chosen = _chosen(v, valid, worlds, k, gate_points, gate_z, rng)
        gains.append(judge_gain[rows, chosen].mean())
        moved.append((chosen > 0).mean())
    return float(np.mean(gains)), float(np.mean(moved))


def analyse(path):
    data = np.load(path)
    valid = data["valid"]
    judge = data["judge"].mean(1)
    judge_gain = np.where(valid, judge - judge[:, :1], 0.0)
    n, n_worlds, n_cands = data["uniform"].shape
    rng = np.random.default_rng(0)
    print(
        f"{n} positions, {n_worlds} search worlds, {n_cands} candidates, "
        f"{data['judge'].shape[1]} judge worlds"
    )
    for k in (2, 3, 4, 6, 8):
        if k <= n_cands:
            best = np.where(valid[:, :k], judge_gain[:, :k], -np.inf).max(1)
            print(f"knowing the opponent's hand, best of K={k}: {best.mean():.3f} points per decision")
    ks = [k for k in (2, 3, 4, 6, 8) if k <= n_cands]
    grid = [(gp, z) for gp in (0, 1, 2) for z in (0, 0.5, 1, 2)]
    for source in ("uniform", "inferred"):
        v = data[source]
        for worlds in (16, 24, 32, 48, 64):
            if worlds > n_worlds:
                continue
            cells = []
            for k in ks:
                (gain, moved), gp, z = max(
                    (_gain(v, valid, judge_gain, worlds, k, gp, z, rng), gp, z) for gp, z in grid
                )
                at_default = _gain(v, valid, judge_gain, worlds, k, 1.0, 1.0, rng)[0]
                cells.append(f"K={k}: {gain:.3f} (gate {gp}/{z}, moves {moved:.2f}; at 1/1 {at_default:.3f})")
            print(f"{source} W={worlds}: " + " | ".join(cells))


def check(n_positions, n_judge=64):
    """The default search's own choices at other positions: how often it leaves the expert's
    move, and its gain by its own estimate, by the judge, and by the true deck alone."""
    env = envs.make("match3")
    expert = make("heuristic_expert")
    cfg = load_preset("default")
    states = positions(env, n_positions, seed=11, every=5)

    def one(state, key):
        _, info = search_decision(cfg, expert, BOT_SCORES["heuristic_expert"], state, key)
        judge_key = jax.random.fold_in(key, 1)
        keys = jax.random.split(judge_key, n_judge)
        judge = jax.vmap(reshuffled_deck, in_axes=(0, None))(keys, state)
        judged = rollout_values(judge, info["actions"], expert, keys, None, 0.0, (0.0, 0.0, 0.0))
        true = jax.tree.map(lambda x: x[None], state)
        dealt = rollout_values(true, info["actions"], expert, keys[:1], None, 0.0, (0.0, 0.0, 0.0))
        return info["index"], info["values"].mean(0), judged.mean(0), dealt[0]

    index, own, judged, dealt = per_position(one, states, seed=3)
    n = index.shape[0]
    rows = np.arange(n)
    print(f"{n} positions; the search leaves the expert's move at {(index > 0).mean():.3f}")
    for name, v in (("its own estimate", own), ("the judge", judged), ("the true deck", dealt)):
        gain = v[rows, index] - v[:, 0]
        print(f"gain per decision by {name}: {gain.mean():.3f} (s.e. {gain.std(ddof=1) / np.sqrt(n):.3f})")


if __name__ == "__main__":
    if sys.argv[1] == "values":
        values(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], *map(int, sys.argv[6:7]))
    elif sys.argv[1] == "check":
        check(int(sys.argv[2]))
    else:
        analyse(sys.argv[2])
