"""Teachers judged by what their labels gain in the real game: the loop's judge
(lost_cities/improvement/judge.py) with the opponent's **real hand** (only the deck's order
dealt afresh: unbiased for the real gain) beside the **uniform** reference (the search's own
model), on the same positions, each setting's labels made as the loop makes them.

    python experiments/self-improvement/teacher_judge.py outputs/runs/improve-f --iteration 1 \\
        --champion improve-d4.onnx --out experiments/self-improvement/teacher-judge/f1.json

The positions are the chunk carries of ``--iteration`` (the games' states between chunks: all
three rounds of a match), ``--positions`` of them. A setting is a name and knobs over the run's
own teacher (``teacher.knobs`` and ``teacher.escalate``): the run's own; with a belief's worlds
(``belief=<file or shipped name>``); ``told`` a teacher told the opponent's real hand (a ceiling
no honest teacher reaches: what a perfect belief could add). Every setting's labels are judged
with one key, so position by position the worlds are the same and two settings' difference is
paired. Each row has its labels a second (the labelling alone, this machine; the loop's
generation also plays the games). Writes ``--out`` (with the command, commit and date) and
prints the table; ``--save`` keeps the judged gains position by position.
"""

import argparse
import json
import time
from pathlib import Path

import jax
import numpy as np
import yaml
from omegaconf import OmegaConf
from teacher_knobs import mean_ci, positions

from lost_cities import models
from lost_cities.envs import make as make_env
from lost_cities.evaluation.provenance import provenance
from lost_cities.improvement.judge import HANDS, judge_labels, labels_of
from lost_cities.improvement.labels import Labeller
from lost_cities.improvement.loop import teacher_deal
from lost_cities.improvement.resolve import teacher_config
from lost_cities.improvement.resume import saved_config
from lost_cities.policies import make_policy, parse

TOLD = "told"  # a setting's knob: the teacher's worlds hold the opponent's real hand (teacher.hand=real)


def setting(text):
    """``name:knob=value,knob=value`` (``name`` alone: the run's own teacher)."""
    name, _, knobs = text.partition(":")
    pairs = [k.split("=", 1) for k in knobs.split(",") if k]
    return name, {k: yaml.safe_load(v) for k, v in pairs}


def labeller_of(cfg, env, network, knobs):
    """The loop's labeller of ``cfg`` with ``knobs`` over its teacher's (``escalate_share``,
    ``escalate_worlds`` set teacher.escalate; ``told=true`` deals the real hand)."""
    teacher = OmegaConf.to_container(cfg.teacher, resolve=True)
    knobs = dict(knobs)
    if knobs.pop(TOLD, False):
        teacher["hand"] = "real"
    share = knobs.pop("escalate_share", teacher["escalate"]["share"])
    more = knobs.pop("escalate_worlds", teacher["escalate"]["worlds"])
    teacher["knobs"] = {**teacher["knobs"], **knobs}
    search = teacher_config(OmegaConf.create(teacher))
    deal = teacher_deal(search, teacher["hand"], env.name)
    rollout = None if search.rollout is None else make_policy(search.rollout, env)
    g, escalate = cfg.generate, (share, more)
    shape = (g.games, g.plies, cfg.teacher.temperature, g.play)
    return Labeller(env, network, search, *shape, deal, rollout, (), escalate)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run dir of lost_cities.improve: its chunks' positions")
    parser.add_argument("--iteration", type=int, required=True)
    parser.add_argument("--champion", required=True, help="the net the teacher searches on (a model spec)")
    parser.add_argument("--positions", type=int, default=3072)
    parser.add_argument("--worlds", type=int, default=256, help="the judges' worlds")
    parser.add_argument(
        "--settings",
        nargs="+",
        type=setting,
        default=[setting("loop"), setting("loop, told the hand:told=true")],
        help="name[:knob=value,...] over the run's teacher",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--save", type=Path, help="an .npz of the judged gains, position by position")
    args = parser.parse_args()

    cfg = saved_config(args.run)
    env = make_env(cfg.env.name)
    agent = models.load(parse(args.champion).path, env)
    states = positions(args.run, (args.iteration, args.iteration), args.positions, env)
    key = jax.random.PRNGKey(args.seed)
    k_label, k_judge = jax.random.split(key)
    rows, gains = [], {}
    for name, knobs in args.settings:
        labeller = labeller_of(cfg, env, agent.network, knobs)
        first_ply = jax.tree.map(lambda x, n=labeller.games: x[:n], states)
        labels_of(labeller, agent.params, first_ply, k_label)  # compiled before the clock starts
        clock = time.perf_counter()
        actions, index = labels_of(labeller, agent.params, states, k_label)
        seconds = time.perf_counter() - clock
        row = {"setting": name, "knobs": knobs, "changed": float((index != 0).mean())}
        row |= {"label_seconds": seconds, "labels_per_second": args.positions / seconds}
        for hand in HANDS:
            clock = time.perf_counter()
            g = judge_labels(labeller, agent.params, states, actions, index, k_judge, args.worlds, hand)
            gains[(name, hand)] = g
            row[hand] = mean_ci(g)
            row[f"{hand}_seconds"] = time.perf_counter() - clock
        rows.append(row)
        print(
            f"{name:40s} changed {row['changed']:.3f}  real {row['real'][0]:+.3f} "
            f"[{row['real'][1]:+.3f}, {row['real'][2]:+.3f}]  uniform {row['uniform'][0]:+.3f} "
            f"[{row['uniform'][1]:+.3f}, {row['uniform'][2]:+.3f}]  {row['labels_per_second']:.0f} labels/s",
            flush=True,
        )
    first = args.settings[0][0]
    paired = {
        f"{name} - {first}": {hand: mean_ci(gains[(name, hand)] - gains[(first, hand)]) for hand in HANDS}
        for name, _ in args.settings[1:]
    }
    for pair, judged in paired.items():
        print(f"{pair:40s} real {judged['real']}  uniform {judged['uniform']}")
    result = {
        "run": str(args.run),
        "iteration": args.iteration,
        "champion": args.champion,
        "positions": args.positions,
        "worlds": args.worlds,
        "seed": args.seed,
        "rows": rows,
        "paired": paired,
        "provenance": provenance(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    if args.save is not None:
        np.savez(args.save, **{f"{n}|{h}": g for (n, h), g in gains.items()})


if __name__ == "__main__":
    main()
