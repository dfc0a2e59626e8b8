"""Where a teacher's rollouts pay: more worlds, fewer candidates, cheaper rollouts, or more
worlds only where the label is undecided. Each setting's labels judged in points a decision
over the net's own move, with its cost in rollouts a label.

    python experiments/self-improvement/teacher_budget.py outputs/runs/positions-d4 --iterations 1 \\
        --stride 4 --champion improve-d4.onnx --positions 3072 \\
        --out experiments/self-improvement/teacher-budget/d4.json

The positions and judges are those of ``teacher_knobs.py`` (its docstring): game states the
loop's generation carried, every candidate judged by the **reference** (its mean over
``--reference-worlds`` fresh uniform worlds, the champion rolling out) and in the **real
deal**. ``--stride`` takes every ``stride``-th chunk's carry, so the positions span all three
rounds of a match.

Each position's top ``--candidates`` candidates are scored once in ``--worlds`` worlds, by
the champion's rollouts and, in the same worlds, by ``heuristic_expert``'s (a third of the
cost). Every setting below is computed exactly from those scores, so all are paired,
position by position (the first ``w`` worlds of a scoring are an independent sample of
``w``):

- **flat** ``w`` worlds x ``k`` candidates: the loop's teacher as it is (16 x 4, prior 2);
- **escalated** (the worlds spent where they decide): every position is labelled from
  ``w1`` worlds x ``k1`` candidates; then, of each ply's ``games`` positions (the loop
  labels them together, so the share is a fixed budget a ply), the ``share`` whose best
  challenger is nearest its gate (the smallest ``|gain - threshold| / standard error``) get
  the rest of the ``--worlds`` worlds, for the base move and that challenger only (sequential
  halving down to two), and their label and target are made again from all the worlds.

A setting costs ``w1 k1 + share (worlds - w1) 2`` rollouts a label. The label (the loop's
gate, :func:`lost_cities.search.agent.select`, prior 2) and the soft target (temperature 2)
are made as the loop makes them. Writes ``--out`` (with the command, commit and date) and
prints the table.
"""

import argparse
import json
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from omegaconf import OmegaConf
from teacher_knobs import labels_of, mean_ci, positions, scored, span, truth

from lost_cities import models
from lost_cities.envs import make as make_env
from lost_cities.evaluation.provenance import provenance
from lost_cities.game.views import round_index
from lost_cities.policies import parse
from lost_cities.search.agent import gate_closeness

PRIOR = 2.0  # the loop's teacher.knobs.prior_points
TEMPERATURE = 2.0  # the loop's teacher.temperature
LOOP = "champion rollouts, 16 worlds x 4"  # the loop's teacher: conf/improve.yaml, search preset fast
ROLLOUTS = {"champion": None, "heuristic_expert": "heuristic_expert"}
FLAT = ((8, 2), (16, 2), (16, 4), (32, 2), (32, 4), (64, 2), (64, 4))
ESCALATED = tuple((w1, k1, share) for w1 in (8, 16) for k1 in (2, 4) for share in (0.125, 0.25, 0.5))


