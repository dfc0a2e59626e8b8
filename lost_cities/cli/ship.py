"""``python -m lost_cities.ship agent=<spec> level=<name>``: put an agent on the web page.

One command for what shipping an agent took by hand (conf/cli/ship.yaml holds every knob):

1. **Checks**, before any game: the level is one of the page's ladder (web/public/agents.json),
   the agent a net (a checkpoint, or a net shipped in web/public) or the page's search on a
   shipped net (``search/belief:web/public/<net>.onnx``), its id free or the same agent's, the
   tournament's ratings there, and a chain for every new .onnx (tools/lineage.yaml, or ``lineage=``).
2. **Export**, into the run dir: a checkpoint as ONNX and manifest (:func:`lost_cities.export.export`),
   a search's belief as ONNX where the page lacks it (:func:`lost_cities.export.belief.export_onnx`).
   An .onnx the page has already must be the same bytes.
3. **Claims**: the agent against each scripted anchor (``claims.net`` or ``claims.search``: deals and
   opponents) on deals from ``claims.first_deal``, the first paired over the agent the level has now
   (evaluate's ``baseline=``). A claim made before with the same settings and the same files (by
   digest) is reused. If the paired margin's interval is not above 0 the ship is refused: an error,
   and nothing written under ``root``.
4. **Tournament**: the agent joins the ladder's all-play-all (:func:`lost_cities.cli.tournament.all_play_all`)
   with every earlier pair file reused, so only its own pairs are played; its pairs with the levels
   just below and above play at least ``tournament.level_deals`` deals.
5. **Writes**, once everything is ready and checked (docs/results.md is rendered from the files as
   they will be): the claims, tools/claims.yaml, tools/lineage.yaml, the tournament's ratings and new
   pairs, docs/results.md, then web/public (the model and manifest, ratings.json, and agents.json
   last: the agent at the level, the agent it replaces still listed off the ladder), each file
   atomically. The run dir keeps ``ship.json`` (what was reused, played and written), the claims,
   the pairs and the staged files.
"""

import contextlib
import json
from pathlib import Path

import hydra
import yaml
from hydra.core.hydra_config import HydraConfig
from omegaconf import OmegaConf

from lost_cities.cli import CLI_CONF
from lost_cities.cli.evaluate import quiet_libraries, removing_empty_run_dir
from lost_cities.cli.tournament import all_play_all, play_pair, ratings_markdown, slug
from lost_cities.evaluation.deals import check_bank
from lost_cities.evaluation.matchup import run
from lost_cities.evaluation.provenance import command, provenance
from lost_cities.export import export
from lost_cities.export.belief import export_onnx
from lost_cities.export.ladder import read_pairs, steps, steps_table
from lost_cities.export.onnx import strength_from_results
from lost_cities.export.results_table import (
    ABSOLUTE,
    AGENTS,
    CLAIMS,
    LINEAGE,
    OUT,
    PAGE,
    Tree,
    claims_text,
    read_claims,
    render,
)
from lost_cities.export.ship import (
    Refused,
    Stage,
    check_chain,
    check_id,
    claim_name,
    claims_with,
    fingerprint,
    fresh_claim,
    json_text,
    level_index,
    lineage_entry,
    lineage_with,
    placed,
    read_agent,
    search_strength,
    sha256,
)
from lost_cities.policies import is_search
from lost_cities.search.belief import load as load_belief


def whole(value, key, least=1):
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise ValueError(f"{key}={value!r} must be a whole number >= {least}")
    return value


def under_root(cfg_value, key):
    """A path under the root (relative, no ``..``), else a ValueError naming ``key``."""
    path = Path(str(cfg_value))
    if path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{key}={cfg_value}: a path under root, relative to it")
    return path


def ladder_players(table):
    """The earlier tournament's players in its order (its pairs are the combinations of that
    order, so its pair files keep their names), from its ratings table."""
    by_slug = {slug(row["player"]): row["player"] for row in table["players"]}
    names = [Path(pair["file"]).stem.split("__") for pair in table["pairs"]]
    first = names[0][0] if names else None
    order = [first, *(b for a, b in names if a == first)]
    if sorted(order) != sorted(by_slug):
        return [row["player"] for row in table["players"]]
    return [by_slug[name] for name in order]


