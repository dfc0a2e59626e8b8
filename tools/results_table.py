"""Write docs/results.md: each shipped agent's strength claim, read from its results file, and the
lineage of every shipped network.

Why this exists, and what it checks: :mod:`lost_cities.export.results_table` (the same code
``python -m lost_cities.ship`` writes the table with). The claims are those tools/claims.yaml names
(``CLAIMS``), the chains those of tools/lineage.yaml (``LINEAGE``).

    python tools/results_table.py [--out docs/results.md]

A listed file that is missing, lacks a field the table needs, or lacks its provenance, or a
lineage that does not hold, is an error: the script names the file and exits with status 1,
writing nothing.
"""

import argparse
import sys
from pathlib import Path

from lost_cities.export import results_table
from lost_cities.export.results_table import AGENTS, OUT, ClaimError, LineageError, read_claims

ROOT = Path(__file__).resolve().parents[1]
LINEAGE = results_table.LINEAGE
# ((agent id in web/public/agents.json, its results file relative to the repository root), ...)
CLAIMS = read_claims(ROOT / results_table.CLAIMS)

__all__ = ["AGENTS", "CLAIMS", "LINEAGE", "OUT", "ROOT", "ClaimError", "LineageError", "main", "render"]


def render(claims=None, root=ROOT):
    """docs/results.md's text for ``claims`` ((agent id, results file) pairs; ``CLAIMS`` by
    default), or a ClaimError."""
    return results_table.render(CLAIMS if claims is None else claims, root, LINEAGE)


def main(argv=None):
    description = __doc__.splitlines()[0]
    parser = argparse.ArgumentParser(prog="python tools/results_table.py", description=description)
    parser.add_argument("--out", type=Path, default=ROOT / OUT, help=f"where to write (default {OUT})")
    args = parser.parse_args(argv)
    try:
        text = render()
    except ClaimError as error:
        print(f"results_table: {error}", file=sys.stderr)
        return 1
    args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