def escalated(values, valid, lead, cfg, w1, k1, share, group):
    """Hard labels and soft targets of the escalation ``(w1, k1, share)`` (module docstring)."""
    n = values.shape[0]
    first = values[:, :w1, :k1]
    closeness = jax.vmap(lambda v, m, b: gate_closeness(v, m, cfg, 1.0, b))
    best, closeness = map(np.asarray, closeness(first, valid[:, :k1], PRIOR * lead[:, :k1]))
    rows = np.arange(n)
    chosen = np.zeros(n, bool)
    per_group = round(share * group)
    for start in range(0, n, group):
        part = closeness[start : start + group]
        chosen[start + np.argsort(part, kind="stable")[:per_group]] = True
    chosen &= np.isfinite(closeness)  # a position with one candidate has nothing to decide
    index, target, _ = labels_of(first, valid[:, :k1], lead[:, :k1], cfg, k1, PRIOR)
    pair = np.stack([np.zeros(n, int), best], axis=1)
    full = np.take_along_axis(values, pair[:, None, :], axis=2)  # [n, worlds, 2]
    pair_lead = np.take_along_axis(lead, pair, 1)
    pair_index, _, _ = labels_of(full, np.ones((n, 2), bool), pair_lead, cfg, 2, PRIOR)
    index = np.where(chosen, np.where(pair_index == 1, best, 0), index)
    gain = (first - first[:, :, :1]).mean(axis=1)  # points over the net's move, candidate by candidate
    gain[rows, best] = np.where(chosen, (full[:, :, 1] - full[:, :, 0]).mean(axis=1), gain[rows, best])
    logits = np.where(valid[:, :k1], (gain + PRIOR * lead[:, :k1]) / TEMPERATURE, -np.inf)
    target = np.asarray(jax.nn.softmax(logits, axis=-1))
    return index, target, float(chosen.mean())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run dir of lost_cities.improve: its chunks' positions")
    parser.add_argument("--iterations", type=span, required=True, help="FIRST-LAST: the chunks' iterations")
    parser.add_argument("--stride", type=int, default=1, help="every STRIDE-th chunk's carry")
    parser.add_argument("--champion", required=True, help="the net the teacher searches on (a model spec)")
    parser.add_argument("--positions", type=int, default=3072)
    parser.add_argument("--worlds", type=int, default=64, help="the most worlds a setting uses")
    parser.add_argument("--candidates", type=int, default=4, help="the most candidates a setting scores")
    parser.add_argument("--reference-worlds", type=int, default=256, help="the reference's worlds")
    parser.add_argument("--batch", type=int, default=32, help="positions per compiled call")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--save", type=Path, help="an .npz of every position's scores and judges")
    args = parser.parse_args()
    env = make_env("match3")
    agent = models.load(parse(args.champion).path, env)
    states = positions(args.run.absolute(), args.iterations, args.positions, env, args.stride)
    games = OmegaConf.load(args.run / "config.yaml").generate.games  # the positions a ply labels together
    fold = jax.vmap(jax.random.fold_in, in_axes=(None, 0))
    keys = fold(jax.random.PRNGKey(args.seed), jnp.arange(args.positions))
    scores, seconds, candidates = {}, {}, None
    for name, rollout in ROLLOUTS.items():
        clock = time.perf_counter()
        (actions, valid, values, lead), cfg = scored(
            agent, env, args.worlds, rollout, None, states, keys, args.batch, args.candidates
        )
        seconds[name] = time.perf_counter() - clock
        print(f"{name} rollouts, {args.worlds} worlds x {args.candidates}: {seconds[name]:.0f} s", flush=True)
        if candidates is not None and not np.array_equal(actions, candidates):
            raise AssertionError(f"{name}: other candidates than the first scoring's")
        candidates = actions
        scores[name] = values
    clock = time.perf_counter()
    real = np.where(valid, truth(agent, env, states, candidates, args.batch), np.nan)
    ref_keys = fold(jax.random.PRNGKey(args.seed + 1), jnp.arange(args.positions))  # other worlds
    out, _ = scored(
        agent, env, args.reference_worlds, None, None, states, ref_keys, args.batch // 4, args.candidates
    )
    if not np.array_equal(out[0], candidates):
        raise AssertionError("the reference scored other candidates")
    seconds["reference"] = time.perf_counter() - clock
    reference = np.where(valid, out[2].mean(axis=1), np.nan)
    print(f"reference, {args.reference_worlds} worlds: {seconds['reference']:.0f} s", flush=True)

    settings = {}
    for name, values in scores.items():
        per_rollout = seconds[name] / (args.positions * args.worlds * args.candidates)
        for w, k in FLAT:
            index, target, _ = labels_of(values[:, :w], valid, lead, cfg, k, PRIOR)
            settings[f"{name} rollouts, {w} worlds x {k}"] = (index, target, w * k, w * k * per_rollout, 1.0)
        for w1, k1, share in ESCALATED:
            index, target, spent = escalated(values, valid, lead, cfg, w1, k1, share, games)
            rollouts = w1 * k1 + spent * (args.worlds - w1) * 2
            key = f"{name} rollouts, {w1} worlds x {k1}, the nearest {share:g} to {args.worlds} x 2"
            settings[key] = (index, target, rollouts, rollouts * per_rollout, spent)
    rows_ = np.arange(args.positions)
    judged = {}
    for key, (index, target, _, _, _) in settings.items():
        mode = target.argmax(axis=1)
        judged[key] = (
            reference[rows_, index] - reference[:, 0],
            reference[rows_, mode] - reference[:, 0],
            real[rows_, index] - real[:, 0],
        )
    rounds = np.asarray(jax.vmap(round_index)(states))
    rows = []
    for key, (index, _, rollouts, cost, spent) in settings.items():
        ref, ref_mode, deal = judged[key]
        rows.append(
            {
                "setting": key,
                "rollouts_per_label": float(rollouts),
                "seconds_per_label": float(cost),
                "escalated": spent,
                "changed": float((index != 0).mean()),
                "reference_gain": mean_ci(ref),
                "reference_gain_minus_loop": mean_ci(ref - judged[LOOP][0]),
                "target_mode_reference_gain": mean_ci(ref_mode),
                "target_mode_reference_gain_minus_loop": mean_ci(ref_mode - judged[LOOP][1]),
                "reference_gain_by_round": [mean_ci(ref[rounds == r]) for r in range(3)],
                "real_deal_gain": mean_ci(deal),
            }
        )
    head = {
        "provenance": provenance(),
        "run": str(args.run),
        "iterations": list(args.iterations),
        "stride": args.stride,
        "champion": args.champion,
        "positions": args.positions,
        "rounds": np.bincount(rounds, minlength=3).tolist(),
        "worlds": args.worlds,
        "candidates": args.candidates,
        "reference_worlds": args.reference_worlds,
        "reference_best_candidate_gain": mean_ci(np.nanmax(reference, axis=1) - reference[:, 0]),
        "seconds": seconds,
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(head, indent=1) + "\n")
    if args.save is not None:  # every position's numbers, for questions the table does not ask
        args.save.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            args.save,
            rounds=rounds,
            valid=valid,
            lead=lead,
            reference=reference,
            real=real,
            **{f"values/{name}": values for name, values in scores.items()},
        )
    fmt = "{:+.3f} [{:+.3f}, {:+.3f}]".format
    print(
        "| setting | rollouts a label | escalated | label changed | reference gain | minus the loop's | "
        "target's mode: reference gain | minus the loop's | real-deal gain |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['setting']} | {r['rollouts_per_label']:.0f} | {r['escalated']:.1%} | {r['changed']:.1%} | "
            f"{fmt(*r['reference_gain'])} | {fmt(*r['reference_gain_minus_loop'])} | "
            f"{fmt(*r['target_mode_reference_gain'])} | {fmt(*r['target_mode_reference_gain_minus_loop'])} | "
            f"{fmt(*r['real_deal_gain'])} |"
        )


if __name__ == "__main__":
    main()
