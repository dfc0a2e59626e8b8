"""Write the web client's contract (web/src/generated/contract.json) from the Python package.

The observation layouts, the af1 feature columns, the card and action encodings and the page's
search preset, as :func:`lost_cities.export.web_contract.contract` gathers them; the web client
imports the file instead of copying the numbers. Run it after changing any of them:

    python tools/web_contract.py            # write web/src/generated/contract.json
    python tools/web_contract.py --check    # exit 1 if the committed file differs
"""

import argparse
import sys
from pathlib import Path

from lost_cities.export.web_contract import WEB_PATH, render, write

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / WEB_PATH, help="where to write (default: %(default)s)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if --out differs from the contract"
    )
    args = parser.parse_args(argv)
    if args.check:
        current = args.out.read_text() if args.out.is_file() else None
        if current != render():
            print(f"{args.out} is out of date: run python tools/web_contract.py", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    print(f"wrote {write(args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
