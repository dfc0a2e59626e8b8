"""The README's per-iteration table of a loop run, from its iterations.jsonl.

    python experiments/self-improvement/table.py RUN_DIR/iterations.jsonl [--anchor heuristic_expert]

One row per iteration: labels made (and pooled) and per second of generation, how often the
teacher leaves the net's move, its estimated gain and (runs with ``teacher.judge``) its judged
gain with the interval, held-out accuracy of student and champion, the gate (head to head:
win rate and margin; against ``gate.opponent``: the margin difference from the champion),
promoted or not, the champion against the anchor and against the first champion, seconds.
"""

import argparse
import json
from pathlib import Path


def interval(row, key, lower, upper, digits):
    value = row.get(key)
    if value is None:
        return ""
    low, high = row.get(lower), row.get(upper)
    text = f"{value:+.{digits}f}" if digits == 2 else f"{value:.{digits}f}"
    if low is None or high is None:
        return text
    return text + (f" [{low:+.2f}, {high:+.2f}]" if digits == 2 else f" [{low:.3f}, {high:.3f}]")


def table(rows, anchor):
    head = (
        "| iteration | labels made (pooled) | labels a second | teacher leaves the net's move |"
        " teacher's estimated gain | judged gain |"
        " held-out accuracy: student / champion | gate | promoted |"
        f" champion vs {anchor} | champion vs the first champion (margin) | seconds |"
    )
    lines = [head, "|" + " --- |" * 12]
    for r in rows:
        i = r["iteration"]
        a = f"anchors/{anchor}/"
        champion_vs_anchor = interval(r, a + "win_rate", a + "win_rate_lower", a + "win_rate_upper", 3)
        first = interval(
            r, "anchors/first/margin_mean", "anchors/first/margin_lower", "anchors/first/margin_upper", 2
        )
        if i == 0:
            lines.append(f"| 0 | | | | | | | | (start) | {champion_vs_anchor} | | |")
            continue
        if "gate/versus_champion/margin_diff" in r:
            v = "gate/versus_champion/"
            gate = "vs opponent, minus the champion: " + interval(
                r, v + "margin_diff", v + "margin_diff_lower", v + "margin_diff_upper", 2
            )
        else:
            gate = interval(r, "gate/margin_mean", "gate/margin_lower", "gate/margin_upper", 2)
        gate += f" ({r['gate/deals']:,} deals)"
        t = "teacher/judged_gain_"
        judged = interval(r, t + "points", t + "lower", t + "upper", 3)
        rate = "" if r.get("labels/per_second") is None else f"{r['labels/per_second']:.1f}"
        lines.append(
            f"| {i} | {r['labels/made']:,} ({r['labels/pooled']:,}) | {rate} |"
            f" {r['teacher/changed']:.1%} | {r['teacher/gain_points']:.2f} | {judged} |"
            f" {r['student/accuracy']:.3f} / {r['champion/accuracy']:.3f} |"
            f" {gate} | {'**yes**' if r['promoted'] else 'no'} |"
            f" {champion_vs_anchor if r['promoted'] else '(unchanged)'} |"
            f" {first if r['promoted'] else ''} | {r['time/iteration']:.0f} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("iterations", type=Path)
    parser.add_argument("--anchor", default="heuristic_expert")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.iterations.read_text().splitlines() if line.strip()]
    print(table(rows, args.anchor))


if __name__ == "__main__":
    main()
