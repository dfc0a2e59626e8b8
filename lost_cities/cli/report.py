"""``python -m lost_cities.report <run dirs | multirun dir> [--metrics GLOB ...] [--out DIR]``:
runs compared side by side (:func:`lost_cities.training.report.write_report`).

A plain argparse CLI: its input is a list of paths, not a config to compose.
"""

import argparse
import sys

from lost_cities.training.report import write_report


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lost_cities.report", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="run dirs, or a multirun dir holding them")
    parser.add_argument("--metrics", nargs="*", default=(), help="glob patterns of metric keys to plot")
    parser.add_argument("--out", help="where to write report.png / report.md (default: next to the runs)")
    args = parser.parse_args(argv)
    try:
        png, md = write_report(args.paths, args.out, args.metrics)
    except (FileNotFoundError, ValueError) as error:
        parser.exit(2, f"error: {error}\n")
    print(f"wrote {png}\nwrote {md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
