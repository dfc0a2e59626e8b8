"""Write docs/results.md: each shipped agent's strength claim, read from its results file.

Why this exists: a claim (a win rate with its interval, a margin, the deals it was measured on)
used to be copied by hand from an evaluation into READMEs, manifests and the page, and copies
drift. This script builds the one table of claims from the results files themselves, and only
from files that say how they were made (a ``provenance`` with the command, commit, date and
machine), so every number in docs/results.md can be traced to a file and reproduced by a command.
It also refuses a claim that the page shows differently (the model's manifest ``strength``, or the
search's ``strength`` in web/public/agents.json).

    python tools/results_table.py [--out docs/results.md]

The shipped agents are those of web/public/agents.json; ``CLAIMS`` below names the results file
behind each claim. An agent without one is listed with what its manifest records. A listed file
that is missing, lacks a field the table needs, or lacks its provenance is an error: the script
names the file and exits with status 1, writing nothing.
"""

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENTS = "web/public/agents.json"
OUT = "docs/results.md"

# (agent id in web/public/agents.json, its results file relative to the repository root)
CLAIMS = (
    ("improve-d4", "experiments/self-improvement/claims/d0004_vs_heuristic_expert_10k.json"),
    ("improve-d4", "experiments/self-improvement/claims/d0004_vs_heuristic_balanced_10k.json"),
    ("improve-d4", "experiments/self-improvement/claims/d0004_vs_heuristic_cautious_10k.json"),
    ("improve-d4", "experiments/self-improvement/claims/d0004_vs_discard_only_10k.json"),
    ("improve-c4", "experiments/self-improvement/claims/c0004_vs_heuristic_expert_10k.json"),
    ("improve-c4", "experiments/self-improvement/claims/c0004_vs_heuristic_balanced_10k.json"),
    ("improve-c4", "experiments/self-improvement/claims/c0004_vs_heuristic_cautious_10k.json"),
    ("improve-c4", "experiments/self-improvement/claims/c0004_vs_discard_only_10k.json"),
    ("improve-b1", "experiments/self-improvement/claims/b0001_vs_heuristic_expert_10k.json"),
    ("improve-b1", "experiments/self-improvement/claims/b0001_vs_heuristic_balanced_10k.json"),
    ("improve-b1", "experiments/self-improvement/claims/b0001_vs_heuristic_cautious_10k.json"),
    ("improve-b1", "experiments/self-improvement/claims/b0001_vs_discard_only_10k.json"),
    ("bc-ppo-xi6-bal2700", "experiments/ppo-vs-balanced/results/2700_vs_expert_10k.json"),
    ("bc-ppo-xi6-bal2700", "experiments/ppo-vs-balanced/results/2700_vs_balanced_10k.json"),
    ("bc-ppo-xi6-bal2700-search", "web/public/bc-ppo-xi6-bal2700-search.results.json"),
    ("strong-3h", "experiments/strong-recipe/strong-3h/bal_vs_expert_10k.json"),
    ("strong-3h", "experiments/strong-recipe/strong-3h/bal_vs_balanced_10k.json"),
    ("bc-ppo-xi6-bal", "experiments/ppo-vs-balanced/results/1500_vs_expert_10k.json"),
    ("bc-ppo-xi6-bal", "experiments/ppo-vs-balanced/results/1500_vs_balanced_10k.json"),
    ("bc-ppo-xi6", "experiments/expert-iteration/continue-xi6/xi6_vs_expert_10k.json"),
    ("bc-ppo-xi6", "experiments/expert-iteration/continue-xi6/xi6_vs_balanced_10k.json"),
)

RESULT_FIELDS = (
    "opponent",
    "deals",
    "win_rate",
    "win_rate_lower",
    "win_rate_upper",
    "margin_mean",
    "margin_lower",
    "margin_upper",
    "max_steps_rate",
)
PROVENANCE_FIELDS = ("command", "commit", "date", "machine")
SHOWN_TOLERANCE = 5e-4  # the page shows win rates to three decimals


class ClaimError(ValueError):
    """A listed results file that cannot back a claim; the message names the file."""


def read_json(path):
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ClaimError(f"{path}: {error}") from error


def read_result(path):
    """The results dict at ``path``, checked for every field the table shows and its provenance."""
    result = read_json(path)
    if not isinstance(result, dict):
        raise ClaimError(f"{path}: not a results file (a JSON object)")
    missing = [key for key in RESULT_FIELDS if result.get(key) is None]
    provenance = result.get("provenance")
    if not isinstance(provenance, dict):
        missing.append("provenance")
    else:
        missing += [f"provenance.{key}" for key in PROVENANCE_FIELDS if not provenance.get(key)]
    if missing:
        raise ClaimError(f"{path}: lacks {', '.join(missing)}")
    return result


