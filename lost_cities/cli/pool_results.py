"""``python -m lost_cities.pool_results PART.json ... [--out POOLED.json]``.

One agent's evaluations on disjoint ranges of the deal bank (``lost_cities.evaluate ...
first_deal=N``), pooled into the result of all their deals
(:func:`lost_cities.evaluation.pooling.pool_results`): how a claim too slow for one
run is made in parts. Prints the pooled report and the parts' deal ranges; ``--out``
writes the pooled result as JSON (``RESULTS_SCHEMA`` plus ``parts``). Parts that are not one
claim (another agent, opponent, env, bank, seed or search knobs; overlapping deals) or not
sound (a NaN, counts that do not add up) are an error naming the file, and nothing is
written. A plain argparse CLI: it takes a list of files.
"""

import argparse
import json
import sys
from pathlib import Path

from lost_cities.evaluation.pooling import pool_results
from lost_cities.evaluation.provenance import provenance
from lost_cities.evaluation.report import format_comparison, format_report


def read_parts(paths):
    """Each file's JSON (NaN and Infinity read as numbers, so that the check names them)."""
    parts = []
    for path in paths:
        try:
            parts.append(json.loads(Path(path).read_text()))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{path}: {error}") from error
    return parts


def main(argv=None):
    prog = "python -m lost_cities.pool_results"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+", help="results JSON files of one agent on disjoint deal ranges")
    parser.add_argument("--out", type=Path, help="where to write the pooled results JSON")
    parser.add_argument("--overwrite", action="store_true", help="let --out replace an existing file")
    args = parser.parse_args(argv)
    if args.out and args.out.exists() and not args.overwrite:
        parser.exit(2, f"error: --out {args.out} exists; choose another path, or pass --overwrite\n")
    try:
        pooled = pool_results(read_parts(args.parts), names=args.parts)
    except (KeyError, ValueError) as error:
        parser.exit(2, f"error: {error}\n")
    ranges = ", ".join(f"{p['first_deal']}-{p['first_deal'] + p['deals'] - 1}" for p in pooled["parts"])
    print(f"{len(pooled['parts'])} parts, deals {ranges}")
    print(format_report(pooled))
    if "versus_baseline" in pooled:
        print(format_comparison(pooled))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        pooled = {**pooled, "provenance": provenance()}
        args.out.write_text(json.dumps(pooled, indent=2, allow_nan=False) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
