"""Which student recipe realizes the teacher's labels: each knob on the same labels, gated.

    python experiments/self-improvement/student_knobs.py RUN_DIR --champion students/0005 \\
        --iteration 8 --deals 2000 --first 60000 --recipes soft:champion:3e-4:4 hard:champion:3e-4:4 ...

A recipe is ``targets:init:lr:epochs[:hidden]`` (``targets`` soft or hard, ``init`` champion or
fresh; ``hidden``, e.g. ``512x512``, widens a fresh student's trunk past the champion's).
Every recipe is fitted by the loop's own :class:`~lost_cities.improvement.distill.Distiller` to
the same pooled labels of ``RUN_DIR`` (its iterations ``iteration - window + 1 .. iteration``,
or with ``--pool RUN:FIRST-LAST ...`` exactly those iterations of those runs, oldest first; the
newest ``holdout`` labels kept out), from the same key, and gated against the champion
by the loop's paired duplicate match on deals ``first ..``: the student knobs are measured
with the teacher's labels held fixed, at the cost of a distillation and a gate each (about a
minute), not an iteration's generation. The gate deals must lie outside the run's own gates
(from 20,000) and the anchors (10,000-10,399); choose on one range, confirm on another.
Writes one JSON row per recipe to ``--out`` (with the command, commit and date).
"""

import argparse
import json
import time
from pathlib import Path

import hydra
import jax
import numpy as np
from jax.tree_util import Partial
from omegaconf import OmegaConf

from lost_cities import models
from lost_cities.envs import make as make_env
from lost_cities.evaluation import deal_bank, duplicate_evaluate
from lost_cities.evaluation.comparison import compare
from lost_cities.evaluation.duplicate import play_duplicate, summarise
from lost_cities.evaluation.provenance import provenance
from lost_cities.improvement import dataset
from lost_cities.improvement.distill import Distiller, init_params
from lost_cities.models import network_policy
from lost_cities.networks import current_targets
from lost_cities.networks.nets import build_network
from lost_cities.policies import make_policy
from lost_cities.training.report import ANCHOR_METRICS


def recipe(text):
    targets, init, lr, epochs, *hidden = text.split(":")
    if targets not in ("soft", "hard") or init not in ("champion", "fresh") or len(hidden) > 1:
        raise argparse.ArgumentTypeError(
            f"{text!r}: targets:init:lr:epochs[:hidden], targets soft|hard, init champion|fresh"
        )
    if hidden and init != "fresh":
        raise argparse.ArgumentTypeError(f"{text!r}: only a fresh student can change its width")
    row = {"targets": targets, "init": init, "lr": float(lr), "epochs": int(epochs)}
    if hidden:
        row["hidden"] = [int(w) for w in hidden[0].split("x")]
    return row


def pool_part(text):
    run, _, span = text.rpartition(":")
    first, _, last = span.partition("-")
    return Path(run), int(first), int(last or first)


