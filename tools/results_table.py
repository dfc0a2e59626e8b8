"""Write docs/results.md: each shipped agent's strength claim, read from its results file.

Why this exists: a claim (a win rate with its interval, a margin, the deals it was measured on)
used to be copied by hand from an evaluation into READMEs, manifests and the page, and copies
drift. This script builds the one table of claims from the results files themselves, and only
from files that say how they were made (a ``provenance`` with the command, commit, date and
machine), so every number in docs/results.md can be traced to a file and reproduced by a command.
It also refuses a claim that the page shows differently (the model's manifest ``strength``, or the
search's ``strength`` in web/public/agents.json).

The page's second part is the lineage of every shipped network (each .onnx agents.json names as a
model or a search's belief): the chain of commands that rebuilds it from a fresh clone, read from
tools/lineage.yaml. A net without a chain, a step that starts from nothing an earlier step wrote, a
path a clone does not have (an absolute one, a run dir outside outputs/runs), or a last step that
does not write the net's file (under the name its manifest records) is an error too.

    python tools/results_table.py [--out docs/results.md]

The shipped agents are those of web/public/agents.json; ``CLAIMS`` below names the results file
behind each claim. An agent without one is listed with what its manifest records. A listed file
that is missing, lacks a field the table needs, or lacks its provenance is an error: the script
names the file and exits with status 1, writing nothing.
"""

import argparse
import json
import os
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
AGENTS = "web/public/agents.json"
OUT = "docs/results.md"
LINEAGE = "tools/lineage.yaml"

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


class LineageError(ClaimError):
    """tools/lineage.yaml does not hold; the message names the net and the step."""


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


NET_KEYS = ("net", "file", "about", "steps")
STEP_KEYS = ("what", "writes", "from", "source")
RUN_PLACES = ("outputs/runs/", "web/public/")  # where a step may write
ABSOLUTE = re.compile(r"(?:^|[\s='\"(\[,])/[A-Za-z]")  # a path from the machine's root, not the clone's
OUT_ARG = re.compile(r"\bout=(\S+)")
NAME_ARG = re.compile(r"'name=\"([^\"]*)\"'")
EVALUATION_ARG = re.compile(r"\bevaluation=(\S+)")


def shipped_files(entries):
    """Each .onnx agents.json ships (``web/public/<file>``) with the ids that use it: as the model,
    or as the belief of the agent's search."""
    files = {}
    for entry in entries:
        model, belief = entry.get("model"), entry.get("search", {}).get("belief")
        if model:
            files.setdefault(f"web/public/{model}", []).append(f"`{entry['id']}`")
        if belief:
            files.setdefault(f"web/public/{belief}", []).append(f"`{entry['id']}` (its search's belief)")
    return files


def check_step(at, step, net, written, root):
    """One step of a chain: its fields, its paths, what it starts from; the last one writes the file."""
    missing = [key for key in STEP_KEYS if not step.get(key)]
    if not isinstance(step.get("recorded"), bool):
        missing.append("recorded (true or false)")
    elif not step["recorded"] and not step.get("nearest"):
        missing.append("nearest (the nearest recorded command)")
    if missing:
        raise LineageError(f"{at}: lacks {', '.join(missing)}")
    for key in ("command", "nearest", "writes", "from"):
        if ABSOLUTE.search(step.get(key) or ""):
            raise LineageError(
                f"{at}: its {key} names an absolute path; a clone has outputs/runs/... and repo paths"
            )
    if not step["writes"].startswith(RUN_PLACES):
        raise LineageError(f"{at}: writes {step['writes']}, outside {' and '.join(RUN_PLACES)}")
    if not step["from"].startswith("nothing") and not any(path in step["from"] for path in written):
        raise LineageError(f"{at}: starts from {step['from']!r}, which no earlier step writes")
    if step["writes"] != net["file"]:
        return
    command = step.get("command") or ""
    out = OUT_ARG.search(command)
    if not out or out.group(1) != net["file"]:
        raise LineageError(f"{at}: writes {net['file']}, but its command's out= is not that file")
    name = NAME_ARG.search(command)
    manifest = read_json(root / Path(net["file"]).with_suffix(".json"))
    if name and name.group(1) != manifest.get("name"):
        raise LineageError(
            f"{at}: exports the name {name.group(1)!r}; the manifest's is {manifest.get('name')!r}"
        )
    evaluation = EVALUATION_ARG.search(command)
    if evaluation and not (root / evaluation.group(1)).is_file():
        raise LineageError(f"{at}: its evaluation={evaluation.group(1)} is not a file of the repository")


