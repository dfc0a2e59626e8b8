"""ONNX export: onnxruntime against JAX on real match positions, the manifest, and the
ONNX agent against the checkpoint agent.

The checkpoint is written by the project's own code (``Trainer`` from the composed
config, ``Checkpoints.save`` with ``checkpoint_meta``), its network's weights drawn
large: the head's near-zero init would make every position a near-tie and the
argmax comparison meaningless. (``Trainer.init`` is skipped: it compiles the rollout's
env slots, which a checkpoint of the policy does not need.)
"""

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hydra import compose, initialize_config_module

from lost_cities import agents, bots
from lost_cities.agents.onnx import OnnxAgent
from lost_cities.cli.train import checkpoint_meta
from lost_cities.envs import make as make_env
from lost_cities.export import OPSET, config_digest, export, policy_graph
from lost_cities.ppo import config as schema
from lost_cities.ppo.checkpoint import Checkpoints
from lost_cities.ppo.network import ILLEGAL_LOGIT, masked_logits
from lost_cities.ppo.trainer import Trainer, TrainState

GAMES, PLIES = 8, 200  # up to 1,600 positions of 3-round matches
TOLERANCE = 1e-5


def make_trainer(activation):
    """The Trainer of a match3 run with a [64, 32] ``activation`` network."""
    overrides = ["env=match3", "logger=none", "network.hidden=[64,32]", f"network.activation={activation}"]
    overrides += ["ppo.num_envs=2", "ppo.rollout_length=4", "ppo.total_decisions=8", "ppo.minibatches=1"]
    with initialize_config_module(config_module="lost_cities.conf", version_base=None):
        return Trainer.from_config(schema.validate(compose("config", overrides=overrides)))


def init_params(trainer, seed):
    """The network's params (shapes from ``network.init``) drawn large: weights
    ~ N(0, 9/fan_in), biases ~ N(0, 0.1^2), so the logits spread over several units (the
    observation is sparse) and a wrong activation shows in them."""
    env, rng = trainer.env, np.random.default_rng(seed)
    shapes = jax.eval_shape(
        trainer.network.init,
        jax.random.PRNGKey(0),
        jnp.zeros((1, env.obs_dim)),
        jnp.zeros((1, env.privileged_dim)),
    )
    return jax.tree_util.tree_map(
        lambda p: jnp.asarray(
            rng.normal(0, 3 * p.shape[0] ** -0.5 if len(p.shape) == 2 else 0.1, p.shape), jnp.float32
        ),
        shapes,
    )


def write_run(run_dir, gates):
    """A relu match3 run dir with one checkpoint (update 0) and a ``gates.json``."""
    trainer = make_trainer("relu")
    params = init_params(trainer, 0)
    zero = jnp.int32(0)
    state = TrainState(params, trainer.optimizer.init(params), None, jax.random.PRNGKey(0), zero, zero, zero)
    checkpoints = Checkpoints(run_dir, 1)
    checkpoints.save(0, state, checkpoint_meta(trainer, 0), best_score=0.0)
    checkpoints.close()
    (Path(run_dir) / "gates.json").write_text(json.dumps(gates))
    return trainer, params


@pytest.fixture(scope="module")
def positions():
    """States, observations and legal masks of the player to move, from match3 games where
    each move is the random bot's or discard_only's by a coin flip (random alone drags a
    round out over a hundred plies; the mix reaches round 3)."""
    env = make_env("match3")
    random_bot, discard_only = bots.make("random"), bots.make("discard_only")

    def ply(state, key):
        player = env.to_move(state)
        record = (state, env.observe(state, player), env.legal_mask(state), env.done(state))
        coin, key = jax.random.split(key)
        action = jnp.where(jax.random.bernoulli(coin), random_bot(state, key), discard_only(state, key))
        state, _, _ = env.step(state, action)
        return state, record

    def game(key):
        init_key, play_key = jax.random.split(key)
        return jax.lax.scan(ply, env.init(init_key), jax.random.split(play_key, PLIES))[1]

    states, obs, masks, done = jax.jit(jax.vmap(game))(jax.random.split(jax.random.PRNGKey(3), GAMES))
    live = ~np.asarray(done).reshape(-1)
    flat = jax.tree_util.tree_map(lambda x: np.asarray(x).reshape(-1, *x.shape[2:])[live], states)
    return flat, np.asarray(obs).reshape(-1, env.obs_dim)[live], np.asarray(masks).reshape(-1, 96)[live]


