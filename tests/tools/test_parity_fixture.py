"""The web client's committed parity fixtures must still be what the Python code produces
(the engine's, and the af1 action features'), and the e2e's test-only af1 model plays
heuristic_expert's moves.

web/tests/parity.test.ts checks the TypeScript engine against the fixture; this test
closes the loop, so that a change to the engine or the observations that is not
carried over to the web client (and its fixture regenerated) fails here.
"""

import base64
import json
import zlib
from pathlib import Path

import action_fixture
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from parity_fixture import FORMAT_VERSION, OBSERVATIONS, build_fixture

from lost_cities.networks.features import AF_VERSION, batched_action_features

FIXTURE = Path(__file__).resolve().parents[2] / "web" / "tests" / "fixtures" / "parity.json"
PACKED = {"masks"}


def unpacked(match):
    """The match with its packed arrays decompressed (zlib's bytes may differ across versions)."""
    decoded = {key: value for key, value in match.items() if key not in PACKED and key != "observations"}
    decoded.update({key: zlib.decompress(base64.b64decode(match[key])) for key in PACKED})
    decoded["observations"] = {
        version: zlib.decompress(base64.b64decode(packed))
        for version, packed in match["observations"].items()
    }
    return decoded


def test_fixture_is_current():
    committed = json.loads(FIXTURE.read_text())
    assert committed["format_version"] == FORMAT_VERSION
    assert set(committed["observations"]) == set(OBSERVATIONS), (
        "regenerate: python tools/parity_fixture.py --out web/tests/fixtures/parity.json"
    )
    fresh = build_fixture(n_matches=1, n_stalling=0, seed=committed["seed"])
    assert unpacked(fresh["matches"][0]) == unpacked(committed["matches"][0]), (
        "the engine no longer reproduces the web parity fixture; if the change is intended, port it to "
        "web/src and regenerate: python tools/parity_fixture.py --out web/tests/fixtures/parity.json"
    )


ACTIONS_FIXTURE = FIXTURE.parent / "actions.json"


def unpack_floats(packed, shape):
    return np.frombuffer(zlib.decompress(base64.b64decode(packed)), np.float32).reshape(shape)


@pytest.mark.slow
def test_action_fixture_is_current():
    """web/tests/actionFeatures.test.ts checks the TypeScript af1 rows against actions.json;
    here the rows stored there must still be what the Python features compute from the
    stored observations (bit for bit, under jit as training computes them)."""
    committed = json.loads(ACTIONS_FIXTURE.read_text())
    assert committed["format_version"] == action_fixture.FORMAT_VERSION
    assert committed["features"] == AF_VERSION
    assert {block["obs_version"] for block in committed["blocks"]} == {"v1", "v2"}
    assert sum(block["count"] for block in committed["blocks"]) >= 300
    regenerate = "regenerate: python tools/action_fixture.py --out web/tests/fixtures/actions.json"
    for block in committed["blocks"]:
        n = block["count"]
        obs = unpack_floats(block["obs"], (n, block["obs_dim"]))
        placement, draw = jax.device_get(jax.jit(batched_action_features)(jnp.asarray(obs)))
        assert np.array_equal(placement, unpack_floats(block["placement"], (n, 16, 28))), regenerate
        assert np.array_equal(draw, unpack_floats(block["draw"], (n, 96, 10))), regenerate
        mask = np.frombuffer(zlib.decompress(base64.b64decode(block["mask"])), np.uint8).reshape(n, 96)
        assert np.array_equal(mask.astype(bool), draw[:, :, 9] > 0.5)  # the legal column is the mask


@pytest.mark.slow
def test_expert_model_plays_heuristic_expert(tmp_path):
    """The e2e's test-only af1 model: its greedy moves through the ONNX agent (af1 rows in JAX)
    are heuristic_expert's, and --check-log counts a changed move as a disagreement."""
    from lost_cities import agents, bots
    from lost_cities.game.match import match_legal_action_mask, match_reset_from, match_step

    agent = agents.load(action_fixture.expert_model(tmp_path / "expert.onnx"))
    expert = jax.jit(bots.make("heuristic_expert"))
    rng = np.random.default_rng(0)
    deck_orders = np.stack([rng.permutation(60) for _ in range(3)]).astype(np.int32)
    coins = np.array([0, 1, 0], np.int32)
    ms = match_reset_from(deck_orders, coins)
    actions, first_agent_move = [], None
    while not bool(ms.done) and len(actions) < 120:
        want = int(expert(ms, jax.random.PRNGKey(0)))
        if int(ms.to_move) == 1:  # the agent's seat in the log below
            assert agent.act(ms, 1) == want
            if first_agent_move is None:
                first_agent_move = len(actions), ms
        actions.append(want)
        ms = match_step(ms, want)[0]
    game = {"deck_orders": deck_orders.tolist(), "coins": coins.tolist(), "seats": ["human", "agent"]}
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({**game, "actions": actions}) + "\n")
    moves, differ = action_fixture.expert_disagreements(log)
    assert moves >= 50 and differ == 0
    ply, state = first_agent_move
    other = next(
        int(a) for a in np.flatnonzero(np.asarray(match_legal_action_mask(state))) if a != actions[ply]
    )
    log.write_text(json.dumps({**game, "actions": actions[:ply] + [other]}) + "\n")
    assert action_fixture.expert_disagreements(log) == (1, 1)
