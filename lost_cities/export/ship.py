"""The page's files as a ship changes them (``python -m lost_cities.ship``, :mod:`lost_cities.cli.ship`):
which agent a spec puts on the page and what it replaces, the agent index with the agent placed at
a level, a claim that is still fresh, tools/claims.yaml and tools/lineage.yaml with the agent's
entries, and a :class:`Stage` that holds every file a ship writes until all of them are ready,
then writes them into the repository, the page's last and agents.json the very last.

Nothing here plays a game; every function is checked by tests/cli/test_ship.py on small inputs.
"""

import dataclasses
import hashlib
import json
import os
import re
from pathlib import Path

import yaml

from lost_cities import bots
from lost_cities.export.results_table import AGENTS, PAGE, ClaimError, check_step
from lost_cities.policies import is_search
from lost_cities.search.belief import locate
from lost_cities.search.config import load_preset

SEARCH_PRESET = "belief"  # the search the page runs (web/README.md "Search mode")
SEARCH_HEAD = f"search/{SEARCH_PRESET}:"
ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")  # the page's rule for an agent id (web/README.md)
LINEAGE_STEP_KEYS = ("what", "command", "writes", "from", "time", "recorded", "source")


class Refused(ValueError):
    """The agent is not better, paired, than the one it would replace: nothing is written."""


@dataclasses.dataclass(frozen=True)
class Agent:
    """What a ship puts on the page: ``spec`` (as the tournament and the claims name it:
    ``web/public/<model>`` or ``search/belief:web/public/<model>``), its ``model`` file in
    web/public, the ``checkpoint`` it is exported from (None: the model is shipped already) and,
    for a search, the ``belief`` (the preset's) and the file the page reads it from."""

    spec: str
    model: str
    checkpoint: str | None = None
    belief: str | None = None
    belief_file: str | None = None

    @property
    def search(self):
        return self.belief is not None


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def shipped_model(text, root):
    """The file name of the net in ``root``'s web/public that ``text`` names (``web/public/x.onnx``,
    ``x.onnx`` or a path to it), or None."""
    path = Path(text)
    page = (Path(root) / PAGE).resolve()
    named = path.parent in (Path(), Path(PAGE)) or path.resolve().parent == page
    if path.suffix == ".onnx" and named and (page / path.name).is_file():
        return path.name
    return None


def read_agent(text, root, id_=None):
    """The :class:`Agent` of ``agent=<text>`` and its page id (``id_``, else a default), or a
    ValueError naming what is wrong: a net shipped in web/public, a checkpoint or run dir (exported
    as ``web/public/<id>.onnx``), or ``search/belief:<a net shipped in web/public>``."""
    text = str(text)
    if is_search(text):
        if not text.startswith(SEARCH_HEAD):
            raise ValueError(
                f"agent={text}: the page runs one search, the preset {SEARCH_PRESET!r}; "
                f"write {SEARCH_HEAD}<net>"
            )
        base = text[len(SEARCH_HEAD) :]
        model = shipped_model(base, root)
        if model is None:
            raise ValueError(
                f"agent={text}: a search's net must be shipped in {Path(root) / PAGE} "
                "(web/public/<net>.onnx); ship the net first, or export it there"
            )
        belief = load_preset(SEARCH_PRESET).belief
        locate(belief)  # a FileNotFoundError naming it when the preset's belief is not there
        belief_file = f"{Path(belief).stem}-belief.onnx"
        agent = Agent(f"{SEARCH_HEAD}{PAGE}/{model}", model, belief=belief, belief_file=belief_file)
        return agent, id_ or f"{Path(model).stem}-search"
    if text in bots.BOTS:
        raise ValueError(f"agent={text}: a bot is played by the page's own code; ship a net or a search")
    model = shipped_model(text, root)
    if model is not None:
        return Agent(f"{PAGE}/{model}", model), id_
    if text.endswith(".onnx"):
        raise ValueError(
            f"agent={text}: not a model in {Path(root) / PAGE}; give the checkpoint it was exported "
            "from (the ship exports it), or a net shipped in web/public"
        )
    if not Path(text).is_dir():
        raise ValueError(
            f"agent={text}: neither a checkpoint or run dir, nor a net in web/public "
            f"(web/public/<net>.onnx), nor {SEARCH_HEAD}<net>"
        )
    if id_ is None:
        raise ValueError(f"agent={text} is a checkpoint: give the page's id for it (id=<name>)")
    return Agent(f"{PAGE}/{id_}.onnx", f"{id_}.onnx", checkpoint=text), id_