@pytest.fixture(scope="module")
def relu_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("run")
    trainer, params = write_run(run_dir, gates={"vs_random": {"passed": True}})
    out, manifest = export(run_dir, run_dir / "policy.onnx")
    return run_dir, trainer, params, out, manifest


def jax_policy(trainer, params, obs, masks):
    logits = trainer.network.apply(params, jnp.asarray(obs), method="logits")
    logits = masked_logits(logits, jnp.asarray(masks))
    return np.asarray(jax.nn.softmax(logits)), np.asarray(logits)


def check_parity(trainer, params, session, obs, masks):
    probs, logits = session.run(["probs", "logits"], {"obs": obs, "mask": masks.astype(np.float32)})
    want_probs, want_logits = jax_policy(trainer, params, obs, masks)
    assert np.abs(probs - want_probs).max() <= TOLERANCE
    np.testing.assert_allclose(logits[masks], want_logits[masks], rtol=TOLERANCE, atol=TOLERANCE)
    assert np.array_equal(logits[~masks], np.full((~masks).sum(), ILLEGAL_LOGIT, np.float32))
    assert np.all(probs[~masks] == 0)
    np.testing.assert_allclose(probs.sum(-1), 1, atol=1e-5)
    legal_argmax = np.where(masks, probs, -1).argmax(-1)
    assert np.array_equal(legal_argmax, np.where(masks, want_probs, -1).argmax(-1))
    assert np.array_equal(logits.argmax(-1), want_logits.argmax(-1))
    assert masks[np.arange(len(masks)), legal_argmax].all()


def test_enough_real_positions(positions):
    states, obs, masks = positions
    assert len(obs) >= 1000
    assert masks.any(-1).all()
    assert len(np.unique(obs, axis=0)) >= 1000  # real, distinct positions (not one state repeated)
    assert set(np.asarray(states.round_idx).tolist()) == {0, 1, 2}
    assert set(np.asarray(states.to_move).tolist()) == {0, 1}


def test_relu_parity(relu_run, positions):
    _, trainer, params, out, _ = relu_run
    _, obs, masks = positions
    check_parity(trainer, params, agents.load(out).session, obs, masks)


@pytest.mark.parametrize("activation", ["tanh", "gelu"])
def test_activation_parity(activation, positions):
    """The other activations' graphs (gelu in flax's tanh form) against flax."""
    trainer = make_trainer(activation)
    params = init_params(trainer, 1)
    model = policy_graph(params, {"hidden": [64, 32], "activation": activation}, trainer.env.obs_dim)
    _, obs, masks = positions
    check_parity(trainer, params, ort.InferenceSession(model.SerializeToString()), obs, masks)


def test_model_contract(relu_run):
    _, _, _, out, _ = relu_run
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [OPSET]
    shapes = {
        v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in [*model.graph.input, *model.graph.output]
    }
    assert shapes == {"obs": ["N", 512], "mask": ["N", 96], "probs": ["N", 96], "logits": ["N", 96]}
    assert not any(node.domain not in ("", "ai.onnx") for node in model.graph.node)


def test_manifest(relu_run):
    run_dir, trainer, _, out, manifest_path = relu_run
    assert manifest_path == out.with_suffix(".json")
    manifest = json.loads(manifest_path.read_text())
    env = make_env("match3")
    assert manifest["placeholder"] is False
    assert (manifest["env"], manifest["obs_version"], manifest["obs_dim"]) == ("match3", env.obs_version, 512)
    assert manifest["n_actions"] == 96 and manifest["opset"] == OPSET
    assert "hand_slot * 12 + place_type * 6 + draw_source" in manifest["action_encoding"]
    assert manifest["network"] == {
        "_target_": "lost_cities.ppo.network.ActorCritic",
        "hidden": [64, 32],
        "activation": "relu",
    }
    assert manifest["gates"] == {"vs_random": {"passed": True}}
    saved = checkpoint_meta(trainer, 0)["config"]
    assert manifest["config_sha256"] == config_digest(saved)
    assert manifest["config_sha256"] != config_digest({**saved, "seed": saved["seed"] + 1})
    assert manifest["update"] == 0 and manifest["created"]
    assert manifest["checkpoint"] == f"{run_dir.parent.name}/{run_dir.name}"  # no machine path
    assert manifest["name"] == f"default {run_dir.name} update 0"


