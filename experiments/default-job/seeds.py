"""The default job's agent as a distribution over seeds: ``python -m lost_cities.train seed=<s>``
for each seed, its final gates, and each agent on held-out deals against the two strongest
scripted players; writes ``seeds.json`` and ``seeds.md`` (the table the README quotes).

    python experiments/default-job/seeds.py --seeds 0-4 --runs outputs/runs/default-job

A seed whose run dir already holds a finished run (its ``evaluation.json``) is not trained
again, and an evaluation whose results file exists is not played again, so a stopped script
continues where it stopped. Everything is measured by the package's own commands (listed in
``seeds.json``); this script only runs them and tabulates what they wrote.
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
from lost_cities.evaluation.provenance import provenance  # noqa: E402

OPPONENTS = ("heuristic_expert", "heuristic_balanced")
GATES = ("heuristic_expert", "heuristic_balanced", "random")
WIN_RATE = ("win_rate", "win_rate_deal_lower", "win_rate_deal_upper", "win_rate_lower", "win_rate_upper")


def seeds(text):
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def run(command, log):
    """Run one of the package's commands from the repository root; its output goes to ``log``."""
    print("+", " ".join(command), flush=True)
    with open(log, "a") as out:
        subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, check=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=seeds, default=seeds("0-4"))
    parser.add_argument("--runs", default="outputs/runs/default-job", help="run dirs (from the repository)")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--first-deal", type=int, default=10000, help="held out: the gates play deals 0-199")
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    runs = Path(args.runs)
    (ROOT / runs).mkdir(parents=True, exist_ok=True)
    rows, commands = [], []
    for seed in args.seeds:
        run_dir = runs / f"seed{seed}"
        log = ROOT / runs / f"seed{seed}.log"
        train = [sys.executable, "-m", "lost_cities.train", f"seed={seed}", f"hydra.run.dir={run_dir}"]
        commands.append(" ".join(["python", *train[1:]]))
        if not (ROOT / run_dir / "evaluation.json").exists():
            run(train, log)
        gates = json.loads((ROOT / run_dir / "gates.json").read_text())
        row = {"seed": seed, "gates": {g: gates[g]["win_rate"] for g in GATES if g in gates}}
        for opponent in OPPONENTS:
            out = runs / f"seed{seed}_vs_{opponent}.json"
            evaluate = [
                sys.executable, "-m", "lost_cities.evaluate", f"agent={run_dir}", f"opponent={opponent}",
                f"deals={args.deals}", f"first_deal={args.first_deal}", "progress=false", f"out={out}",
            ]  # fmt: skip
            commands.append(" ".join(["python", *evaluate[1:]]))
            if not (ROOT / out).exists():
                run(evaluate, log)
            r = json.loads((ROOT / out).read_text())
            row[opponent] = {
                k: r[k]
                for k in (*WIN_RATE, "margin_mean", "margin_lower", "margin_upper", "deals", "max_steps_rate")
            }
        rows.append(row)
    summary = {
        opponent: {
            "median": statistics.median(r[opponent]["win_rate"] for r in rows),
            "min": min(r[opponent]["win_rate"] for r in rows),
            "max": max(r[opponent]["win_rate"] for r in rows),
        }
        for opponent in OPPONENTS
    }
    summary["gate_heuristic_expert"] = {
        "median": statistics.median(r["gates"]["heuristic_expert"] for r in rows),
        "min": min(r["gates"]["heuristic_expert"] for r in rows),
        "max": max(r["gates"]["heuristic_expert"] for r in rows),
    }
    record = {
        "rows": rows,
        "summary": summary,
        "deals": args.deals,
        "first_deal": args.first_deal,
        "commands": commands,
        "provenance": provenance(),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "seeds.json").write_text(json.dumps(record, indent=1) + "\n")
    (args.out / "seeds.md").write_text(markdown(record))
    print(markdown(record))


def markdown(record):
    last = record["first_deal"] + record["deals"] - 1
    lines = [
        f"_Written by `{record['provenance']['command']}` at {record['provenance']['commit']}, "
        f"{record['provenance']['date']}, on {record['provenance']['machine']}._",
        "",
        f"| seed | gate: expert | gate: balanced | gate: random | vs heuristic_expert, deals "
        f"{record['first_deal']:,}-{last:,} [95% over deals] | margin [95%] | vs heuristic_balanced "
        "| margin |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in record["rows"]:
        e, b = r["heuristic_expert"], r["heuristic_balanced"]
        gate = {g: r["gates"].get(g, float("nan")) for g in GATES}
        lines.append(
            f"| {r['seed']} | {gate['heuristic_expert']:.4f} | "
            f"{gate['heuristic_balanced']:.4f} | {gate['random']:.3f} | "
            f"{e['win_rate']:.3f} [{e['win_rate_deal_lower']:.3f}, {e['win_rate_deal_upper']:.3f}] | "
            f"{e['margin_mean']:+.2f} [{e['margin_lower']:+.2f}, {e['margin_upper']:+.2f}] | "
            f"{b['win_rate']:.3f} [{b['win_rate_deal_lower']:.3f}, {b['win_rate_deal_upper']:.3f}] | "
            f"{b['margin_mean']:+.2f} |"
        )
    s = record["summary"]
    lines += [
        "",
        "| | median | range |",
        "| --- | --- | --- |",
        *(
            f"| {name} | {v['median']:.3f} | {v['min']:.3f}-{v['max']:.3f} |"
            for name, v in (
                ("gate vs heuristic_expert (200 deals)", s["gate_heuristic_expert"]),
                ("vs heuristic_expert (held out)", s["heuristic_expert"]),
                ("vs heuristic_balanced (held out)", s["heuristic_balanced"]),
            )
        ),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