def level_index(index, level):
    """The position in ``index['agents']`` of the ladder level named ``level``, or a ValueError
    listing the levels."""
    names = [entry["level"]["name"] for entry in index["agents"] if entry.get("level")]
    for i, entry in enumerate(index["agents"]):
        if entry.get("level", {}).get("name") == level:
            return i
    raise ValueError(f"level={level!r} is not a level of {AGENTS}; the levels: {', '.join(names)}")


def entry_for(agent, id_):
    """The agents.json entry of ``agent`` under ``id_`` (without its level)."""
    manifest = f"{Path(agent.model).stem}.json"
    entry = {"id": id_, "model": agent.model, "manifest": manifest}
    if agent.search:
        entry["search"] = {"belief": agent.belief_file}
    return entry


def check_id(index, agent, id_, at):
    """``id_`` is a page id and, where the index lists it already, the same agent (not a level
    other than position ``at``'s); a ValueError otherwise."""
    if not isinstance(id_, str) or not ID.match(id_):
        raise ValueError(f"id={id_!r}: letters, digits, '.', '_' and '-', at most 64 (the page's ids)")
    for i, entry in enumerate(index["agents"]):
        if entry["id"] != id_:
            continue
        same = entry.get("model") == agent.model and "bot" not in entry
        same = same and entry.get("search", {}).get("belief") == agent.belief_file
        if not same:
            raise ValueError(f"id={id_} is already another agent in {AGENTS}; choose another id")
        if i == at:
            raise ValueError(f"{id_} is already the level {entry['level']['name']!r}")
        if entry.get("level"):
            raise ValueError(f"{id_} is already the level {entry['level']['name']!r}; a ship fills one level")


def placed(index, agent, id_, level, about=None, strength=None):
    """``index`` with ``agent`` (as ``id_``) at ``level``: the new entry takes the level's place and
    its ``level`` (``about`` replacing its line when given, ``rated_as`` its spec); the agent it
    replaces stays listed, off the ladder, right after the ladder's levels. A search's entry carries
    ``strength`` (the page shows it). An entry the index lists already under ``id_`` is moved."""
    agents = [dict(entry) for entry in index["agents"]]
    at = level_index(index, level)
    check_id(index, agent, id_, at)
    old = agents[at]
    entry = next((dict(e) for e in agents if e["id"] == id_), None) or entry_for(agent, id_)
    if agent.search:
        entry["search"] = {**entry.get("search", {}), "belief": agent.belief_file}
        if strength is not None:
            entry["search"]["strength"] = strength
    entry["level"] = {**old["level"], "rated_as": agent.spec, **({"about": about} if about else {})}
    replaced = {k: v for k, v in old.items() if k != "level"}
    agents[at] = entry
    agents = [e for i, e in enumerate(agents) if not (e["id"] == id_ and i != at)]
    last_level = max(i for i, e in enumerate(agents) if e.get("level"))
    agents.insert(last_level + 1, replaced)
    out = {**index, "agents": agents}
    if index.get("default") == old["id"]:
        out["default"] = id_
    return out


def search_strength(results, source):
    """The search's ``strength`` in agents.json from its claim (as tests/agents.test.ts holds it)."""
    return {
        "opponent": results["opponent"],
        "games": results["games"],
        "win_rate": round(results["win_rate"], 3),
        "win_rate_lower": round(results["win_rate_lower"], 3),
        "win_rate_upper": round(results["win_rate_upper"], 3),
        "margin_mean": round(results["margin_mean"], 1),
        "draws": results["draws"],
        "source": source,
    }


def fingerprint(spec, where):
    """What an agent's games depend on beyond its spec: the digest of its model file (``where``:
    the dir the spec's paths are read from), and for a search the belief's digest and the preset's
    knobs; a bot's name."""
    spec = str(spec)
    if spec in bots.BOTS:
        return {"bot": spec}
    if is_search(spec):
        head, base = spec.split(":", 1)
        preset = load_preset(head.split("/", 1)[1] if "/" in head else "default")
        knobs = dataclasses.asdict(preset)
        belief = None if preset.belief is None else sha256(locate(preset.belief))
        return {"search": knobs, "belief_sha256": belief, **fingerprint(base, where)}
    return {"model_sha256": sha256(Path(where) / spec)}


def fresh_claim(dirs, settings):
    """``(path, results)`` of a results file in ``dirs`` made with exactly ``settings`` (the claim's
    ``ship.settings``: specs, deals, bank, seed and the agents' fingerprints), or None."""
    settings = json.loads(json.dumps(settings))  # as a results file holds them (a tuple is a list)
    for directory in dirs:
        for path in sorted(Path(directory).glob("*.json")) if Path(directory).is_dir() else ():
            try:
                results = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError):
                continue
            if isinstance(results, dict) and results.get("ship", {}).get("settings") == settings:
                return path, results
    return None