def test_onnx_agent_acts_like_checkpoint_agent(relu_run, positions):
    run_dir, _, _, out, _ = relu_run
    states, _, _ = positions
    onnx_agent, jax_agent = agents.load(out), agents.load(run_dir)
    assert isinstance(onnx_agent, OnnxAgent)
    picks = range(0, len(states.done), 15)
    for i in picks:
        state = jax.tree_util.tree_map(lambda x, i=i: x[i], states)
        player = int(state.to_move)
        assert onnx_agent.act(state, player) == jax_agent.act(state, player)


def test_sampling_agents_need_a_key_and_sample_legal_actions(relu_run, positions):
    run_dir, _, _, out, _ = relu_run
    states, _, _ = positions
    state = jax.tree_util.tree_map(lambda x: x[0], states)
    player = int(state.to_move)
    for agent in (agents.load(out), agents.load(run_dir)):
        with pytest.raises(ValueError, match="greedy=False"):
            agent.act(state, player, greedy=False)  # a fixed key would repeat one "sample"
        samples = {agent.act(state, player, greedy=False, rng=jax.random.PRNGKey(k)) for k in range(20)}
        assert len(samples) > 1 and all(bool(agent.env.legal_mask(state)[a]) for a in samples)


def test_onnx_policy_plays_batched_games(relu_run, positions):
    """``agent.policy`` (the pure_callback form) picks what ``act`` picks, under vmap."""
    _, _, _, out, _ = relu_run
    states, _, _ = positions
    agent = agents.load(out)
    batch = jax.tree_util.tree_map(lambda x: x[:64], states)
    actions = jax.jit(jax.vmap(agent.policy))(batch, jax.random.split(jax.random.PRNGKey(0), 64))
    expected = [
        agent.act(jax.tree_util.tree_map(lambda x, i=i: x[i], batch), int(batch.to_move[i]))
        for i in range(64)
    ]
    assert np.asarray(actions).tolist() == expected


def test_obs_version_mismatch_is_refused(relu_run):
    _, _, _, out, _ = relu_run
    with pytest.raises(ValueError, match="observation v2 .*single_round gives v1"):
        agents.load(out, env="single_round")


def test_manifest_that_lies_about_obs_dim_is_refused(relu_run, tmp_path):
    _, _, _, out, manifest_path = relu_run
    manifest = json.loads(manifest_path.read_text())
    (tmp_path / "m.onnx").write_bytes(out.read_bytes())
    (tmp_path / "m.json").write_text(
        json.dumps({**manifest, "obs_version": "v1", "obs_dim": 454, "env": "single_round"})
    )
    with pytest.raises(ValueError, match="input has 512 floats but its manifest says 454"):
        agents.load(tmp_path / "m.onnx")


def test_missing_manifest_is_refused(relu_run, tmp_path):
    _, _, _, out, _ = relu_run
    (tmp_path / "lonely.onnx").write_bytes(out.read_bytes())
    with pytest.raises(FileNotFoundError, match="no manifest"):
        agents.load(tmp_path / "lonely.onnx")


def test_missing_checkpoint_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="holds no checkpoint"):
        export(tmp_path, tmp_path / "policy.onnx")
    assert not (tmp_path / "policy.onnx").exists()


def test_out_must_be_onnx(relu_run, tmp_path):
    run_dir, *_ = relu_run
    with pytest.raises(ValueError, match="must end in .onnx"):
        export(run_dir, tmp_path / "policy.bin")