def read_lineage(entries, root):
    """The nets of tools/lineage.yaml, checked: one chain for every shipped .onnx, in order."""
    path = root / LINEAGE
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise LineageError(f"{path}: {error}") from error
    nets = data.get("nets") if isinstance(data, dict) else None
    if not isinstance(nets, list):
        raise LineageError(f"{path}: lacks the list `nets`")
    shipped, written, done = shipped_files(entries), [], []
    for net in nets:
        where = f"{path}: {net.get('net')!r}"
        missing = [key for key in NET_KEYS if not net.get(key)]
        if missing:
            raise LineageError(f"{where}: lacks {', '.join(missing)}")
        if net["file"] not in shipped:
            raise LineageError(f"{where}: {net['file']} is not shipped in {AGENTS}")
        if net["file"] in [other["file"] for other in done]:
            raise LineageError(f"{where}: {net['file']} has a chain already")
        after = net.get("after")
        if after is not None and (after not in [other["net"] for other in done] or not net.get("first")):
            raise LineageError(
                f"{where}: after={after!r} must be a net above it, with `first` (what to rebuild)"
            )
        for i, step in enumerate(net["steps"], 1):
            check_step(f"{where} step {i}", step, net, written, root)
            written.append(step["writes"])
        if net["steps"][-1]["writes"] != net["file"]:
            raise LineageError(f"{where}: its last step must write {net['file']}")
        done.append(net)
    unlisted = sorted(set(shipped) - {net["file"] for net in nets})
    if unlisted:
        raise LineageError(f"{path}: no chain for {', '.join(unlisted)}")
    return nets


LINEAGE_INTRO = (
    "## Lineage: rebuilding each shipped net from a clone",
    "",
    f"Every network {AGENTS} ships (a model, or a search's belief), with the chain of commands that",
    "rebuilds it from a fresh clone: `pip install -e '.[dev]'`, then each step from the repository root",
    f"({LINEAGE} holds the chains). A step writes under outputs/runs, in a run dir named as the original",
    "run where its manifest's `checkpoint` or a results file records the name, and names the earlier",
    "output it starts from; a net built on another shipped net starts with that net's chain above. The",
    "CPU time is what the repository records, on the 2-core x86_64 CPU its runs used (idle unless said).",
    "*Recorded* names the file that records the command as it ran. *Not recorded* says so and gives the",
    "nearest recorded command; the command in the table is then that command's form filled in from the",
    "net's manifest (its `checkpoint`, its `name`, the results file its `strength` equals): what the",
    "files say was done, not a command that was run.",
    "",
    "- A rebuild is the same recipe, not the same bytes: the same commands and seeds repeat exactly on",
    "  one machine and only in kind on another (XLA's CPU kernels need not give bit-identical floats:",
    "  experiments/strong-recipe/), and the code has changed since the earlier runs.",
    "- An export refuses to replace a file: a clone has the shipped ones, so add `overwrite=true` (or",
    "  write under outputs/ and compare).",
    "- A chain that starts from web/public/<net>.onnx can start from the file the clone already has,",
    "  instead of rebuilding that net first.",
    "",
)


def lineage_section(nets, entries):
    """docs/results.md's lineage: an overview, then each net's chain as a table of steps."""
    shipped = shipped_files(entries)
    lines = list(LINEAGE_INTRO)
    lines += ["| net | file | shipped as | built on | steps | commands recorded as run |", "| --- " * 6 + "|"]
    for net in nets:
        recorded, steps, users = (
            sum(s["recorded"] for s in net["steps"]),
            len(net["steps"]),
            shipped[net["file"]],
        )
        lines.append(
            f"| {net['net']} | {net['file']} | {', '.join(users)} | {net.get('after') or 'nothing'} "
            f"| {steps} | {recorded} of {steps} |"
        )
    for net in nets:
        lines += [
            "",
            f"### {net['net']}",
            "",
            f"`{net['file']}`, shipped as {', '.join(shipped[net['file']])}. {net['about']}",
        ]
        if net.get("after"):
            lines += ["", f"First rebuild {net['first']}; then:"]
        lines += [
            "",
            "| step | command | writes | starts from | CPU time | how the command is recorded |",
            "| --- " * 6 + "|",
        ]
        for i, step in enumerate(net["steps"], 1):
            command = f"`{cell(step['command'])}`" if step.get("command") else "not recorded"
            if step["recorded"]:
                record = f"recorded: {step['source']}"
            else:
                record = (
                    f"not recorded; the nearest recorded command is `{step['nearest']}`: {step['source']}"
                )
            if step.get("note"):
                record += f". {step['note']}"
            lines.append(
                f"| {i}. {cell(step['what'])} | {command} | `{step['writes']}` | {cell(step['from'])} "
                f"| {cell(step.get('time') or 'not recorded')} | {cell(record)} |"
            )
    return lines


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
    lineage = lineage_section(read_lineage(entries, root), entries)
    return "\n".join(header + rows + [""] + lineage) + "\n"


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
