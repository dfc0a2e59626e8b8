"""Cheap rollouts as a control variate for the champion's: a teacher that rolls the champion out
in a few worlds and ``heuristic_expert`` in many, on the scores ``teacher_budget.py --save`` kept.

    python experiments/self-improvement/teacher_control.py outputs/runs/teacher-budget-e1.npz \\
        --budget experiments/self-improvement/teacher-budget/e1.json \\
        --out experiments/self-improvement/teacher-budget/e1-control.json

In each world a candidate's paired gain over the net's move is measured twice, by the champion's
rollouts ``c`` and by the expert's ``e``, in the same world (the same hidden cards and deck).
Where the two agree world by world (the deck's order decides most of both), the expert's mean
over many worlds corrects the champion's over few: for each candidate,

    gain = mean_n(c) + beta (mean_N(e) - mean_n(e)),   beta = cov(c, e) / var(e)

over the first ``n`` worlds (both) and the first ``N`` (the expert's alone), with ``beta`` one
number fitted over every position and candidate (a per-position fit on ``n`` worlds is noise).
Its standard error ``sqrt(var(c - beta e) / n + beta^2 var(e) / N)`` feeds the loop's gate
(``gate_points``, ``gate_z``: :func:`lost_cities.search.agent.clears_gate`'s rule) and the soft
target is the loop's. Each setting is judged as in ``teacher_budget.py``: its label's and its
target mode's reference gain over the net's move, paired with the loop's teacher; cost in
champion-equivalent rollouts a label (an expert rollout at the measured ``--expert-cost``).
"""

import argparse
import json
from pathlib import Path

import numpy as np

from lost_cities.evaluation.provenance import provenance
from lost_cities.search.config import load_preset

PRIOR, TEMPERATURE, CANDIDATES = 2.0, 2.0, 4
SETTINGS = ((8, 32), (8, 64), (16, 32), (16, 64), (4, 64))  # (n champion worlds, N expert worlds)


def mean_ci(x):
    x = np.asarray(x, np.float64)
    half = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
    return [float(x.mean()), float(x.mean() - half), float(x.mean() + half)]


def labels(gain, error, valid, lead, cfg):
    """The loop's label (gate on the best challenger) and its soft target's mode."""
    bonus = PRIOR * lead
    score = np.where(valid, gain + bonus, -np.inf)
    score[:, 0] = 0.0
    best = score.argmax(axis=1)  # the base move wins ties (index 0 first)
    rows = np.arange(len(best))
    lead_gain = score[rows, best]
    clears = (lead_gain > cfg.gate_points) & (lead_gain > cfg.gate_z * error[rows, best])
    index = np.where(clears & (best > 0), best, 0)
    mode = np.where(valid, (gain + bonus) / TEMPERATURE, -np.inf).argmax(axis=1)
    return index, mode


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scores", type=Path, help="an .npz written by teacher_budget.py --save")
    parser.add_argument("--budget", type=Path, required=True, help="teacher_budget.py's json of the same run")
    parser.add_argument("--expert-cost", type=float, help="an expert rollout in champion rollouts")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    data = np.load(args.scores)
    budget = json.loads(args.budget.read_text())
    cost = args.expert_cost or budget["seconds"]["heuristic_expert"] / budget["seconds"]["champion"]
    cfg = load_preset("fast")
    valid, lead, reference = data["valid"], data["lead"], data["reference"]
    c_all = data["values/champion"] - data["values/champion"][:, :, :1]  # [P, W, K] paired gains
    e_all = data["values/heuristic_expert"] - data["values/heuristic_expert"][:, :, :1]
    rows_ = np.arange(len(valid))
    judged, rows = {}, []

    def judge(name, gain, error, spent):
        index, mode = labels(gain, error, valid, lead, cfg)
        ref = reference[rows_, index] - reference[:, 0]
        ref_mode = reference[rows_, mode] - reference[:, 0]
        judged[name] = (ref, ref_mode)
        rows.append(
            {
                "setting": name,
                "rollouts_per_label": spent,
                "changed": float((index != 0).mean()),
                "reference_gain": mean_ci(ref),
                "target_mode_reference_gain": mean_ci(ref_mode),
            }
        )

    def plain(values, n):
        part = values[:, :n]
        return part.mean(axis=1), part.std(axis=1, ddof=1) / np.sqrt(n)

    judge("champion, 16 worlds (the loop's teacher of runs a-d)", *plain(c_all, 16), 16 * CANDIDATES)
    judge("expert, 64 worlds (the loop's teacher)", *plain(e_all, 64), 64 * CANDIDATES * cost)
    judge("champion, 64 worlds", *plain(c_all, 64), 64 * CANDIDATES)
    both = valid[:, None, 1:].repeat(c_all.shape[1], axis=1)
    c, e = c_all[:, :, 1:][both], e_all[:, :, 1:][both]
    beta = float(np.cov(c, e)[0, 1] / e.var(ddof=1))
    correlation = float(np.corrcoef(c, e)[0, 1])
    for n, big in SETTINGS:
        c_n, e_n, e_big = c_all[:, :n], e_all[:, :n], e_all[:, :big]
        gain = c_n.mean(axis=1) + beta * (e_big.mean(axis=1) - e_n.mean(axis=1))
        residual = (c_n - beta * e_n).var(axis=1, ddof=1) / n
        error = np.sqrt(residual + beta**2 * e_big.var(axis=1, ddof=1) / big)
        judge(f"champion {n} worlds, expert {big} as control", gain, error, CANDIDATES * (n + big * cost))
    base = judged["champion, 16 worlds (the loop's teacher of runs a-d)"]
    for row in rows:
        ref, ref_mode = judged[row["setting"]]
        row["reference_gain_minus_old_loop"] = mean_ci(ref - base[0])
        row["target_mode_reference_gain_minus_old_loop"] = mean_ci(ref_mode - base[1])
    head = {
        "provenance": provenance(),
        "scores": str(args.scores),
        "expert_cost": cost,
        "beta": beta,
        "world_correlation": correlation,
        "positions": len(valid),
        "rows": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(head, indent=1) + "\n")
    fmt = "{:+.3f} [{:+.3f}, {:+.3f}]".format
    print(f"beta {beta:.3f}, world-by-world correlation of the two rollouts' gains {correlation:.3f}")
    print("| setting | rollouts a label | changed | reference gain | minus the old loop's | mode | minus |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(
            f"| {r['setting']} | {r['rollouts_per_label']:.0f} | {r['changed']:.1%} | "
            f"{fmt(*r['reference_gain'])} | "
            f"{fmt(*r['reference_gain_minus_old_loop'])} | {fmt(*r['target_mode_reference_gain'])} | "
            f"{fmt(*r['target_mode_reference_gain_minus_old_loop'])} |"
        )


if __name__ == "__main__":
    main()
