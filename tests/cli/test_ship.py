"""``python -m lost_cities.ship agent=<spec> level=<name>``: an agent put on a copy of the page's
files (web/public, the ladder's tournament, the claims, tools/ and docs/), every file it writes
consistent with the others; a claim or pair made before reused, not replayed; an agent not better,
paired, than the one at its level refused with nothing written; bad input refused before any game.

The quick tests check the inputs and the page's files as a ship edits them; the slow ones ship a
tiny net (random weights, drawn large) for real, on a ladder cut to its four lowest levels so that
its tournament plays four pairs."""

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import yaml
from omegaconf import OmegaConf

from lost_cities.cli.ship import check, check_paired, ladder_players
from lost_cities.export.ladder import read_pairs, steps, verdict
from lost_cities.export.results_table import read_claims, render
from lost_cities.export.ship import (
    Agent,
    Refused,
    Stage,
    claims_with,
    fresh_claim,
    lineage_with,
    placed,
    read_agent,
)

ROOT = Path(__file__).resolve().parents[2]
LADDER = "experiments/player-ladder/results"
SEARCH = "search/belief:web/public/bc-ppo-xi6-bal2700.onnx"
KEPT = ["random", "heuristic_cautious", "heuristic_expert", "web/public/improve-f2.onnx"]  # the cut ladder
TINY = "outputs/runs/tiny"
CHAIN = {
    "about": "A test's net: a match3 MLP with random weights, drawn large.",
    "steps": [
        {
            "what": "the tiny run",
            "command": "python -m lost_cities.train experiment=tiny env=match3",
            "writes": TINY,
            "from": "nothing (a fresh network)",
            "time": None,
            "recorded": False,
            "nearest": "python -m lost_cities.train experiment=tiny",
            "source": "tests/cli/test_ship.py",
        }
    ],
}


def copy_page(root):
    """The page's files and what they rest on, copied to ``root``: web/public, the ladder's results,
    tools/claims.yaml and tools/lineage.yaml, every claim's results file, docs/."""
    shutil.copytree(ROOT / "web/public", root / "web/public")
    shutil.copytree(ROOT / LADDER, root / LADDER)
    (root / "docs").mkdir()
    (root / "tools").mkdir()
    for name in ("claims.yaml", "lineage.yaml"):
        shutil.copy(ROOT / "tools" / name, root / "tools" / name)
    for _, file in read_claims(ROOT / "tools/claims.yaml"):
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / file, root / file)
    return root


def cut_ladder(root):
    """The copy's ladder without the Master (the search stays listed, off the ladder) and its
    tournament cut to ``KEPT``: a ship's tournament then plays four pairs, no search."""
    index = json.loads((root / "web/public/agents.json").read_text())
    next(e for e in index["agents"] if e.get("search")).pop("level")
    (root / "web/public/agents.json").write_text(json.dumps(index, indent=2) + "\n")
    table = json.loads((root / LADDER / "ratings.json").read_text())
    table["players"] = [row for row in table["players"] if row["player"] in KEPT]
    table["pairs"] = [p for p in table["pairs"] if p["a"] in KEPT and p["b"] in KEPT]
    (root / LADDER / "ratings.json").write_text(json.dumps(table, indent=2) + "\n")
    for path in (root / LADDER / "pairs").glob("*.json"):
        pair = json.loads(path.read_text())
        if pair["agent"] not in KEPT or pair["opponent"] not in KEPT:
            path.unlink()


