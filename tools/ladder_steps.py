"""Print the page's ladder steps: each level's score against the level just below it, from the
player-ladder tournament's pair files (no game is played).

    python tools/ladder_steps.py [--root .] [--pairs experiments/player-ladder/results/pairs]

The levels are web/public/agents.json's entries with a ``level``, in the index's order; a step
reaches the bar at 0.60 or more over 200 deals or more (:mod:`lost_cities.export.ladder`).
"""

import argparse
import json
import sys
from pathlib import Path

from lost_cities.export.ladder import read_pairs, steps, steps_table

ROOT = Path(__file__).resolve().parents[1]
PAIRS = "experiments/player-ladder/results/pairs"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python tools/ladder_steps.py", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this checkout)")
    parser.add_argument("--pairs", default=PAIRS, help=f"the pair files, under the root (default {PAIRS})")
    args = parser.parse_args(argv)
    index = json.loads((args.root / "web/public/agents.json").read_text())
    print("\n".join(steps_table(steps(index, read_pairs(args.root / args.pairs)), args.root)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
