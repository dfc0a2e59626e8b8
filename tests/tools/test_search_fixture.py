"""The web client's search fixture (web/tests/fixtures/search.json, ``python tools/search_fixture.py``)
is still what the Python search decides: web/tests/search.test.ts holds the TypeScript search to
it, and this test holds it to the Python search, so a change to either side fails a test until
the other follows (and the fixture is written again)."""

import json
from pathlib import Path

import jax
import numpy as np
import pytest
import search_fixture

from lost_cities.agents import load_exported
from lost_cities.game.match import match_reset_from, match_step
from lost_cities.search.candidates import logit_scores

FIXTURE = Path(__file__).resolve().parents[2] / "web" / "tests" / "fixtures" / "search.json"
REGENERATE = "regenerate: python tools/search_fixture.py"


def replayed(fixture):
    """The positions the fixture records, replayed through the Python match."""
    deck_orders, coins = (np.asarray(fixture[key], np.int32) for key in ("deck_orders", "coins"))
    ms = match_reset_from(deck_orders, coins)
    step = jax.jit(match_step)
    at = {}
    for ply, action in enumerate(fixture["actions"]):
        at[ply] = ms
        ms, _, _ = step(ms, action)
    return [at[position["ply"]] for position in fixture["positions"]]


@pytest.fixture(scope="module")
def fixture():
    return json.loads(FIXTURE.read_text())


def test_search_fixture_records_its_positions(fixture):
    """The file as the web tests read it: the page preset's knobs, and at each replayed
    position the mover, their hand, worlds that deal exactly the cards the mover has not
    seen, and gains that are the mean paired values of those worlds."""
    cfg = search_fixture.search_config()
    assert fixture["format_version"] == search_fixture.FORMAT_VERSION
    assert fixture["knobs"] == {
        "worlds": cfg.worlds,
        "candidates": cfg.candidates,
        "gate_points": cfg.gate_points,
        "gate_z": cfg.gate_z,
    }, REGENERATE
    states = replayed(fixture)
    for ms, position in zip(states, fixture["positions"], strict=True):
        mover = int(ms.round.to_move)
        assert (int(ms.round_idx), mover) == (position["round_idx"], position["to_move"])
        assert np.asarray(ms.round.hands[mover]).tolist() == position["hand"]
        assert len(position["worlds"]) == cfg.worlds
        search_fixture.check_worlds(ms, position["worlds"])
        values = np.asarray(position["values"], np.float32)
        assert values.shape == (cfg.worlds, cfg.candidates)
        assert np.allclose(np.mean(values - values[:, :1], axis=0), position["gains"])
    assert {position["round_idx"] for position in fixture["positions"]} == {0, 1, 2}


@pytest.mark.slow
def test_search_fixture_is_what_the_search_decides(fixture):
    """The match is the page's net greedy for both seats, from the fixture's seed, and the
    search again at every position gives the recorded decision, worlds and values."""
    cfg = search_fixture.search_config()
    agent = load_exported(search_fixture.ROOT / "web" / "public" / fixture["model"])
    policy, scores = agent.policy, logit_scores(agent)
    deck_orders, coins, _, actions = search_fixture.play_match(policy, fixture["seed"])
    assert (deck_orders.tolist(), coins.tolist()) == (fixture["deck_orders"], fixture["coins"]), REGENERATE
    assert actions[: len(fixture["actions"])] == fixture["actions"], REGENERATE
    decide = search_fixture.searcher(cfg)
    for ms, position in zip(replayed(fixture), fixture["positions"], strict=True):
        fresh = decide(policy, scores, ms, jax.random.PRNGKey(position["ply"]))
        assert fresh == {key: position[key] for key in fresh}, (position["ply"], REGENERATE)
    assert any(position["chosen"] > 0 for position in fixture["positions"])  # the search leaves the net
