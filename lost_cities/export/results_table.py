"""docs/results.md: each shipped agent's strength claim, read from its results file, and the
lineage of every shipped network (``python tools/results_table.py``; ``python -m lost_cities.ship``
writes it too, from the same code).

Why this exists: a claim (a win rate with its interval, a margin, the deals it was measured on)
used to be copied by hand from an evaluation into READMEs, manifests and the page, and copies
drift. The one table of claims is built from the results files themselves, and only from files
that say how they were made (a ``provenance`` with the command, commit, date and machine), so
every number in docs/results.md can be traced to a file and reproduced by a command. A claim that
the page shows differently (the model's manifest ``strength``, or the search's ``strength`` in
web/public/agents.json) is refused.

The second part is the lineage of every shipped network (each .onnx agents.json names as a model
or a search's belief): the chain of commands that rebuilds it from a fresh clone, read from
tools/lineage.yaml. A net without a chain, a step that starts from nothing an earlier step wrote, a
path a clone does not have (an absolute one, a run dir outside outputs/runs), or a last step that
does not write the net's file (under the name its manifest records) is an error too.

The shipped agents are those of web/public/agents.json; tools/claims.yaml names the results files
behind each agent's claims (:func:`read_claims`). An agent without one is listed with what its
manifest records. A listed file that is missing, lacks a field the table needs, or lacks its
provenance is a :class:`ClaimError` naming the file.

Every file is read through a :class:`Tree`: the repository at its root, or the repository as a
ship is about to leave it (its staged files read in place of the root's), so the table is checked
before anything is written.
"""

import json
import os
import re
from pathlib import Path

import yaml

PAGE = "web/public"
AGENTS = f"{PAGE}/agents.json"
OUT = "docs/results.md"
LINEAGE = "tools/lineage.yaml"
EXPLOITS = "experiments/exploitability/results"  # exploit.json files (python -m lost_cities.exploit)
CLAIMS = "tools/claims.yaml"
CLAIMS_HEADER = """\
# Each shipped agent's strength claims: the agent's id in web/public/agents.json, then the results
# files behind its claims (relative to the repository root), one per opponent, in the order
# docs/results.md lists them. tools/results_table.py reads this file (docs/results.md: "Results");
# python -m lost_cities.ship adds the claims of the agent it ships.
"""


class Tree:
    """The repository's files: ``root``, with the files under ``overlay`` (at the same relative
    paths) read in place of the root's, when given. :meth:`path` is where to read a file."""

    def __init__(self, root, overlay=None):
        self.root = Path(root)
        self.overlay = None if overlay is None else Path(overlay)

    def path(self, relative):
        """Where the repository's file ``relative`` is read from (an absolute path as it is)."""
        relative = Path(relative)
        if self.overlay is not None and not relative.is_absolute() and (self.overlay / relative).exists():
            return self.overlay / relative
        return self.root / relative


def read_claims(path):
    """``((agent id, results file), ...)`` from a claims file (tools/claims.yaml), in its order."""
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ClaimError(f"{path}: {error}") from error
    if not isinstance(data, dict) or not all(
        isinstance(files, list) and all(isinstance(f, str) for f in files) for files in data.values()
    ):
        raise ClaimError(f"{path}: not a mapping of agent id -> list of results files")
    return tuple((agent, file) for agent, files in data.items() for file in files)


def claims_text(claims):
    """tools/claims.yaml's text for ``claims`` ((agent id, results file) pairs), grouped by agent."""
    grouped = {}
    for agent, file in claims:
        grouped.setdefault(agent, []).append(str(file))
    return CLAIMS_HEADER + yaml.safe_dump(grouped, sort_keys=False, width=200)


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


def read_json(path, named=None):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ClaimError(f"{named or path}: {error}") from error


def read_result(path, named=None):
    """The results dict at ``path``, checked for every field the table shows and its provenance
    (``named``: the path an error names, where the file is read from elsewhere)."""
    result = read_json(path, named)
    path = named or path
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


def shown_strength(entry, tree):
    """What the page shows for an agents.json entry: its search's strength, else its manifest's."""
    if "search" in entry:
        return entry["search"].get("strength")
    return read_json(tree.path(f"{PAGE}/{entry['manifest']}")).get("strength")


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
    """A link from docs/results.md to ``path`` (where the repository keeps it)."""
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


def check_step(at, step, net, written, tree):
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
    manifest = read_json(tree.path(Path(net["file"]).with_suffix(".json")))
    if name and name.group(1) != manifest.get("name"):
        raise LineageError(
            f"{at}: exports the name {name.group(1)!r}; the manifest's is {manifest.get('name')!r}"
        )
    evaluation = EVALUATION_ARG.search(command)
    if evaluation and not tree.path(evaluation.group(1)).is_file():
        raise LineageError(f"{at}: its evaluation={evaluation.group(1)} is not a file of the repository")


def read_lineage(entries, tree, lineage=LINEAGE):
    """The nets of ``lineage`` (tools/lineage.yaml), checked: one chain for every shipped .onnx, in order."""
    path = tree.path(lineage)
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
            check_step(f"{where} step {i}", step, net, written, tree)
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