def tiny_run(run_dir):
    """A match3 run dir with one checkpoint of a [16] MLP whose weights are drawn large (the
    head's near-zero init would make every move a near-tie)."""
    from lost_cities.checkpoints import Checkpoints
    from lost_cities.ppo import config as schema
    from lost_cities.ppo.trainer import Trainer, TrainState
    from lost_cities.training.loop import checkpoint_meta

    overrides = ["env=match3", "logger=none", "network=mlp", "network.hidden=[16]", "init=none"]
    overrides += ["ppo.num_envs=2", "ppo.rollout_length=4", "ppo.total_decisions=8", "ppo.minibatches=1"]
    trainer = Trainer.from_config(schema.validate(schema.compose(overrides)))
    env, rng = trainer.env, np.random.default_rng(0)
    shapes = jax.eval_shape(
        trainer.network.init,
        jax.random.PRNGKey(0),
        jnp.zeros((1, env.obs_dim)),
        jnp.zeros((1, env.privileged_dim)),
    )
    params = jax.tree_util.tree_map(
        lambda p: jnp.asarray(
            rng.normal(0, 3 * p.shape[0] ** -0.5 if len(p.shape) == 2 else 0.1, p.shape), jnp.float32
        ),
        shapes,
    )
    zero = jnp.int32(0)
    state = TrainState(params, trainer.optimizer.init(params), None, jax.random.PRNGKey(0), zero, zero, zero)
    checkpoints = Checkpoints(run_dir, 1)
    checkpoints.save(0, state, checkpoint_meta(trainer, 0), best_score=0.0)
    checkpoints.close()
    return run_dir


def ship_cfg(root, *overrides):
    cfg = OmegaConf.load(ROOT / "conf/cli/ship.yaml")
    cfg.pop("hydra")
    return OmegaConf.merge(cfg, OmegaConf.from_dotlist([f"root={root}", *overrides]))


def snapshot(root):
    """Every file under ``root`` but outputs/ (a ship's run dirs, the claims cache, the tiny run)."""
    files = (p for p in root.rglob("*") if p.is_file() and p.relative_to(root).parts[0] != "outputs")
    return {p.relative_to(root): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.fixture
def page(tmp_path):
    return copy_page(tmp_path / "repo")


# --- quick: inputs, and the page's files as a ship edits them ---------------------------------------


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        (["agent=improve-c4.onnx", "level=Grandmaster"], ValueError, "the levels: Sightseer, Beginner"),
        (["agent=random", "level=Expert"], ValueError, "a bot is played by the page's own code"),
        (["agent=no/such/run", "level=Expert"], ValueError, "neither a checkpoint or run dir"),
        (["agent=elsewhere/x.onnx", "level=Expert"], ValueError, "give the checkpoint it was exported from"),
        (["agent=search/fast:web/public/improve-d4.onnx", "level=Master"], ValueError, "the preset 'belief'"),
        (["agent=search/belief:outputs/x.onnx", "level=Master"], ValueError, "must be shipped in"),
        (["agent=improve-f2.onnx", "level=Expert"], ValueError, "already the level 'Expert'"),
        (["agent=improve-f2.onnx", "level=Master"], ValueError, "already the level 'Expert'"),
        (["agent=improve-c4.onnx", "level=Expert", "id=improve-b1"], ValueError, "already another agent"),
        (["agent=improve-c4.onnx", "level=Expert", "id=has space"], ValueError, "letters, digits"),
        (["agent=improve-c4.onnx", "level=Expert", "claims.net.deals=0"], ValueError, "claims.net.deals=0"),
        (["agent=improve-c4.onnx", "level=Expert", "tournament.deals=-1"], ValueError, "tournament.deals"),
        (
            ["agent=improve-c4.onnx", "level=Expert", "tournament.dir=nowhere"],
            FileNotFoundError,
            "ratings.json",
        ),
        (["agent=improve-c4.onnx", "level=Expert", "lineage=x.yaml"], ValueError, "leave it out"),
    ],
)
def test_bad_input_is_refused_before_any_work(page, overrides, error, message):
    with pytest.raises(error, match=message):
        check(ship_cfg(page, *overrides))


