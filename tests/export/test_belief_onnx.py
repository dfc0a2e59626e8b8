"""The belief's ONNX export (lost_cities/export/belief.py, ``python -m lost_cities.belief
export``): onnxruntime gives the Flax logits, and the manifest beside the model."""

import dataclasses

import jax
import numpy as np
import pytest
from search_common import _random_belief, _take, belief_command

from lost_cities import envs
from lost_cities.export.belief import export_onnx
from lost_cities.game.cards import N_CARDS
from lost_cities.search import belief as belief_module


@pytest.mark.slow
def test_an_exported_belief_gives_the_flax_logits(match_states, tmp_path):
    """The web client's search mode runs the belief in onnxruntime: the exported model gives
    what :class:`BeliefNet` gives on the features of positions met in play, for a belief of
    two hidden layers whose every weight and bias is random (none zero, as training starts
    the last layer)."""
    import onnxruntime

    belief = _random_belief(hidden=(32, 16))
    keys = iter(jax.random.split(jax.random.PRNGKey(5), 8))
    params = jax.tree_util.tree_map_with_path(
        lambda path, v: jax.random.normal(next(keys), v.shape) * 0.2 if path[-1].key == "bias" else v,
        belief.params,
    )
    belief = dataclasses.replace(belief, params=params)
    env = envs.make("match3")
    states = _take(match_states, np.linspace(0, match_states.round_idx.shape[0] - 1, 64).astype(int))
    x, prior = jax.jit(
        jax.vmap(lambda s: (belief_module.features(env, s, 8), belief_module.uniform_logit(s)))
    )(states)
    want = np.asarray(belief_module.BeliefNet(belief.hidden).apply(belief.params, x, prior))
    assert np.abs(want - np.asarray(prior)[:, None]).min(axis=1).max() > 0.01  # a correction to every card
    assert len(set(np.asarray(prior).round(4).tolist())) > 5 and np.asarray(x)[:, 512:].any()
    model, _ = export_onnx(belief, tmp_path / "belief.onnx", "random.msgpack")
    session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    got = session.run(["logits"], {"features": np.asarray(x), "prior": np.asarray(prior)})[0]
    assert got.shape == (64, N_CARDS) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, atol=1e-4, rtol=0)


def test_an_exported_belief_has_its_manifest_and_only_match3_exports(tmp_path, capsys):
    """``python -m lost_cities.belief export`` writes the model (opset 17, IR 8, a
    dynamic batch) and the manifest beside it; a belief of another env is refused."""
    import json

    import onnx

    belief = _random_belief()
    source = tmp_path / "random.msgpack"
    belief_module.save(source, belief)
    (tmp_path / "web").mkdir()
    belief_command(action="export", belief=str(source), out=str(tmp_path / "web" / "belief.onnx"))
    assert "belief.onnx" in capsys.readouterr().out
    info = json.loads((tmp_path / "web" / "belief.json").read_text())
    assert info == {
        "format": "lost-cities-belief",
        "version": 1,
        "env": "match3",
        "obs_version": "v2",
        "moves": 8,
        "features_dim": 1472,
        "hidden": [32],
        "inputs": {"features": ["N", 1472], "prior": ["N"]},
        "outputs": {"logits": ["N", 60]},
        "report": {"base": "none"},
        "source": str(source),
    }
    model = onnx.load(str(tmp_path / "web" / "belief.onnx"))
    assert model.ir_version == 8 and [(o.domain, o.version) for o in model.opset_import] == [("", 17)]

    def shapes(values):
        return {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in values}

    assert shapes(model.graph.input) == info["inputs"] and shapes(model.graph.output) == info["outputs"]
    with pytest.raises(ValueError, match="reads single_round states; the web client plays match3"):
        export_onnx(
            dataclasses.replace(belief, env_name="single_round"), tmp_path / "round.onnx", "round.msgpack"
        )
    with pytest.raises(ValueError, match="must end in .onnx"):
        export_onnx(belief, tmp_path / "belief.bin", "random.msgpack")