def _span(low, high, digits, sign=""):
    return "n/a" if low is None else f"[{low:{sign}.{digits}f}, {high:{sign}.{digits}f}]"


def exploit_row(path, result, root):
    """One best response's result: its win rate and margin against the agent, its gain on its start."""
    r, g, p = result, result["gain"], result["provenance"]
    return (
        f"| {cell(r['agent'])} | {r['budget']['updates']:,} | {r['seed']} | {r['deals']:,} "
        f"| {r['win_rate']:.3f} {_span(r['win_rate_deal_lower'], r['win_rate_deal_upper'], 3)} "
        f"| {r['margin_mean']:+.2f} {_span(r['margin_lower'], r['margin_upper'], 2, '+')} "
        f"| {g['margin_diff']:+.2f} {_span(g['margin_diff_lower'], g['margin_diff_upper'], 2, '+')} "
        f"| `{cell(p['command'])}` | {link(path, root)} ({p['date']}, {str(p['commit'])[:7]}) |"
    )


def exploit_section(root):
    """How exploitable the agents are: every exploit.json in :data:`EXPLOITS`, by agent and budget."""
    files = sorted((Path(root) / EXPLOITS).glob("*.json"))
    if not files:
        return []
    results = [(path, read_json(path)) for path in files]
    results.sort(key=lambda pr: (pr[1]["agent"], pr[1]["budget"]["updates"], pr[1]["seed"]))
    return [
        "## Exploitability",
        "",
        "An approximate best response (`python -m lost_cities.exploit`: PPO against the agent, frozen, from",
        "the agent's own network) and how much it wins from the agent, greedy, on fresh duplicate deals",
        "(bank v1 from 50,000); the gain is its paired margin over its start, the agent's own net.",
        "A best response near 0.5 says this learner found nothing to exploit at that budget, a lower",
        "bound on exploitability, not its value (experiments/exploitability/).",
        "",
        "| agent | updates | seed | deals | best response's win rate [95% over deals] | margin [95%] "
        "| gain over its start [95%] | command | results file (date, commit) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *(exploit_row(path, result, Path(root)) for path, result in results),
        "",
        *search_response_section(root),
    ]


def search_response_row(path, result, root):
    """One search response: the search on the agent's net against the agent, its win rate and margin."""
    r, p = result, result["provenance"]
    return (
        f"| {cell(r['opponent'])} | {cell(r['agent'])} | {r['deals']:,} "
        f"| {r['win_rate']:.3f} {_span(r['win_rate_deal_lower'], r['win_rate_deal_upper'], 3)} "
        f"| {r['margin_mean']:+.2f} {_span(r['margin_lower'], r['margin_upper'], 2, '+')} "
        f"| {r['max_steps_rate']:.3f} | {r['seconds'] / 60:.0f} "
        f"| `{cell(p['command'])}` | {link(path, root)} ({p['date']}, {str(p['commit'])[:7]}) |"
    )


def search_response_section(root):
    """The responses that need no training: every evaluation in :data:`EXPLOITS`/search."""
    files = sorted((Path(root) / EXPLOITS / "search").glob("*.json"))
    if not files:
        return []
    results = sorted(((path, read_json(path)) for path in files), key=lambda pr: pr[1]["opponent"])
    return [
        "The search on the agent's net (`python -m lost_cities.evaluate agent=search/<preset>:<net>`), which",
        "rolls both seats out with that net, against the agent, on the same deal range: it models a net",
        "agent exactly (the approximate best response with search of Timbers et al.), and a search agent",
        "as its net. Minutes are the evaluation's wall time on the 2-core CPU.",
        "",
        "| agent | response | deals | its win rate [95% over deals] | margin [95%] | max-steps rate "
        "| minutes | command | results file (date, commit) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *(search_response_row(path, result, Path(root)) for path, result in results),
        "",
    ]


def render(claims, root=".", lineage=LINEAGE, overlay=None):
    """docs/results.md's text for ``claims`` ((agent id, results file) pairs, the files relative to
    ``root`` or absolute) and the chains of ``lineage``; ``overlay``: a dir whose files are read in
    place of ``root``'s (:class:`Tree`). Raises a ClaimError (a LineageError for the lineage)."""
    root = Path(root)
    tree = Tree(root, overlay)
    entries = read_json(tree.path(AGENTS))["agents"]
    ids = [entry["id"] for entry in entries]
    for agent, file in claims:
        if agent not in ids:
            raise ClaimError(f"{root / file}: its agent {agent!r} is not shipped in {AGENTS}")
    rows = []
    for entry in entries:
        if "bot" in entry:  # a scripted level: its model serves the page's hints, its claim is not the bot's
            continue
        agent, shown = entry["id"], shown_strength(entry, tree)
        files = [file for claimed, file in claims if claimed == agent]
        for file in files:
            path = root / file
            result = read_result(tree.path(file), path)
            check_shown(agent, path, result, shown)
            rows.append(claim_row(agent, path, result, root))
        if not files:
            source = f"{PAGE}/{entry['manifest']}" if "search" not in entry else AGENTS
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
    lineage_lines = lineage_section(read_lineage(entries, tree, lineage), entries)
    return "\n".join(header + rows + [""] + exploit_section(root) + lineage_lines) + "\n"
