"""``python -m lost_cities.report <run dirs | multirun dir> [--metrics GLOB ...] [--out DIR]
[--wandb-workspace ENTITY/PROJECT [--group G] [--name N] [--save]]``: runs compared side by side
(:func:`lost_cities.training.report.write_report`), and as a W&B workspace
(:mod:`lost_cities.training.dashboards`).

A plain argparse CLI: its input is a list of paths, not a config to compose.
"""

import argparse
import sys

from lost_cities.training import dashboards
from lost_cities.training.report import write_report


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lost_cities.report", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="run dirs, or a multirun dir holding them")
    parser.add_argument("--metrics", nargs="*", default=(), help="glob patterns of metric keys to plot")
    parser.add_argument("--out", help="where to write report.png / report.md (default: next to the runs)")
    parser.add_argument(
        "--wandb-workspace",
        metavar="ENTITY/PROJECT",
        help="also build the W&B workspace comparing these runs' gates (needs wandb-workspaces)",
    )
    parser.add_argument("--group", help="the runs' W&B group (default: their run ids, from wandb_id.txt)")
    parser.add_argument("--name", help="the workspace's name (default: from the group or the run ids)")
    parser.add_argument(
        "--save", action="store_true", help="save the workspace to W&B (online; else only built)"
    )
    args = parser.parse_args(argv)
    if (args.group or args.name or args.save) and not args.wandb_workspace:
        parser.error("--group, --name and --save go with --wandb-workspace ENTITY/PROJECT")
    try:
        workspace = None
        if args.wandb_workspace:
            workspace = dashboards.workspace_for_runs(args.paths, args.wandb_workspace, args.group, args.name)
        png, md = write_report(args.paths, args.out, args.metrics)
    except (FileNotFoundError, ValueError, ImportError) as error:
        parser.exit(2, f"error: {error}\n")
    print(f"wrote {png}\nwrote {md}")
    if workspace is not None:
        print(f"W&B workspace {workspace.name!r} ({workspace.entity}/{workspace.project}):")
        for section, titles in dashboards.panel_titles(workspace).items():
            print(f"  {section}: {'; '.join(titles)}")
        if args.save:
            try:
                print(f"saved: {dashboards.save(workspace)}")
            except Exception as error:  # network, login, permissions: W&B's own errors
                parser.exit(1, f"error: the W&B workspace was not saved: {type(error).__name__}: {error}\n")
        else:
            print("not saved (--save saves it to W&B)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