def test_a_checkpoint_needs_an_id_and_a_chain(page, tmp_path, monkeypatch):
    monkeypatch.chdir(page)
    monkeypatch.setattr(
        sys, "argv", [str(ROOT / "lost_cities/ship.py"), f"agent={TINY}", "lineage=chain.yaml"]
    )
    (page / TINY).mkdir(parents=True)
    with pytest.raises(ValueError, match=r"give the page's id for it \(id=<name>\)"):
        check(ship_cfg(page, f"agent={TINY}", "level=Expert"))
    with pytest.raises(ValueError, match="has no chain for it: give lineage=<yaml>"):
        check(ship_cfg(page, f"agent={TINY}", "level=Expert", "id=tiny"))
    broken = {**CHAIN, "steps": [{**CHAIN["steps"][0], "writes": "/elsewhere/tiny"}]}
    (tmp_path / "chain.yaml").write_text(yaml.safe_dump(broken))
    with pytest.raises(ValueError, match="step 1: its writes names an absolute path"):
        check(
            ship_cfg(page, f"agent={TINY}", "level=Expert", "id=tiny", f"lineage={tmp_path / 'chain.yaml'}")
        )
    (tmp_path / "chain.yaml").write_text(yaml.safe_dump(CHAIN))
    lineage = f"lineage={tmp_path / 'chain.yaml'}"
    monkeypatch.setattr(sys, "argv", [*sys.argv, lineage])  # the command the lineage would record
    with pytest.raises(ValueError, match="give its paths .* relative to where it runs"):
        check(ship_cfg(page, f"agent={TINY}", "level=Expert", "id=tiny", lineage))
    monkeypatch.setattr(sys, "argv", sys.argv[:-1])
    plan = check(
        ship_cfg(page, f"agent={TINY}", "level=Expert", "id=tiny", f"lineage={tmp_path / 'chain.yaml'}")
    )
    assert plan["agent"].spec == "web/public/tiny.onnx" and plan["new_file"] == "web/public/tiny.onnx"
    assert plan["replaced"] == "web/public/improve-f2.onnx"
    assert [c["baseline"] for c in plan["claims"]] == ["web/public/improve-f2.onnx", None, None, None]
    assert [c["deals"] for c in plan["claims"]] == [10000] * 4


def test_a_net_without_a_chain_is_refused(page):
    lineage = yaml.safe_load((page / "tools/lineage.yaml").read_text())
    lineage["nets"] = [net for net in lineage["nets"] if net["net"] != "improve-c4"]
    (page / "tools/lineage.yaml").write_text(yaml.safe_dump(lineage, sort_keys=False))
    with pytest.raises(ValueError, match="web/public/improve-c4.onnx has no chain in tools/lineage.yaml"):
        check(ship_cfg(page, "agent=improve-c4.onnx", "level=Expert"))


def test_a_search_claims_on_search_deals_and_its_id_names_its_net(page):
    plan = check(ship_cfg(page, "agent=search/belief:web/public/improve-d4.onnx", "level=Master"))
    assert plan["id"] == "improve-d4-search" and plan["agent"].belief_file == "bc-ppo-xi6-bal2700-belief.onnx"
    assert plan["claims"] == [{"opponent": "heuristic_expert", "baseline": SEARCH, "deals": 3500}]
    assert plan["new_file"] is None  # the belief is on the page already
    net_over_search = check(ship_cfg(page, "agent=improve-c4.onnx", "level=Master"))
    assert [c["deals"] for c in net_over_search["claims"]] == [3500, 10000, 10000, 10000]