def checkpoint_path(text):
    """A checkpoint as the lineage names it: relative to where the command runs."""
    path = Path(text)
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd()).as_posix()
        except ValueError as error:
            raise ValueError(
                f"agent={text}: give the checkpoint as a path under the repository (outputs/runs/...), "
                "as its lineage names it"
            ) from error
    return path.as_posix()


def check(cfg):
    """Every input checked before any work: the plan of the ship, as a dict."""
    root = Path(cfg.root).resolve()
    if not (root / AGENTS).is_file():
        raise FileNotFoundError(f"root={cfg.root}: no {AGENTS} there")
    index = json.loads((root / AGENTS).read_text())
    at = level_index(index, cfg.level)
    agent, id_ = read_agent(cfg.agent, root, cfg.id)
    if id_ is None:  # a shipped net: its entry's id, else its file's name
        nets = [e for e in index["agents"] if not {"bot", "search"} & set(e)]
        same = [e["id"] for e in nets if e.get("model") == agent.model]
        id_ = same[0] if same else Path(agent.model).stem
    check_id(index, agent, id_, at)
    replaced = index["agents"][at]["level"]["rated_as"]
    if replaced == agent.spec:
        raise ValueError(f"{agent.spec} is already the level {cfg.level!r}")
    kind = "search" if agent.search else "net"
    opponents = [str(o) for o in cfg.claims[kind].opponents]
    if not opponents or len(set(opponents)) != len(opponents):
        raise ValueError(f"claims.{kind}.opponents={opponents}: one or more distinct opponents")
    tournament_dir = root / under_root(cfg.tournament.dir, "tournament.dir")
    if not (tournament_dir / "ratings.json").is_file():
        raise FileNotFoundError(f"tournament.dir={cfg.tournament.dir}: no ratings.json under {root}")
    ratings = json.loads((tournament_dir / "ratings.json").read_text())
    rated = {row["player"] for row in ratings["players"]}
    ladder = [e for e in index["agents"] if e.get("level")]
    position = [e["id"] for e in ladder].index(index["agents"][at]["id"])
    beside = [e["level"]["rated_as"] for e in ladder[max(position - 1, 0) : position + 2]]
    unrated = [spec for spec in beside if spec != replaced and spec not in rated]
    if unrated:
        raise ValueError(
            f"the levels beside {cfg.level!r} are rated as {unrated}, which the tournament's players "
            f"({tournament_dir / 'ratings.json'}) lack"
        )
    searching = agent.search or is_search(replaced)
    deals = whole(cfg.claims[kind].deals, f"claims.{kind}.deals")
    paired = "search" if searching else kind
    paired_deals = whole(cfg.claims[paired].deals, f"claims.{paired}.deals")
    first_deal = whole(cfg.claims.first_deal, "claims.first_deal", 0)
    for n in (deals, paired_deals):
        check_bank(n, ratings["bank"], first_deal)
    for key in ("deals", "slow_deals", "level_deals"):
        whole(cfg.tournament[key], f"tournament.{key}")
    whole(cfg.batch_size, "batch_size")
    claims = [
        {"opponent": o, "baseline": replaced if i == 0 else None, "deals": paired_deals if i == 0 else deals}
        for i, o in enumerate(opponents)
    ]
    under_root(cfg.claims.dir, "claims.dir")
    lineage_text = (root / LINEAGE).read_text()
    chained = {net["file"] for net in (yaml.safe_load(lineage_text) or {}).get("nets") or []}
    new_file = None  # the .onnx this ship exports that no chain of tools/lineage.yaml writes yet
    exported = {agent.model: bool(agent.checkpoint), agent.belief_file: agent.search}
    for name, exports in exported.items():
        file = f"{PAGE}/{name}"
        if name is None or file in chained:
            continue
        if not exports or (root / file).exists():
            raise ValueError(
                f"{file} has no chain in {LINEAGE}: add the commands that made it there (docs/results.md's "
                "lineage) before shipping it"
            )
        new_file = file
    chain = None
    if new_file:
        if cfg.lineage is None:
            raise ValueError(
                f"{new_file} is a new file of the page and {LINEAGE} has no chain for it: give "
                "lineage=<yaml> with the commands that made it (docs/results.md's lineage; the ship adds "
                "its export step)"
            )
        if ABSOLUTE.search(command()):
            raise ValueError(
                f"{command()}: the new net's lineage records this command, so give its paths (agent=, "
                "lineage=, root=) relative to where it runs, as a clone has them"
            )
        chain = yaml.safe_load(Path(cfg.lineage).read_text())
        probe = lineage_entry(chain, id_, new_file, {})
        check_chain(probe, lineage_text, Tree(root))
    elif cfg.lineage is not None:
        raise ValueError(f"lineage={cfg.lineage}: the ship writes no new .onnx without a chain; leave it out")
    checkpoint = checkpoint_path(agent.checkpoint) if agent.checkpoint else None
    return {
        "root": root,
        "index": index,
        "at": at,
        "agent": agent,
        "id": id_,
        "replaced": replaced,
        "claims": claims,
        "first_deal": first_deal,
        "ratings": ratings,
        "tournament_dir": tournament_dir,
        "new_file": new_file,
        "chain": chain,
        "checkpoint": checkpoint,
        "lineage_text": lineage_text,
    }


