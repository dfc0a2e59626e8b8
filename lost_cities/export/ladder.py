"""The page's ladder: its levels in order (web/public/agents.json's entries with a ``level``) and
each level's measured score against the level just below it, from the pair files of the
player-ladder tournament (experiments/player-ladder/results/pairs, one duplicate evaluation per
pair, as ``python -m lost_cities.tournament players=[...]`` keeps them).

A step *reaches* the bar when the higher level's score is at least :data:`STEP_SCORE` over at
least :data:`STEP_DEALS` deals (web/README.md: levels that feel different). ``tools/ladder_steps.py``
prints the table; ``python -m lost_cities.ship`` prints it after a ship.
"""

import json
from pathlib import Path

STEP_SCORE = 0.60  # what a level should take of its matches against the level just below
STEP_DEALS = 200  # the fewest deals a step is measured on


def levels(index):
    """The ladder's entries of an agents.json ``index``, beginner first (the index's order)."""
    return [entry for entry in index["agents"] if entry.get("level")]


def read_pairs(pairs_dir):
    """``{frozenset((a, b)): (path, results)}`` of every pair file under ``pairs_dir``; two files of
    one pair are refused (which one would count is not clear)."""
    pairs = {}
    for path in sorted(Path(pairs_dir).glob("*.json")):
        results = json.loads(path.read_text())
        key = frozenset((str(results["agent"]), str(results["opponent"])))
        if key in pairs:
            raise ValueError(
                f"{path} and {pairs[key][0]} are both {results['agent']} vs {results['opponent']}"
            )
        pairs[key] = (path, results)
    return pairs


def score(upper, lower, pairs):
    """``upper``'s score against ``lower`` (player specs, as ``rated_as`` names them) from their pair
    file: the share of the points (a draw half) with its Wilson 95% interval over the games, the
    deals and the file; None when the pair was not played."""
    found = pairs.get(frozenset((upper, lower)))
    if found is None:
        return None
    path, r = found
    flip = str(r["agent"]) != upper
    value, low, high = r["win_rate"], r["win_rate_lower"], r["win_rate_upper"]
    if flip:
        value, low, high = 1 - value, 1 - high, 1 - low
    measured = {"score": value, "lower": low, "upper": high}
    return {**measured, "deals": r["deals"], "games": r["games"], "file": path}


def steps(index, pairs):
    """Per adjacent pair of levels, bottom up: the higher level, the one below, and the higher one's
    :func:`score` against it (None: not measured)."""
    ladder = levels(index)
    return [
        {
            "level": above["level"]["name"],
            "below": below["level"]["name"],
            "measured": score(above["level"]["rated_as"], below["level"]["rated_as"], pairs),
        }
        for below, above in zip(ladder, ladder[1:], strict=False)
    ]


def verdict(measured):
    """Whether a step reaches the bar, in words."""
    if measured is None:
        return "not measured: play the pair"
    short = measured["deals"] < STEP_DEALS
    if measured["score"] >= STEP_SCORE:
        return f"yes, on too few deals (< {STEP_DEALS}): measure on" if short else "yes"
    more = f"; on {measured['deals']} deals (< {STEP_DEALS})" if short else ""
    return f"no: {measured['score']:.3f} < {STEP_SCORE:.2f}{more}"


def steps_table(rows, root=None):
    """Markdown lines: each step with its score, interval, deals, the pair file and the verdict."""
    lines = [
        "| level | against the level below | score [Wilson 95%] | deals | pair file | reaches 0.60 |",
        "| --- | --- | --- | ---: | --- | --- |",
    ]
    for row in rows:
        m = row["measured"]
        if m is None:
            lines.append(f"| {row['level']} | {row['below']} | not measured | | | {verdict(m)} |")
            continue
        file = Path(m["file"])
        if root is not None and file.is_relative_to(root):
            file = file.relative_to(root)
        lines.append(
            f"| {row['level']} | {row['below']} | {m['score']:.3f} [{m['lower']:.3f}, {m['upper']:.3f}] "
            f"| {m['deals']:,} | {file.name} | {verdict(m)} |"
        )
    return lines