def test_the_agent_takes_the_level_and_the_one_it_replaces_stays_listed(page):
    index = json.loads((page / "web/public/agents.json").read_text())
    agent, id_ = read_agent("search/belief:web/public/improve-d4.onnx", page)
    strength = {"opponent": "heuristic_expert", "games": 7000, "win_rate": 0.8}
    new = placed(index, agent, id_, "Master", strength=strength)
    ladder = [e for e in new["agents"] if e.get("level")]
    assert [e["level"]["name"] for e in ladder] == [
        e["level"]["name"] for e in index["agents"] if e.get("level")
    ]
    master = ladder[-1]
    assert master["id"] == "improve-d4-search" and master["model"] == "improve-d4.onnx"
    assert master["level"]["rated_as"] == "search/belief:web/public/improve-d4.onnx"
    assert master["level"]["about"] == index["agents"][4]["level"]["about"]
    assert master["search"] == {"belief": "bc-ppo-xi6-bal2700-belief.onnx", "strength": strength}
    old = new["agents"][len(ladder)]
    assert old["id"] == "bc-ppo-xi6-bal2700-search" and "level" not in old and old["search"]["strength"]
    assert len(new["agents"]) == len(index["agents"]) + 1 and new["default"] == index["default"]
    # a net listed off the ladder moves onto it, under its own entry; the about line can change
    net = Agent("web/public/improve-c4.onnx", "improve-c4.onnx")
    moved = placed(index, net, "improve-c4", "Expert", about="Plays well.")
    ids = [e["id"] for e in moved["agents"]]
    assert ids.count("improve-c4") == 1 and ids[3] == "improve-c4" and ids[5] == "improve-f2"
    assert moved["agents"][3]["level"] == {
        **index["agents"][3]["level"],
        "about": "Plays well.",
        "rated_as": net.spec,
    }


@pytest.mark.parametrize(("low", "high"), [(-1.5, 4.0), (None, None)])
def test_a_paired_margin_not_above_zero_is_refused(tmp_path, low, high):
    versus = {"deals": 4, "margin_diff": 1.25, "margin_diff_lower": low, "margin_diff_upper": high}
    with pytest.raises(Refused, match="not better than b, the agent the level has now.*not above 0"):
        check_paired({"opponent": "heuristic_expert", "versus_baseline": versus}, "a", "b", tmp_path, {})
    assert json.loads((tmp_path / "ship.json").read_text())["refused"].startswith("refused: a")
    above = {**versus, "margin_diff_lower": 0.5, "margin_diff_upper": 2.0}
    check_paired({"opponent": "heuristic_expert", "versus_baseline": above}, "a", "b", tmp_path, {})


def test_a_claim_is_fresh_only_with_the_same_settings_and_files(tmp_path):
    settings = {"agent": "web/public/x.onnx", "deals": 4, "fingerprints": {"agent": {"model_sha256": "ab"}}}
    (tmp_path / "a.json").write_text(json.dumps({"win_rate": 0.6, "ship": {"settings": settings}}))
    (tmp_path / "b.json").write_text("not json")
    assert fresh_claim([tmp_path / "missing", tmp_path], settings)[0] == tmp_path / "a.json"
    knobs = {**settings, "fingerprints": {"agent": {"scales": (0.0, 1.0)}}}  # a search preset's tuple
    (tmp_path / "c.json").write_text(json.dumps({"ship": {"settings": knobs}}))
    assert fresh_claim([tmp_path], knobs)[0] == tmp_path / "c.json"
    assert fresh_claim([tmp_path], {**settings, "deals": 5}) is None
    assert fresh_claim([tmp_path], {**settings, "fingerprints": {"agent": {"model_sha256": "cd"}}}) is None


def test_new_claims_replace_the_agents_claims_against_the_same_opponents():
    claims = (("a", "a_expert.json"), ("a", "a_balanced.json"), ("b", "b_expert.json"))
    opponents = {"a_expert.json": "heuristic_expert", "a_balanced.json": "heuristic_balanced"}
    new = claims_with(claims, "a", [("a_expert_new.json", "heuristic_expert")], opponents.get)
    assert new == (("a", "a_balanced.json"), ("b", "b_expert.json"), ("a", "a_expert_new.json"))