def claim_name(id_, opponent, deals, first_deal):
    """A claim's file name: ``<id>_vs_<opponent>_<deals>[_from<first deal>].json``."""
    return f"{id_}_vs_{opponent}_{deals}{f'_from{first_deal}' if first_deal else ''}.json"


def claims_with(claims, id_, new, opponent_of):
    """tools/claims.yaml's pairs with ``new`` ((results file, opponent) of ``id_``) in place of
    ``id_``'s earlier claims against the same opponents (``opponent_of(file)``: an earlier file's)."""
    opponents = {opponent for _, opponent in new}
    kept = [(a, f) for a, f in claims if not (a == id_ and opponent_of(f) in opponents)]
    return (*kept, *((id_, file) for file, _ in new))


def lineage_entry(chain, net, file, export_step):
    """A tools/lineage.yaml net for ``file``: ``chain`` (the YAML the ship's ``lineage=`` names: the
    net's ``about``, optional ``after`` and ``first``, and the ``steps`` that made the checkpoint)
    with the ship's ``export_step`` last; a ValueError naming what the chain lacks."""
    if not isinstance(chain, dict) or not chain.get("about") or not isinstance(chain.get("steps"), list):
        raise ValueError("lineage: a mapping with `about` and `steps` (tools/lineage.yaml's form of a net)")
    return {
        "net": chain.get("net") or net,
        "file": file,
        "after": chain.get("after"),
        **({"first": chain["first"]} if chain.get("first") else {}),
        "about": chain["about"],
        "steps": [*chain["steps"], export_step],
    }


def check_chain(entry, lineage_text, tree):
    """The chain's own steps (all but the ship's export) hold as docs/results.md checks them, each
    starting from nothing or from what a step above writes (tools/lineage.yaml's nets first)."""
    nets = (yaml.safe_load(lineage_text) or {}).get("nets") or []
    written = [step["writes"] for net in nets for step in net.get("steps", [])]
    for i, step in enumerate(entry["steps"][:-1], 1):
        if not isinstance(step, dict):
            raise ValueError(f"lineage: step {i} is not a mapping of {', '.join(LINEAGE_STEP_KEYS)}")
        try:
            check_step(f"lineage: {entry['net']!r} step {i}", step, entry, written, tree)
        except ClaimError as error:
            raise ValueError(str(error)) from error
        written.append(step["writes"])


def lineage_with(lineage_text, entry):
    """tools/lineage.yaml's text with ``entry`` appended to its ``nets`` (the file's text and order
    kept as they are)."""
    block = yaml.safe_dump([entry], sort_keys=False, width=100, allow_unicode=True)
    item = re.search(r"^( *)- ", lineage_text.split("nets:", 1)[-1], re.MULTILINE)
    indent = item.group(1) if item else "  "  # as the file indents its nets
    lines = block.splitlines(keepends=True)
    indented = "".join(f"{indent}{line}" if line.strip() else line for line in lines)
    return lineage_text.rstrip("\n") + "\n\n" + indented


def json_text(data):
    """The page's and the repository's JSON layout: two-space indent, a final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


class Stage:
    """Every file a ship writes, held under ``dir`` (at its path relative to the repository) until
    :meth:`commit` writes them all into ``root``."""

    def __init__(self, directory, root):
        self.dir, self.root = Path(directory), Path(root)

    def write(self, relative, data):
        path = self.dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink():
            path.unlink()
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path

    def files(self):
        """The staged files, relative, in the order :meth:`commit` writes them: the repository's
        first, then the page's (models, then manifests and ratings, agents.json last)."""
        staged = [p.relative_to(self.dir) for p in self.dir.rglob("*") if p.is_file() and not p.is_symlink()]

        def order(path):
            page = path.parts[: len(Path(PAGE).parts)] == Path(PAGE).parts
            return (
                page,
                page and path.as_posix() == AGENTS,
                page and path.suffix != ".onnx",
                path.as_posix(),
            )

        return sorted(staged, key=order)

    def changed(self):
        """The staged files whose content differs from the repository's."""

        def same(relative):
            target = self.root / relative
            return target.is_file() and target.read_bytes() == (self.dir / relative).read_bytes()

        return [relative for relative in self.files() if not same(relative)]

    def commit(self):
        """Write every changed file into the repository, each atomically (a temporary file beside
        it, then a rename); returns them."""
        written = self.changed()
        for relative in written:
            target = self.root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.name}.ship-{os.getpid()}")
            temporary.write_bytes((self.dir / relative).read_bytes())
            os.replace(temporary, target)
        return written
