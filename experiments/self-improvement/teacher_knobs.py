"""Which teacher makes the best labels: each knob's true gain over the net, on the loop's own positions.

    python experiments/self-improvement/teacher_knobs.py outputs/runs/improve-d --iterations 1-6 \\
        --champion improve-d4.onnx --positions 3072 --out teacher-knobs/d4.json

The positions are the self-play games a loop run labelled: the games' states saved with each
of its chunk files (the carry a chunk hands on), so they come from the loop's own distribution,
with the opponent's hand and the deck as they really were. For each teacher setting (worlds,
the rollout policy, the belief; with 8 candidates, from which the settings of fewer candidates
and every prior weight follow exactly: a setting of ``k`` candidates scores the net's top ``k``,
the first ``k`` of the 8, in the same worlds) the search on ``--champion`` scores the
candidates as the loop's teacher does, and each setting's label is chosen as the loop chooses
it (:func:`lost_cities.search.agent.select`; the soft target ``softmax((gain + prior) / T)``,
whose mode is what a student fitted to it plays).

Each label is judged two ways, in points over the net's own move, averaged over positions:

- **real deal**: every candidate played in the real position, then the champion on both seats
  to the round's end with the real deck (its play is greedy, so one rollout is the outcome).
  The real hidden cards are a draw from the positions' own posterior, so the mean is unbiased
  for every setting (the belief's too), but one deal a position makes it noisy;
- **reference**: the candidates' mean over ``--reference-worlds`` fresh uniform worlds (other
  keys than any setting's), the champion rolling out: far less noisy, but it judges in the
  uniform worlds' model (a belief's better worlds cannot show there).

Either is free of the selection bias of the search's own estimate (the best of its
candidates' sample means, biased upward). The loop stalls when its teacher's gain is 0; a
noisy teacher's is below 0. The same positions and keys serve every setting, so settings are
compared paired, position by position. Writes ``--out`` (with the command, commit and date)
and prints the table.
"""

import argparse
import json
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from omegaconf import OmegaConf

from lost_cities import models
from lost_cities.envs import make as make_env
from lost_cities.evaluation.provenance import provenance
from lost_cities.improvement import dataset
from lost_cities.improvement.labels import Games
from lost_cities.policies import make_policy, parse
from lost_cities.search import search_decision
from lost_cities.search.agent import select
from lost_cities.search.belief import load as load_belief
from lost_cities.search.belief import world_sampler
from lost_cities.search.candidates import logit_scores
from lost_cities.search.config import load_preset
from lost_cities.search.rollout import rollout_values

MAX_CANDIDATES = 8
CANDIDATES = (2, 4, 6, 8)
PRIORS = (0.0, 1.0, 2.0, 4.0)
TEMPERATURE = 2.0  # the loop's teacher.temperature
# (name, worlds, rollout policy, belief): each scored once with MAX_CANDIDATES candidates
SETTINGS = (
    ("worlds 8", 8, None, None),
    ("worlds 16", 16, None, None),
    ("worlds 32", 32, None, None),
    ("worlds 64", 64, None, None),
    ("worlds 16, belief", 16, None, "bc-ppo-xi6-bal2700"),
    ("worlds 16, heuristic_expert rollouts", 16, "heuristic_expert", None),
)
DEFAULT = ("worlds 16", 4, 2.0)  # the loop's teacher: conf/improve.yaml


def span(text):
    first, _, last = text.partition("-")
    return int(first), int(last or first)


def positions(run_dir, iterations, count, env, stride=1):
    """``count`` game states from the chunk carries of ``run_dir``'s ``iterations`` (every
    ``stride``-th chunk's)."""
    saved = OmegaConf.load(run_dir / "config.yaml").generate
    games = saved.games
    key = jax.random.PRNGKey(0)
    template = Games(jax.vmap(env.init)(jax.random.split(key, games)), key)
    states = []
    for path in list(dataset.span_paths(run_dir, *iterations, saved.chunks))[::stride]:
        states.append(dataset.read_carry(path, template).states)
        if len(states) * games >= count:
            break
    if len(states) * games < count:
        raise ValueError(f"{run_dir} iterations {iterations}: {len(states) * games} positions, not {count}")
    stacked = jax.tree.map(lambda *x: jnp.concatenate(x), *states)
    return jax.tree.map(lambda x: x[:count], stacked)