def test_the_lineage_keeps_its_text_and_gains_the_net(page):
    text = (page / "tools/lineage.yaml").read_text()
    entry = {"net": "tiny", "file": "web/public/tiny.onnx", "after": None, **CHAIN}
    longer = lineage_with(text, entry)
    assert longer.startswith(text.rstrip("\n")) and yaml.safe_load(longer)["nets"][-1] == entry
    flush = yaml.safe_dump(yaml.safe_load(text), sort_keys=False)  # its nets not indented
    assert yaml.safe_load(lineage_with(flush, entry))["nets"] == [*yaml.safe_load(text)["nets"], entry]


def test_the_stage_writes_the_page_last_and_only_what_changed(tmp_path):
    root, stage = tmp_path / "root", Stage(tmp_path / "stage", tmp_path / "root")
    (root / "docs").mkdir(parents=True)
    (root / "docs/same.md").write_text("same")
    for name, text in [
        ("web/public/agents.json", "{}"),
        ("web/public/x.json", "{}"),
        ("web/public/x.onnx", "model"),
        ("docs/same.md", "same"),
        ("tools/claims.yaml", "a: []"),
    ]:
        stage.write(name, text)
    written = [p.as_posix() for p in stage.commit()]
    assert written == [
        "tools/claims.yaml",
        "web/public/x.onnx",
        "web/public/x.json",
        "web/public/agents.json",
    ]
    assert (root / "web/public/x.onnx").read_text() == "model" and not list(root.rglob(".*ship*"))


def test_the_ladders_steps_from_the_pair_files():
    """What experiments/player-ladder/README.md reports: each level against the one below."""
    index = json.loads((ROOT / "web/public/agents.json").read_text())
    rows = {row["level"]: row for row in steps(index, read_pairs(ROOT / LADDER / "pairs"))}
    expert, master = rows["Expert"]["measured"], rows["Master"]["measured"]
    assert rows["Expert"]["below"] == "Club player" and expert["deals"] == 200 and expert["score"] > 0.6
    assert master["deals"] == 200 and round(master["score"], 3) == 0.506
    assert verdict(master).startswith("no: 0.506 < 0.60")
    assert verdict(None).startswith("not measured")


def test_the_ladders_players_keep_their_order():
    table = json.loads((ROOT / LADDER / "ratings.json").read_text())
    players = ladder_players(table)
    assert (  # the order they joined in: the newest shipped net last, after the search it joined behind
        players[0] == "random"
        and players[-2:] == [SEARCH, "web/public/improve-f2.onnx"]
        and sorted(players) == sorted(r["player"] for r in table["players"])
    )


# --- slow: a tiny net shipped for real ----------------------------------------------------------------


def run_ship(root, *overrides):
    command = [sys.executable, "-m", "lost_cities.ship", "progress=false", "claims.net.deals=4"]
    command += ["claims.net.opponents=[heuristic_expert]", "tournament.deals=2", "tournament.level_deals=3"]
    command += ["claims.cache=outputs/ship/claims", "batch_size=8", *overrides]
    return subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=1800)


def record(root):
    runs = sorted((root / "outputs/ship").glob("*/ship.json"), key=lambda p: p.stat().st_mtime)
    return json.loads(runs[-1].read_text())


