"""Side by side: this checkout's benchmarks against another commit's, interleaved on one machine.

    git worktree add outputs/base-tree bb7f962
    python experiments/throughput/compare.py --base-tree outputs/base-tree --rounds 3

Each round runs, for each tree (the order alternating from round to round), the engine and
training bench (``python -m lost_cities.bench``) and the search bench (preset ``belief`` on
the shipped ``bc-ppo-xi6-bal2700``, 128 positions batched) in a fresh process with the
tree as its working directory, so each imports its own ``lost_cities``. Every ``key=value``
line is kept; the results file (``--out``) records the commands, both commits, the date,
the machine and the load average before each run, and the table printed at the end gives
each key's median per tree and the ratio of the medians (this tree over the base).
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parents[1]
MODEL = "web/public/bc-ppo-xi6-bal2700.onnx"
# Each tree's commands (the base predates the Hydra search bench).
COMMANDS = {
    "bench": {
        "base": [sys.executable, "-m", "lost_cities.bench", "--runs", "5"],
        "new": [sys.executable, "-m", "lost_cities.bench", "--runs", "5", "--only", "engine,train"],
    },
    "engine": {  # the bench's engine and observation loops alone
        "base": [sys.executable, "-m", "lost_cities.bench", "--runs", "5", "--skip-train"],
        "new": [sys.executable, "-m", "lost_cities.bench", "--runs", "5", "--only", "engine"],
    },
    "search": {
        "base": [
            sys.executable,
            "-m",
            "lost_cities.search.bench",
            "--base",
            MODEL,
            "--preset",
            "belief",
            "--games",
            "128",
            "--single",
            "0",
        ],
        "new": [
            sys.executable,
            "-m",
            "lost_cities.search_bench",
            f"base={MODEL}",
            "search=belief",
            "games=128",
            "single=0",
        ],
    },
}
KEYS = {  # the figures compared, and whether higher is better
    "steps_per_sec": True,
    "obs_steps_per_sec": True,
    "match_steps_per_sec": True,
    "obs_v2_steps_per_sec": True,
    "train_env_steps_per_sec": True,
    "batched_s_per_decision": False,
    "rollout_policy_us_per_state": False,
}


def commit(tree):
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True
    ).stdout.strip()


def run(command, tree):
    env = {**os.environ, "PYTHONPATH": str(tree)}
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} in {tree} failed:\n{done.stderr[-3000:]}")
    values = {}
    for line in done.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in KEYS:
            values[key] = float(value)
    return values, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--base-tree", required=True, type=Path, help="a checkout of the commit to compare against"
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--only", choices=sorted(COMMANDS), action="append", help="benches (default: bench, search)"
    )
    parser.add_argument("--out", type=Path, default=HERE / "results.json")
    args = parser.parse_args()
    trees = {"base": args.base_tree.resolve(), "new": TREE}
    benches = args.only or ["bench", "search"]
    record = {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commits": {name: commit(tree) for name, tree in trees.items()},
        "machine": {"processor": platform.processor() or platform.machine(), "cpus": os.cpu_count()},
        "commands": {
            bench: {name: " ".join(COMMANDS[bench][name][1:]) for name in trees} for bench in benches
        },
        "runs": [],
    }
    for r in range(args.rounds):
        order = ["base", "new"] if r % 2 == 0 else ["new", "base"]
        for bench in benches:
            for name in order:
                load = os.getloadavg()[0]
                values, seconds = run(COMMANDS[bench][name], trees[name])
                record["runs"].append(
                    {
                        "round": r,
                        "tree": name,
                        "bench": bench,
                        "load_before": load,
                        "seconds": round(seconds, 1),
                        "values": values,
                    }
                )
                print(f"round {r} {name:4s} {bench}: {values}", flush=True)
                args.out.write_text(json.dumps(record, indent=1) + "\n")
    table = {}
    for key, higher in KEYS.items():
        per = {
            n: [run["values"][key] for run in record["runs"] if run["tree"] == n and key in run["values"]]
            for n in trees
        }
        if all(per.values()):
            medians = {n: statistics.median(v) for n, v in per.items()}
            speedup = medians["new"] / medians["base"] if higher else medians["base"] / medians["new"]
            table[key] = {"base": per["base"], "new": per["new"], "speedup": round(speedup, 3)}
            print(
                f"{key:30s} base {medians['base']:12.4g} new {medians['new']:12.4g} speed-up {speedup:.2f}x"
            )
    record["table"] = table
    args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
