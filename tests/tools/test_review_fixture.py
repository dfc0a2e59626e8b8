"""The web client's review fixture (web/tests/fixtures/review.json, ``python tools/review_fixture.py``)
is still what the Python search gives: web/tests/review.test.ts holds the page's review to it, and
this test holds it to the Python search, so a change to either side fails until the other follows."""

import json
from pathlib import Path

import jax
import numpy as np
import review_fixture
import search_fixture

from lost_cities.agents import load_exported
from lost_cities.game.match import match_reset_from, match_step
from lost_cities.search.candidates import logit_scores

FIXTURE = Path(__file__).resolve().parents[2] / "web" / "tests" / "fixtures" / "review.json"
REGENERATE = "regenerate: python tools/review_fixture.py"


def test_review_fixture_is_current():
    fixture = json.loads(FIXTURE.read_text())
    cfg = search_fixture.search_config()
    assert fixture["format_version"] == review_fixture.FORMAT_VERSION
    assert fixture["knobs"] == {
        "worlds": cfg.worlds,
        "candidates": cfg.candidates,
        "gate_points": cfg.gate_points,
        "gate_z": cfg.gate_z,
    }, REGENERATE
    ms = match_reset_from(*(np.asarray(fixture[key], np.int32) for key in ("deck_orders", "coins")))
    step, states = jax.jit(match_step), {}
    for ply, action in enumerate(fixture["actions"]):
        states[ply] = ms
        ms, _, _ = step(ms, action)
    for position in fixture["positions"]:
        search_fixture.check_worlds(states[position["ply"]], position["worlds"])
        values = np.asarray(position["values"], np.float64)
        paired = values[:, position["chosen"]] - values[:, -1]
        assert np.isclose(np.mean(paired), position["gain"])
        assert np.isclose(np.std(paired, ddof=1) / np.sqrt(len(paired)), position["se"])
    # The review again at the last position (round 3: the quickest to roll out).
    position = fixture["positions"][-1]
    agent = load_exported(search_fixture.ROOT / "web" / "public" / fixture["model"])
    review = review_fixture.reviewer(cfg)
    key = jax.random.PRNGKey(1000 + position["ply"])
    fresh = review(agent.policy, logit_scores(agent), states[position["ply"]], key, position["played"])
    assert fresh == {k: position[k] for k in fresh}, REGENERATE
