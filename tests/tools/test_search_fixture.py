"""The web client's search fixture (web/tests/fixtures/search.json, ``python tools/search_fixture.py``)
is still what the Python search decides: web/tests/search.test.ts holds the TypeScript search to
it, and this test holds it to the Python search, so a change to either side fails a test until
the other follows (and the fixture is written again)."""

import json
from pathlib import Path

import jax
import numpy as np
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


def test_search_fixture_is_current():
    fixture = json.loads(FIXTURE.read_text())
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
        search_fixture.check_worlds(ms, position["worlds"])
        values = np.asarray(position["values"], np.float32)
        assert np.allclose(np.mean(values - values[:, :1], axis=0), position["gains"])
    # The search again at the position with the fewest plies left (the quickest to roll out).
    last = min(range(len(states)), key=lambda i: fixture["positions"][i]["deck_left"])
    agent = load_exported(search_fixture.ROOT / "web" / "public" / fixture["model"])
    decide = search_fixture.searcher(cfg)
    position = fixture["positions"][last]
    fresh = decide(agent.policy, logit_scores(agent), states[last], jax.random.PRNGKey(position["ply"]))
    assert fresh == {key: position[key] for key in fresh}, REGENERATE