def batches(tree, size, batch):
    """``tree`` cut along its leading axis into parts of ``batch``."""
    for first in range(0, size, batch):
        yield jax.tree.map(lambda x, first=first: x[first : first + batch], tree)


def scored(agent, env, worlds, rollout, belief, states, keys, batch, candidates=MAX_CANDIDATES):
    """Per position: the top ``candidates``, their validity, the search's values [W,
    candidates] and the net's preference of each over its own move (nats)."""
    cfg = load_preset("fast", worlds=worlds, candidates=candidates, prior_points=1.0)
    rollout_policy = None if rollout is None else make_policy(rollout, env)
    deal = None if belief is None else world_sampler(load_belief(belief, env.name))
    scores = logit_scores(agent)

    @jax.jit
    def run(states, keys):
        def one(state, key):
            _, info = search_decision(
                cfg, agent.policy, scores, state, key, rollout_policy=rollout_policy, deal=deal
            )
            return info["actions"], info["valid"], info["values"], info["bonus"]

        return jax.vmap(one)(states, keys)

    parts = [jax.device_get(run(*part)) for part in batches((states, keys), len(keys), batch)]
    return [np.concatenate(p) for p in zip(*parts, strict=True)], cfg


def truth(agent, env, states, actions, batch):
    """float32[N, 8]: each candidate's points in the real position, the champion playing on."""

    @jax.jit
    def run(states, actions):
        def one(state, candidates):
            world = jax.tree.map(lambda x: x[None], state)
            key = jax.random.PRNGKey(0)[None]  # the champion is greedy: one rollout is the outcome
            values = rollout_values(world, candidates, agent.policy, key, None, 0.0, (0.0,) * 3)
            return values[0]

        return jax.vmap(one)(states, actions)

    parts = [np.asarray(run(*part)) for part in batches((states, jnp.asarray(actions)), len(actions), batch)]
    return np.concatenate(parts)


def labels_of(values, valid, lead, cfg, k, prior):
    """The loop's hard label (candidate index) and soft target over the first ``k`` candidates."""
    values, valid, lead = values[:, :, :k], valid[:, :k], lead[:, :k]
    index = jax.vmap(lambda v, m, b: select(v, m, cfg, 1.0, b)[0])(values, valid, prior * lead)
    gain = (values - values[:, :, :1]).mean(axis=1)
    logits = np.where(valid, (gain + prior * lead) / TEMPERATURE, -np.inf)
    target = np.asarray(jax.nn.softmax(logits, axis=-1))
    estimate = np.take_along_axis(gain, np.asarray(index)[:, None], axis=1)[:, 0]
    return np.asarray(index), target, estimate


