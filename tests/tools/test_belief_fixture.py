"""The web client's committed belief fixture (web/tests/fixtures/belief.json) must still be what
the Python code produces: its games replay through the engine from their deals and actions as
the web client replays them, the belief's features and prior at the recorded plies are what
:mod:`lost_cities.search.belief` computes there, and the shipped ONNX belief gives its logits.

The web client's test builds the features and prior from its own engine and runs its ONNX
belief on them; this test closes the loop on the Python side, so that a change to the
features, the engine or the shipped belief that is not carried over (and the fixture
regenerated) fails here.
"""

import base64
import json
import zlib
from pathlib import Path

import belief_fixture
import jax
import numpy as np
import pytest

from lost_cities import envs
from lost_cities.game.match import match_reset_from, match_step
from lost_cities.search import belief as belief_module

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "web" / "tests" / "fixtures" / "belief.json"
SHIPPED = ROOT / "web" / "public" / "bc-ppo-xi6-bal2700-belief.onnx"  # the web client's belief
PACKED = ("features", "prior", "logits")
REGENERATE = (
    "regenerate: python tools/belief_fixture.py --belief "
    "lost_cities/search/beliefs/bc-ppo-xi6-bal2700.msgpack --out web/tests/fixtures/belief.json"
)


def unpacked(game, features_dim):
    """The game with its packed float32 arrays read back ([positions, ...])."""
    n = len(game["plies"])
    shapes = {"features": (n, features_dim), "prior": (n,), "logits": (n, 60)}
    decoded = {key: value for key, value in game.items() if key not in PACKED}
    for key in PACKED:
        raw = zlib.decompress(base64.b64decode(game[key]))
        decoded[key] = np.frombuffer(raw, np.float32).reshape(shapes[key])
    return decoded


@pytest.mark.slow
def test_belief_fixture_is_current():
    committed = json.loads(FIXTURE.read_text())
    assert committed["format_version"] == belief_fixture.FORMAT_VERSION
    assert (committed["env"], committed["obs_version"], committed["moves"]) == ("match3", "v2", 8)
    assert committed["features_dim"] == committed["obs_dim"] + 120 * committed["moves"] == 1472
    dim = committed["features_dim"]
    belief = belief_module.load(ROOT / committed["belief"], "match3")
    fresh = unpacked(belief_fixture.play_game(belief, committed["seed"], 0), dim)
    first = unpacked(committed["games"][0], dim)
    for key in ("deck_orders", "coins", "actions", "plies", "round_idx", "features", "prior"):
        assert np.array_equal(np.asarray(fresh[key]), np.asarray(first[key])), f"{key} differs; {REGENERATE}"
    np.testing.assert_allclose(fresh["logits"], first["logits"], atol=1e-5, rtol=0, err_msg=REGENERATE)


def test_belief_fixture_games_replay_from_their_deals():
    """What the web client does: each game from ``matchResetFrom(deck_orders, coins)`` and its
    actions, every recorded ply live, the features and prior there the stored ones, the match
    over after the last action; the positions span all three rounds."""
    committed = json.loads(FIXTURE.read_text())
    moves = committed["moves"]
    step = jax.jit(match_step)
    env = envs.make(committed["env"])
    inputs = jax.jit(lambda s: (belief_module.features(env, s, moves), belief_module.uniform_logit(s)))
    for game in committed["games"]:
        stored = unpacked(game, committed["features_dim"])
        ms = match_reset_from(np.asarray(game["deck_orders"], np.int32), np.asarray(game["coins"], np.int32))
        recorded = iter(enumerate(game["plies"]))
        k, next_ply = next(recorded)
        for ply, action in enumerate(game["actions"]):
            assert not bool(ms.done)
            if ply == next_ply:
                x, prior = inputs(ms)
                assert np.array_equal(np.asarray(x), stored["features"][k])
                assert np.float32(prior) == stored["prior"][k]
                assert int(ms.round_idx) == game["round_idx"][k]
                k, next_ply = next(recorded, (None, None))
            ms = step(ms, action)[0]
        assert bool(ms.done) and next_ply is None
        assert game["plies"] == list(range(0, len(game["actions"]), committed["every"]))
    assert {r for game in committed["games"] for r in game["round_idx"]} == {0, 1, 2}


def test_the_shipped_onnx_belief_gives_the_fixture_logits():
    """web/public's ONNX belief is the fixture's belief, exported: onnxruntime gives its logits."""
    import onnxruntime

    committed = json.loads(FIXTURE.read_text())
    manifest = json.loads(SHIPPED.with_suffix(".json").read_text())
    assert manifest["source"] == committed["belief"] and manifest["features_dim"] == committed["features_dim"]
    session = onnxruntime.InferenceSession(str(SHIPPED), providers=["CPUExecutionProvider"])
    for game in committed["games"]:
        stored = unpacked(game, committed["features_dim"])
        (logits,) = session.run(["logits"], {"features": stored["features"], "prior": stored["prior"]})
        np.testing.assert_allclose(logits, stored["logits"], atol=1e-4, rtol=0)