def stage_files(cfg, plan, stage, play):
    """The agent's files in the stage (an export) and the page as it will be in ``play``
    (web/public: links to the root's files and to the staged ones)."""
    root, agent = plan["root"], plan["agent"]
    page = play / PAGE
    page.mkdir(parents=True, exist_ok=True)
    for path in (root / PAGE).iterdir():
        (page / path.name).symlink_to(path.resolve())
    if agent.checkpoint:
        out = stage.dir / PAGE / agent.model
        export(Path(agent.checkpoint).resolve(), out, cfg.name, None, cfg.which, overwrite=True)
        manifest = out.with_suffix(".json")
        shipped = root / PAGE / agent.model
        if shipped.exists():
            if sha256(shipped) != sha256(out):
                raise ValueError(
                    f"{PAGE}/{agent.model} exists and is another model than {agent.checkpoint}'s; "
                    "choose another id"
                )
            manifest.write_text((root / PAGE / manifest.name).read_text())  # the same net: its manifest kept
        for path in (out, manifest):
            (page / path.name).unlink(missing_ok=True)
            (page / path.name).symlink_to(path.resolve())
    if agent.search and not (root / PAGE / agent.belief_file).exists():
        out = stage.dir / PAGE / agent.belief_file
        out, manifest = export_onnx(load_belief(agent.belief), out, agent.belief)
        for path in (out, manifest):
            (page / path.name).symlink_to(Path(path).resolve())


def claim(cfg, plan, spec, entry, dirs, run_dir, cache):
    """One claim of ``spec`` (in the page's dir, the cwd): reused when fresh, else played and
    kept in the cache and the run dir. Returns ``(results, path it was reused from or None)``."""
    ratings, baseline = plan["ratings"], entry["baseline"]
    settings = {
        "agent": spec,
        "opponent": entry["opponent"],
        "baseline": baseline,
        "env": ratings["env"],
        "bank": ratings["bank"],
        "deals": entry["deals"],
        "first_deal": plan["first_deal"],
        "seed": cfg.seed,
        "fingerprints": {
            "agent": fingerprint(spec, "."),
            "baseline": None if baseline is None else fingerprint(baseline, "."),
        },
    }
    found = fresh_claim(dirs, settings)
    if found is not None:
        print(f"claim against {entry['opponent']}: reused {found[0]}", flush=True)
        return found[1], found[0]
    evaluation = OmegaConf.create(
        {
            **{k: v for k, v in settings.items() if k not in ("agent", "fingerprints")},
            "agent": spec,
            "search": {},
            "batch_size": cfg.batch_size,
            "progress": cfg.progress,
        }
    )
    results = {**run(evaluation), "ship": {"settings": settings}, "provenance": provenance()}
    name = claim_name(plan["id"], entry["opponent"], entry["deals"], plan["first_deal"])
    for directory in (cache, run_dir / "claims"):
        directory.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(json_text(results))
    print(f"claim against {entry['opponent']}: {results['win_rate']:.3f} over {entry['deals']} deals")
    return results, None