def mean_ci(x):
    x = np.asarray(x, np.float64)
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    return [float(x.mean()), float(x.mean() - half), float(x.mean() + half)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run dir of lost_cities.improve: its chunks' positions")
    parser.add_argument("--iterations", type=span, required=True, help="FIRST-LAST: the chunks' iterations")
    parser.add_argument("--champion", required=True, help="the net the teacher searches on (a model spec)")
    parser.add_argument("--positions", type=int, default=3072)
    parser.add_argument("--reference-worlds", type=int, default=256, help="the reference's worlds")
    parser.add_argument("--batch", type=int, default=64, help="positions per compiled call")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    env = make_env("match3")
    agent = models.load(parse(args.champion).path, env)
    states = positions(args.run.absolute(), args.iterations, args.positions, env)
    fold = jax.vmap(jax.random.fold_in, in_axes=(None, 0))
    keys = fold(jax.random.PRNGKey(args.seed), jnp.arange(args.positions))
    results, candidates, seconds = {}, None, {}
    for name, worlds, rollout, belief in SETTINGS:
        clock = time.perf_counter()
        out, cfg = scored(agent, env, worlds, rollout, belief, states, keys, args.batch)
        actions, valid, values, lead = out
        seconds[name] = time.perf_counter() - clock
        if candidates is None:
            candidates = actions
        if not np.array_equal(actions, candidates):
            raise AssertionError(f"{name}: other candidates than the first setting's (the net ranks them)")
        results[name] = (values, valid, lead, cfg)
        print(f"{name}: {seconds[name]:.0f} s", flush=True)
    clock = time.perf_counter()
    true = truth(agent, env, states, candidates, args.batch)
    seconds["truth"] = time.perf_counter() - clock
    clock = time.perf_counter()
    ref_keys = fold(jax.random.PRNGKey(args.seed + 1), jnp.arange(args.positions))  # other worlds
    out, _ = scored(agent, env, args.reference_worlds, None, None, states, ref_keys, args.batch // 4)
    if not np.array_equal(out[0], candidates):
        raise AssertionError("the reference scored other candidates")
    seconds["reference"] = time.perf_counter() - clock
    valid = results[DEFAULT[0]][1]
    true = np.where(valid, true, np.nan)
    reference = np.where(valid, out[2].mean(axis=1), np.nan)
    rows, gains = [], {}
    for name, (values, valid_, lead, cfg) in results.items():
        for k in CANDIDATES:
            for prior in PRIORS:
                if (name != DEFAULT[0]) and (k, prior) != DEFAULT[1:]:
                    continue  # other settings at the loop's candidates and prior only
                index, target, estimate = labels_of(values, valid_, lead, cfg, k, prior)
                rows_ = np.arange(len(index))
                mode = target.argmax(axis=1)  # what a student fitted to the target plays, greedy
                hard, soft = true[rows_, index] - true[:, 0], true[rows_, mode] - true[:, 0]
                ref, ref_soft = (
                    reference[rows_, index] - reference[:, 0],
                    reference[rows_, mode] - reference[:, 0],
                )
                key = f"{name}, {k} candidates, prior {prior:g}"
                gains[key] = (hard, soft, ref, ref_soft)
                rows.append(
                    {
                        "setting": key,
                        "worlds": int(values.shape[1]),
                        "candidates": k,
                        "prior_points": prior,
                        "rollout": dict((s[0], s[2]) for s in SETTINGS)[name],
                        "belief": dict((s[0], s[3]) for s in SETTINGS)[name],
                        "changed": float((index != 0).mean()),
                        "estimated_gain": float(estimate.mean()),
                        "true_gain": mean_ci(hard),
                        "target_mode_true_gain": mean_ci(soft),
                        "reference_gain": mean_ci(ref),
                        "target_mode_reference_gain": mean_ci(ref_soft),
                        "seconds": seconds[name],
                    }
                )
    base = gains[f"{DEFAULT[0]}, {DEFAULT[1]} candidates, prior {DEFAULT[2]:g}"]
    for row in rows:
        names = ("true_gain", "target_mode_true_gain", "reference_gain", "target_mode_reference_gain")
        for name, mine, theirs in zip(names, gains[row["setting"]], base, strict=True):
            row[f"{name}_minus_default"] = mean_ci(mine - theirs)
    head = {
        "provenance": provenance(),
        "run": str(args.run),
        "iterations": list(args.iterations),
        "champion": args.champion,
        "positions": args.positions,
        "net_best_share": float((np.nanargmax(true, axis=1) == 0).mean()),
        "best_candidate_gain": mean_ci(np.nanmax(true, axis=1) - true[:, 0]),
        "reference_worlds": args.reference_worlds,
        "reference_best_candidate_gain": mean_ci(np.nanmax(reference, axis=1) - reference[:, 0]),
        "seconds_truth": seconds["truth"],
        "seconds_reference": seconds["reference"],
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(head, indent=1) + "\n")
    fmt = "{:+.3f} [{:+.3f}, {:+.3f}]".format
    print(
        "| setting | label changed | estimated gain | reference gain | minus the loop's | target's mode: "
        "reference gain | real-deal gain | minus the loop's | seconds |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['setting']} | {r['changed']:.1%} | {r['estimated_gain']:+.2f} | "
            f"{fmt(*r['reference_gain'])} | "
            f"{fmt(*r['reference_gain_minus_default'])} | {fmt(*r['target_mode_reference_gain'])} | "
            f"{fmt(*r['true_gain'])} | {fmt(*r['true_gain_minus_default'])} | {r['seconds']:.0f} |"
        )


if __name__ == "__main__":
    main()
