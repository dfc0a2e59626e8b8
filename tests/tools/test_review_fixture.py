"""The web client's review fixture (web/tests/fixtures/review.json, ``python tools/review_fixture.py``)
is still what the Python search gives: web/tests/review.test.ts holds the page's review to it, and
this test holds it to the Python search, so a change to either side fails until the other follows."""

import json
from pathlib import Path

import jax
import numpy as np
import pytest
import review_fixture
import search_fixture

from lost_cities.agents import load_exported
from lost_cities.game.match import match_legal_action_mask, match_reset_from, match_step
from lost_cities.search.candidates import logit_scores

FIXTURE = Path(__file__).resolve().parents[2] / "web" / "tests" / "fixtures" / "review.json"
REGENERATE = "regenerate: python tools/review_fixture.py"


@pytest.fixture(scope="module")
def fixture():
    return json.loads(FIXTURE.read_text())


def replayed(fixture):
    """Every position of the fixture's match, by ply, replayed through the Python match."""
    ms = match_reset_from(*(np.asarray(fixture[key], np.int32) for key in ("deck_orders", "coins")))
    step, states = jax.jit(match_step), {}
    for ply, action in enumerate(fixture["actions"]):
        states[ply] = ms
        ms, _, _ = step(ms, action)
    return states


def test_review_fixture_records_its_positions(fixture):
    """The file as the web tests read it: the page preset's knobs, and at each replayed
    position worlds that deal exactly the cards the mover has not seen, a legal played move
    of the recorded kind, and a gain and standard error that are those of the worlds' paired
    values (the search's choice against the played move)."""
    cfg = search_fixture.search_config()
    assert fixture["format_version"] == review_fixture.FORMAT_VERSION
    assert fixture["knobs"] == {
        "worlds": cfg.worlds,
        "candidates": cfg.candidates,
        "gate_points": cfg.gate_points,
        "gate_z": cfg.gate_z,
    }, REGENERATE
    states = replayed(fixture)
    kinds = set()
    for position in fixture["positions"]:
        ms = states[position["ply"]]
        search_fixture.check_worlds(ms, position["worlds"])
        played, kinds = position["played"], kinds | {position["played_kind"]}
        assert bool(match_legal_action_mask(ms)[played])
        if position["played_kind"] == "the net's own":
            assert played == fixture["actions"][position["ply"]]
        else:
            assert played not in position["candidates"]
        values = np.asarray(position["values"], np.float64)
        assert values.shape == (cfg.worlds, len(position["candidates"]) + 1)
        paired = values[:, position["chosen"]] - values[:, -1]
        assert np.isclose(np.mean(paired), position["gain"])
        assert np.isclose(np.std(paired, ddof=1) / np.sqrt(len(paired)), position["se"])
    assert kinds == {"the net's own", "outside the candidates"}


@pytest.mark.slow
def test_review_fixture_is_what_the_search_gives(fixture):
    """The match is the page's net greedy for both seats (the search fixture's), and the
    review again at every position gives the recorded values, choice and gain."""
    cfg = search_fixture.search_config()
    agent = load_exported(search_fixture.ROOT / "web" / "public" / fixture["model"])
    policy, scores = agent.policy, logit_scores(agent)
    deck_orders, coins, _, actions = search_fixture.play_match(policy, fixture["seed"])
    assert (deck_orders.tolist(), coins.tolist()) == (fixture["deck_orders"], fixture["coins"]), REGENERATE
    assert actions[: len(fixture["actions"])] == fixture["actions"], REGENERATE
    review, states = review_fixture.reviewer(cfg), replayed(fixture)
    for position in fixture["positions"]:
        key = jax.random.PRNGKey(1000 + position["ply"])
        fresh = review(policy, scores, states[position["ply"]], key, position["played"])
        assert fresh == {k: position[k] for k in fresh}, (position["ply"], REGENERATE)