def shown_strength(entry, root):
    """What the page shows for an agents.json entry: its search's strength, else its manifest's."""
    if "search" in entry:
        return entry["search"].get("strength")
    return read_json(root / "web/public" / entry["manifest"]).get("strength")


def check_shown(agent, path, result, shown):
    """The page's number for this opponent must be the results file's."""
    if not shown or shown.get("opponent") != result["opponent"]:
        return
    games = 2 * result["deals"]
    if shown.get("games") != games or abs(shown["win_rate"] - result["win_rate"]) > SHOWN_TOLERANCE:
        raise ClaimError(
            f"{path}: {agent} is shown with win rate {shown['win_rate']} over {shown.get('games')} games, "
            f"the file has {result['win_rate']} over {games}"
        )


def cell(text):
    return str(text).replace("|", "\\|")


def link(path, root):
    return f"[{path.name}]({Path(os.path.relpath(path, root / 'docs')).as_posix()})"


def claim_row(agent, path, result, root):
    p = result["provenance"]
    return (
        f"| {agent} | {result['opponent']} | {result['deals']:,} "
        f"| {result['win_rate']:.3f} [{result['win_rate_lower']:.3f}, {result['win_rate_upper']:.3f}] "
        f"| {result['margin_mean']:+.2f} [{result['margin_lower']:+.2f}, {result['margin_upper']:+.2f}] "
        f"| {result['max_steps_rate']:.4f} | `{cell(p['command'])}` "
        f"| {link(path, root)} ({p['date']}, {str(p['commit'])[:7]}, {cell(p['machine'])}) |"
    )


def manifest_row(agent, shown, source):
    if not shown:
        return f"| {agent} | | | no strength claim recorded | | | | |"
    win = f"{shown['win_rate']:.3f} [{shown['win_rate_lower']:.3f}, {shown['win_rate_upper']:.3f}]"
    return (
        f"| {agent} | {shown['opponent']} | {shown['games'] // 2:,} | {win} | {shown['margin_mean']:+.2f} "
        f"(no interval recorded) | not recorded | no results file in the repository | {source} |"
    )


def render(claims=None, root=ROOT):
    """docs/results.md's text for ``claims`` ((agent id, results file) pairs; ``CLAIMS`` by
    default), or a ClaimError."""
    claims = CLAIMS if claims is None else claims
    entries = read_json(root / AGENTS)["agents"]
    ids = [entry["id"] for entry in entries]
    for agent, file in claims:
        if agent not in ids:
            raise ClaimError(f"{root / file}: its agent {agent!r} is not shipped in {AGENTS}")
    rows = []
    for entry in entries:
        if "bot" in entry:  # a scripted level: its model serves the page's hints, its claim is not the bot's
            continue
        agent, shown = entry["id"], shown_strength(entry, root)
        files = [root / file for claimed, file in claims if claimed == agent]
        for path in files:
            result = read_result(path)
            check_shown(agent, path, result, shown)
            rows.append(claim_row(agent, path, result, root))
        if not files:
            source = f"web/public/{entry['manifest']}" if "search" not in entry else AGENTS
            rows.append(manifest_row(agent, shown, source))
    header = [
        "_Generated by `python tools/results_table.py`; do not edit by hand._",
        "",
        "# Results: the shipped agents' claims",
        "",
        f"Every agent of {AGENTS} with its strength claim: duplicate match3 on deal bank v1 (each deal",
        "played twice, seats swapped), the agent greedy. The win rate counts a draw as half a win, with",
        "its Wilson 95% interval over the games; the margin is the mean final match margin with a normal",
        "95% interval over the deals; the max-steps rate is the share of rounds that hit the step limit.",
        "These files predate the interval over deals (`win_rate_deal_lower/upper`, which results files",
        "now carry): a deal's two games are negatively correlated, so Wilson over the games is 11-20%",
        "wider than the right interval, a conservative claim (experiments/duplicate-intervals/).",
        "The command is the one recorded in the results file's `provenance` (run from the repository",
        "root); where it names a run dir under outputs/runs, the shipped model in web/public is that run's",
        "export (its manifest's `checkpoint`). For files made before provenance was recorded, the",
        "commit is the one that added the file. The search's claim is pooled from 500-deal parts",
        "(experiments/search-vs-expert/).",
        "",
        "| agent | opponent | deals | win rate [Wilson 95%] | margin [95%] | max-steps rate | command "
        "| results file (date, commit, machine) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    return "\n".join(header + rows) + "\n"


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