@pytest.mark.slow
def test_a_tiny_net_is_shipped_and_a_second_ship_replays_nothing(page):
    cut_ladder(page)
    tiny_run(page / TINY)
    (page / "chain.yaml").write_text(yaml.safe_dump(CHAIN))  # relative: the lineage records the command
    before = {
        p: (page / p).read_bytes()
        for p in ("web/public/agents.json", "tools/claims.yaml", "tools/lineage.yaml")
    }
    args = [
        f"agent={TINY}",
        "level=Sightseer",
        "id=tiny",
        "lineage=chain.yaml",
        "name=A tiny net",
    ]
    done = run_ship(page, *args)
    assert done.returncode == 0, done.stderr[-4000:]

    index = json.loads((page / "web/public/agents.json").read_text())
    levels = [e for e in index["agents"] if e.get("level")]
    assert levels[0]["id"] == "tiny" and levels[0]["level"]["name"] == "Sightseer"
    assert levels[0]["level"]["rated_as"] == "web/public/tiny.onnx" and levels[0]["model"] == "tiny.onnx"
    assert index["agents"][len(levels)]["id"] == "random-bot" and "level" not in index["agents"][len(levels)]
    manifest = json.loads((page / "web/public/tiny.json").read_text())
    claim = json.loads((page / "experiments/claims/tiny_vs_heuristic_expert_4.json").read_text())
    assert manifest["name"] == "A tiny net" and manifest["strength"]["win_rate"] == claim["win_rate"]
    assert claim["agent"] == "web/public/tiny.onnx" and claim["baseline"]["agent"] == "random"
    assert claim["versus_baseline"]["margin_diff_lower"] > 0
    assert claim["provenance"]["command"].startswith("python -m lost_cities.ship")
    ratings = json.loads((page / "web/public/ratings.json").read_text())
    assert ratings == json.loads((page / LADDER / "ratings.json").read_text())
    assert "web/public/tiny.onnx" in {row["player"] for row in ratings["players"]}
    new = {
        frozenset((p["a"], p["b"])): p for p in ratings["pairs"] if "web/public/tiny.onnx" in (p["a"], p["b"])
    }
    assert len(new) == 4 and not any("reused_from" in p for p in new.values())
    assert new[frozenset(("heuristic_cautious", "web/public/tiny.onnx"))]["deals"] == 3  # the level above
    assert new[frozenset(("random", "web/public/tiny.onnx"))]["deals"] == 2
    for pair in ratings["pairs"]:
        assert (page / LADDER / pair["file"]).is_file()
        if pair not in new.values():
            assert pair["reused_from"].startswith(LADDER)
    assert ("tiny", "experiments/claims/tiny_vs_heuristic_expert_4.json") in read_claims(
        page / "tools/claims.yaml"
    )
    assert (
        yaml.safe_load((page / "tools/lineage.yaml").read_text())["nets"][-1]["file"]
        == "web/public/tiny.onnx"
    )
    results = (page / "docs/results.md").read_text()
    assert "| tiny | heuristic_expert | 4 |" in results and "### tiny" in results
    claims = read_claims(page / "tools/claims.yaml")
    assert render(claims, page) == results  # what tools/results_table.py would write
    first = record(page)
    assert len(first["pairs_played"]) == 4 and not first["claims"][0]["reused"]

    # The page as it was, the claims and the tournament kept: the same ship replays nothing.
    shipped = {p: (page / p).read_bytes() for p in before}
    for path, data in before.items():
        (page / path).write_bytes(data)
    (page / "web/public/tiny.onnx").unlink()
    (page / "web/public/tiny.json").unlink()
    again = run_ship(page, *args)
    assert again.returncode == 0, again.stderr[-4000:]
    second = record(page)
    assert second["pairs_played"] == [] and all(c["reused"] for c in second["claims"])
    assert {p: (page / p).read_bytes() for p in before} == shipped


@pytest.mark.slow
def test_a_net_not_better_paired_is_refused_and_nothing_is_written(page):
    cut_ladder(page)
    tiny_run(page / TINY)
    (page / "chain.yaml").write_text(yaml.safe_dump(CHAIN))
    before = snapshot(page)
    done = run_ship(page, f"agent={TINY}", "level=Expert", "id=tiny", "lineage=chain.yaml")
    assert done.returncode == 2, done.stderr[-4000:]
    assert "refused: web/public/tiny.onnx is not better than web/public/improve-f2.onnx" in done.stderr
    assert snapshot(page) == before  # web/public, experiments, tools and docs as they were
    assert "refused" in record(page)
    assert list((page / "outputs/ship/claims").glob("*.json"))  # kept for the next try
