"""``python -m lost_cities.replay games.jsonl``: games downloaded from the web page replayed
through the Python engine, their scores printed (:mod:`lost_cities.game.replay`). A plain
argparse CLI: its input is a file, not a config to compose.
"""

import argparse
import json
import sys
from pathlib import Path

from lost_cities.game.replay import ReplayError, format_game, read_numbered_games, replay_game


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("log", type=Path, help="a JSONL game log downloaded from the web client")
    parser.add_argument("--json", action="store_true", help="print one JSON result per game instead")
    args = parser.parse_args(argv)
    try:
        games = read_numbered_games(args.log)
        results = [
            replay_game(game, f"{args.log}, line {line} (game {i})")
            for i, (line, game) in enumerate(games, 1)
        ]
    except ReplayError as error:
        sys.exit(f"replay failed: {error}")
    except (OSError, UnicodeDecodeError) as error:  # a missing, unreadable or binary file
        sys.exit(f"replay failed: {args.log}: {error}")
    for i, result in enumerate(results, 1):
        print(json.dumps(result.__dict__) if args.json else format_game(i, result))


if __name__ == "__main__":
    main()