def pool_paths(parts):
    """The chunk files of iterations ``first..last`` of each run, in the order given."""
    paths = []
    for run_dir, first, last in parts:
        chunks = OmegaConf.load(run_dir / "config.yaml").generate.chunks
        paths += dataset.span_paths(run_dir, first, last, chunks)
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--champion", required=True, help="the champion dir, relative to RUN_DIR")
    parser.add_argument("--iteration", type=int, required=True, help="the pool's newest iteration")
    parser.add_argument("--recipes", type=recipe, nargs="+", required=True)
    parser.add_argument(
        "--pool", type=pool_part, nargs="+", help="RUN:FIRST-LAST ...: these labels instead of the window"
    )
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--first", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--anchor", help="also play each student against this policy (e.g. heuristic_expert)")
    parser.add_argument("--anchor-first", type=int, default=10000)
    parser.add_argument("--anchor-deals", type=int, default=400)
    args = parser.parse_args()
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: choose another --out")

    run = OmegaConf.load(args.run_dir / "config.yaml")
    env = make_env(run.env.name)
    champion = models.load_checkpoint(args.run_dir / args.champion, env)
    if args.pool:
        labels = dataset.read_labels(pool_paths(args.pool))
    else:
        labels = dataset.pooled(args.run_dir, args.iteration, run.student.window, run.generate.chunks)
    n = len(labels["label"])
    keep = n - min(run.student.holdout, n // 2)
    train = {k: jax.numpy.asarray(v[:keep]) for k, v in labels.items()}
    held = {k: jax.numpy.asarray(v[keep:]) for k, v in labels.items()}
    policy = network_policy(env, champion.network)
    deck_orders, coins = deal_bank(args.deals, first=args.first)
    # The champion's own agreement with the search on the training labels: what a student starts from.
    champion_train = float(
        jax.device_get(
            Distiller(champion.network, "hard", 1e-3, 1, run.student.minibatch_size, keep).score(
                champion.params, train
            )
        )["accuracy"]
    )
    rows = []
    if args.anchor:  # the champion's games against the anchor: each student's are paired with them
        anchor_policy = make_policy(args.anchor, env)
        anchor_deals = deal_bank(args.anchor_deals, first=args.anchor_first)

        def versus_anchor(params, acting=policy):
            return play_duplicate(
                env,
                Partial(acting, params),
                anchor_policy,
                *anchor_deals,
                jax.random.PRNGKey(4),
                run.gate.batch_size,
            )

        champion_games = versus_anchor(champion.params)
        champion_anchor = {
            f"champion_anchor/{k}": v
            for k, v in summarise(champion_games, env.name).items()
            if k in ("win_rate", "win_rate_lower", "win_rate_upper", "margin_mean")
        }
        print(json.dumps(champion_anchor), flush=True)
    for r in args.recipes:
        started = time.monotonic()
        network = champion.network
        key = jax.random.PRNGKey(args.seed)
        start = champion.params
        if r["init"] == "fresh":
            critic = hydra.utils.instantiate(OmegaConf.create(current_targets(champion.meta["critic"])))
            if "hidden" in r:
                wider = {**champion.meta["network"], "hidden": r["hidden"]}
                network = build_network(OmegaConf.create(wider), critic)
            start = init_params(env, network, critic, jax.random.fold_in(key, 0))
        distiller = Distiller(network, r["targets"], r["lr"], r["epochs"], run.student.minibatch_size, keep)
        student_policy = network_policy(env, network)
        state = distiller.init(start, jax.random.fold_in(key, 1))
        for _ in range(r["epochs"]):
            state, metrics = distiller.epoch(state, train)
        scores = jax.device_get(distiller.score(state.params, held))
        fitted = time.monotonic()
        gate = duplicate_evaluate(
            env,
            Partial(student_policy, state.params),
            Partial(policy, champion.params),
            deck_orders,
            coins,
            jax.random.PRNGKey(4),
            run.gate.batch_size,
        )
        row = {
            **r,
            "pool": n,
            "pool_runs": [f"{d}:{a}-{b}" for d, a, b in args.pool] if args.pool else None,
            "train_accuracy": float(metrics["accuracy"]),
            "held_accuracy": float(scores["accuracy"]),
            "champion_train_accuracy": champion_train,
            "champion_held_accuracy": float(np.mean(np.asarray(held["base"] == held["label"]))),
            **{f"gate/{k}": gate[k] for k in (*ANCHOR_METRICS, "max_steps_rate", "deals")},
            "deals_first": args.first,
            "seconds": {"distill": fitted - started, "gate": time.monotonic() - fitted},
        }
        if args.anchor:
            games = versus_anchor(state.params, student_policy)
            anchor = summarise(games, env.name)
            row.update(
                {
                    f"anchor/{k}": anchor[k]
                    for k in ("win_rate", "win_rate_lower", "win_rate_upper", "margin_mean")
                }
            )
            row.update({f"anchor_vs_champion/{k}": v for k, v in compare(games, champion_games).items()})
            row.update(champion_anchor)
            row.update(anchor=args.anchor, anchor_first=args.anchor_first, anchor_deals=args.anchor_deals)
        rows.append(row)
        print(json.dumps(row), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"provenance": provenance(), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