def check_paired(results, spec, replaced, run_dir, record):
    """The paired claim's margin interval over the replaced agent must be above 0; else Refused."""
    versus = results["versus_baseline"]
    low, high = versus["margin_diff_lower"], versus["margin_diff_upper"]
    if low is not None and low > 0:
        return
    interval = "no interval (too few deals)" if low is None else f"[{low:+.2f}, {high:+.2f}]"
    message = (
        f"refused: {spec} is not better than {replaced}, the agent the level has now: paired against "
        f"{results['opponent']} over {versus['deals']:,} deals its margin over it is "
        f"{versus['margin_diff']:+.2f} points a match, {interval}, not above 0; nothing was written"
    )
    (run_dir / "ship.json").write_text(json_text({**record, "refused": message}))
    raise Refused(message)


def tournament(cfg, plan, run_dir):
    """The ladder's all-play-all with the agent in it (cwd: the page's dir): every earlier pair
    reused, the pairs with the neighbouring levels played to ``tournament.level_deals``.
    Returns the ratings table and the names of the pairs played here."""
    spec, ratings = plan["agent"].spec, plan["ratings"]
    players = ladder_players(ratings)
    players += [] if spec in players else [spec]
    reuse = {}
    for path in sorted((plan["tournament_dir"] / "pairs").glob("*.json")):
        results = json.loads(path.read_text())
        pair = frozenset((str(results.get("agent")), str(results.get("opponent"))))
        if pair <= set(players):
            reuse[pair] = str(path)
    slow = [p for p in players if is_search(p)]
    base = {
        "a": None,
        "b": None,
        "agent": "${a}",
        "opponent": "${b}",
        "baseline": None,
        "env": ratings["env"],
        "bank": ratings["bank"],
        "first_deal": 0,
        "seed": cfg.seed,
        "search": {},
        "batch_size": cfg.batch_size,
        "progress": cfg.progress,
        "out": None,
        "overwrite": False,
        "players": players,
        "anchor": ratings["anchor"],
        "anchor_rating": ratings["anchor_rating"],
        "prior_games": ratings["prior_games"],
        "slow": {"players": slow, "deals": cfg.tournament.slow_deals},
        "deals": cfg.tournament.deals,
        "out_dir": None,
        "ratings_out": None,
    }
    neighbours = run_dir / "neighbours"
    ladder = [e for e in plan["index"]["agents"] if e.get("level")]
    position = [e["id"] for e in ladder].index(plan["index"]["agents"][plan["at"]]["id"])
    for other in ladder[max(position - 1, 0) : position + 2]:
        other = other["level"]["rated_as"]
        if other == plan["replaced"] or frozenset((other, spec)) in reuse:
            continue
        a, b = sorted((other, spec), key=players.index)
        given = cfg.tournament.slow_deals if a in slow or b in slow else cfg.tournament.deals
        if cfg.tournament.level_deals <= given:
            continue
        results = play_pair(OmegaConf.create(base), a, b, cfg.tournament.level_deals)
        results["provenance"] = provenance()
        path = neighbours / f"{slug(a)}__{slug(b)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json_text(results))
        reuse[frozenset((a, b))] = str(path)
    table = all_play_all(OmegaConf.create({**base, "reuse": sorted(reuse.values())}))
    played = []
    for pair in table["pairs"]:
        source = pair.get("reused_from")
        name = Path(pair["file"]).stem
        if source is None or Path(source).parent == neighbours:
            pair.pop("reused_from", None)
            played.append(name)
        else:
            pair["reused_from"] = Path(source).relative_to(plan["root"]).as_posix()
    return table, played


def ship(cfg, run_dir):
    """The command (see the module doc); returns the record it keeps as ``ship.json``."""
    plan = check(cfg)
    root, agent, id_ = plan["root"], plan["agent"], plan["id"]
    stage, play = Stage(run_dir / "stage", root), run_dir / "page"
    cache = Path(cfg.claims.cache).resolve()
    claims_dir = Path(cfg.claims.dir)
    record = {"command": command(), "agent": agent.spec, "id": id_, "level": cfg.level}
    record["replaces"] = plan["replaced"]
    stage_files(cfg, plan, stage, play)
    made = []
    with contextlib.chdir(play):
        for i, entry in enumerate(plan["claims"]):
            results, reused = claim(cfg, plan, agent.spec, entry, [root / claims_dir, cache], run_dir, cache)
            made.append((entry, results, reused))
            if i == 0:
                check_paired(results, agent.spec, plan["replaced"], run_dir, record)
        table, played = tournament(cfg, plan, run_dir)
    record["claims"] = []
    files = []
    for entry, results, reused in made:
        if reused is not None and Path(reused).parent == root / claims_dir:
            file = Path(reused).relative_to(root).as_posix()
        else:
            name = claim_name(id_, entry["opponent"], entry["deals"], plan["first_deal"])
            file = (claims_dir / name).as_posix()
            stage.write(file, json_text(results))
        files.append((file, entry["opponent"]))
        record["claims"].append({"file": file, "opponent": entry["opponent"], "reused": reused is not None})
    paired = made[0][1]
    strength = search_strength(paired, files[0][0]) if agent.search else None
    if not agent.search:
        manifest_name = f"{Path(agent.model).stem}.json"
        manifest = stage.dir / PAGE / manifest_name
        info = json.loads((manifest if manifest.exists() else root / PAGE / manifest_name).read_text())
        stage.write(f"{PAGE}/{manifest_name}", json_text({**info, "strength": strength_from_results(paired)}))
    index = placed(plan["index"], agent, id_, cfg.level, cfg.about, strength)
    stage.write(AGENTS, json_text(index))
    ratings_text = json.dumps(table, indent=2, allow_nan=False) + "\n"  # as the tournament writes it
    results_dir = plan["tournament_dir"].relative_to(root)
    for name in played:
        pair = json.loads((run_dir / "pairs" / f"{name}.json").read_text())
        pair.pop("reused_from", None)
        text = json.dumps(pair, indent=2, allow_nan=False) + "\n"
        stage.write(results_dir / "pairs" / f"{name}.json", text)
    stage.write(results_dir / "ratings.json", ratings_text)
    stage.write(results_dir / "ratings.md", ratings_markdown(table))
    stage.write(f"{PAGE}/ratings.json", ratings_text)

    def opponent_of(file):
        return json.loads(Tree(root, stage.dir).path(file).read_text()).get("opponent")

    claims = claims_with(read_claims(root / CLAIMS), id_, files, opponent_of)
    stage.write(CLAIMS, claims_text(claims))
    if plan["chain"] is not None:
        stage.write(LINEAGE, lineage_with(plan["lineage_text"], lineage(plan, stage, files[0][0], record)))
    stage.write(OUT, render(claims, root, LINEAGE, overlay=stage.dir))
    written = stage.commit()
    record.update(
        pairs_played=played,
        pairs_reused=[Path(p["file"]).stem for p in table["pairs"] if "reused_from" in p],
        written=[p.as_posix() for p in written],
    )
    (run_dir / "ship.json").write_text(json_text(record))
    print(f"shipped {agent.spec} as {id_!r}, the level {cfg.level!r} (it replaces {plan['replaced']})")
    for path in written:
        print(f"wrote {root / path}")
    print("\n".join(steps_table(steps(index, read_pairs(root / results_dir / "pairs")), root)))
    return record


def lineage(plan, stage, claim_file, record):
    """The new file's tools/lineage.yaml net: the given chain, then the ship's export step."""
    agent, new_file = plan["agent"], plan["new_file"]
    if new_file == f"{PAGE}/{agent.model}":
        name = json.loads((stage.dir / PAGE / f"{Path(agent.model).stem}.json").read_text())["name"]
        export_command = (
            f"python -m lost_cities.export checkpoint={plan['checkpoint']} out={new_file} "
            f"'name=\"{name}\"' evaluation={claim_file}"
        )
        step_from = plan["checkpoint"]
    else:
        export_command = f"python -m lost_cities.belief action=export belief={agent.belief} out={new_file}"
        step_from = agent.belief
    step = {
        "what": "export, by python -m lost_cities.ship",
        "command": export_command,
        "writes": new_file,
        "from": step_from,
        "time": None,
        "recorded": False,
        "nearest": record["command"],
        "source": f"the ship exported it with these arguments (its claims' provenance: {claim_file})",
    }
    return lineage_entry(plan["chain"], plan["id"], new_file, step)


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="ship")
@removing_empty_run_dir
def main(cfg):
    quiet_libraries()
    ship(cfg, Path(HydraConfig.get().runtime.output_dir))


if __name__ == "__main__":
    main()
