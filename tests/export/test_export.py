"""ONNX export: onnxruntime against JAX on real match positions (the MLP and ActionNet
with its ``af1`` feature inputs), the manifest, and the ONNX agent against the
checkpoint agent.

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

from lost_cities import agents, bots
from lost_cities.checkpoints import Checkpoints
from lost_cities.envs import make as make_env
from lost_cities.export import OPSET, config_digest, export, policy_graph
from lost_cities.models.onnx import OnnxAgent
from lost_cities.networks.features import batched_action_features
from lost_cities.networks.nets import ILLEGAL_LOGIT, masked_logits
from lost_cities.ppo import config as schema
from lost_cities.ppo.trainer import Trainer, TrainState
from lost_cities.training.loop import checkpoint_meta

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("export")

GAMES, PLIES = 8, 200  # up to 1,600 positions of 3-round matches
TOLERANCE = 1e-5
ACTION_LOGITS_ATOL = 2e-4  # ActionNet's legal logits (|logit| up to ~50 with the drawn weights)


ACTION_NETWORK = ["network=action", "network.placement_hidden=[32,16]"]  # a placement layer too


def make_trainer(activation, network=("network=mlp",)):
    """The Trainer of a match3 run with a [64, 32] ``activation`` network (``network``:
    more overrides, e.g. :data:`ACTION_NETWORK`)."""
    overrides = ["env=match3", "logger=none", *network, "network.hidden=[64,32]"]
    overrides += [f"network.activation={activation}"]
    overrides += ["ppo.num_envs=2", "ppo.rollout_length=4", "ppo.total_decisions=8", "ppo.minibatches=1"]
    return Trainer.from_config(schema.validate(schema.compose(overrides)))


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


def write_run(run_dir, gates, network=("network=mlp",), metrics=()):
    """A relu match3 run dir with one checkpoint (update 0), a ``gates.json`` and
    ``metrics.jsonl`` rows ``metrics``."""
    trainer = make_trainer("relu", network)
    params = init_params(trainer, 0)
    zero = jnp.int32(0)
    state = TrainState(params, trainer.optimizer.init(params), None, jax.random.PRNGKey(0), zero, zero, zero)
    checkpoints = Checkpoints(run_dir, 1)
    checkpoints.save(0, state, checkpoint_meta(trainer, 0), best_score=0.0)
    checkpoints.close()
    (Path(run_dir) / "gates.json").write_text(json.dumps(gates))
    (Path(run_dir) / "metrics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in metrics))
    return trainer, params


def play_positions(bot_names, seed, games=GAMES):
    """States, observations and legal masks of the player to move, from match3 games where
    each move is one of the two bots' by a coin flip."""
    env = make_env("match3")
    first, second = (bots.make(name) for name in bot_names)

    def ply(state, key):
        player = env.to_move(state)
        record = (state, env.observe(state, player), env.legal_mask(state), env.done(state))
        coin, key = jax.random.split(key)
        action = jnp.where(jax.random.bernoulli(coin), first(state, key), second(state, key))
        state, _, _ = env.step(state, action)
        return state, record

    def game(key):
        init_key, play_key = jax.random.split(key)
        return jax.lax.scan(ply, env.init(init_key), jax.random.split(play_key, PLIES))[1]

    states, obs, masks, done = jax.jit(jax.vmap(game))(jax.random.split(jax.random.PRNGKey(seed), games))
    live = ~np.asarray(done).reshape(-1)
    flat = jax.tree_util.tree_map(lambda x: np.asarray(x).reshape(-1, *x.shape[2:])[live], states)
    return flat, np.asarray(obs).reshape(-1, env.obs_dim)[live], np.asarray(masks).reshape(-1, 96)[live]


@pytest.fixture(scope="module")
def positions():
    """Positions of games of random and discard_only moves (random alone drags a round out
    over a hundred plies; the mix reaches round 3)."""
    return play_positions(("random", "discard_only"), seed=3)


@pytest.fixture(scope="module")
def expert_positions():
    """Positions of games of heuristic_expert and random moves: expeditions built as a
    strong player builds them, which the af1 rows describe."""
    return play_positions(("heuristic_expert", "random"), seed=4, games=4)


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


def feeds(obs, masks, features=None):
    """The model's inputs; ``features="af1"`` adds the action feature rows computed in JAX."""
    inputs = {"obs": obs, "mask": masks.astype(np.float32)}
    if features == "af1":
        placement, draw = jax.jit(batched_action_features)(jnp.asarray(obs))
        inputs.update(placement=np.asarray(placement), draw=np.asarray(draw))
    return inputs


def check_parity(trainer, params, session, obs, masks, features=None, logits_atol=TOLERANCE):
    """onnxruntime against flax; returns the largest absolute differences of probs and legal logits."""
    probs, logits = session.run(["probs", "logits"], feeds(obs, masks, features))
    want_probs, want_logits = jax_policy(trainer, params, obs, masks)
    assert np.abs(probs - want_probs).max() <= TOLERANCE
    np.testing.assert_allclose(logits[masks], want_logits[masks], rtol=TOLERANCE, atol=logits_atol)
    assert np.array_equal(logits[~masks], np.full((~masks).sum(), ILLEGAL_LOGIT, np.float32))
    assert np.all(probs[~masks] == 0)
    np.testing.assert_allclose(probs.sum(-1), 1, atol=1e-5)
    legal_argmax = np.where(masks, probs, -1).argmax(-1)
    assert np.array_equal(legal_argmax, np.where(masks, want_probs, -1).argmax(-1))
    assert np.array_equal(logits.argmax(-1), want_logits.argmax(-1))
    assert masks[np.arange(len(masks)), legal_argmax].all()
    return np.abs(probs - want_probs).max(), np.abs(logits[masks] - want_logits[masks]).max()


@pytest.mark.slow
def test_enough_real_positions(positions):
    states, obs, masks = positions
    assert len(obs) >= 1000
    assert masks.any(-1).all()
    assert len(np.unique(obs, axis=0)) >= 1000  # real, distinct positions (not one state repeated)
    assert set(np.asarray(states.round_idx).tolist()) == {0, 1, 2}
    assert set(np.asarray(states.to_move).tolist()) == {0, 1}


@pytest.mark.slow
def test_relu_parity(relu_run, positions):
    _, trainer, params, out, _ = relu_run
    _, obs, masks = positions
    check_parity(trainer, params, agents.load(out, runtime="onnxruntime").session, obs, masks)


@pytest.mark.parametrize("activation", ["tanh", "gelu"])
@pytest.mark.slow
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
        "_target_": "lost_cities.networks.nets.ActorCritic",
        "hidden": [64, 32],
        "activation": "relu",
    }
    assert manifest["gates"] == {"vs_random": {"passed": True}}
    saved = checkpoint_meta(trainer, 0)["config"]
    assert manifest["config_sha256"] == config_digest(saved)
    assert manifest["config_sha256"] != config_digest({**saved, "seed": saved["seed"] + 1})
    assert manifest["update"] == 0 and manifest["created"]
    # the checkpoint dir exported (the run's final parameters), without the machine's path
    assert manifest["checkpoint"] == f"{run_dir.parent.name}/{run_dir.name}/checkpoints/latest"
    assert manifest["name"] == f"default {run_dir.name} update 0"


@pytest.mark.slow
def test_onnx_agent_acts_like_checkpoint_agent(relu_run, positions):
    run_dir, _, _, out, _ = relu_run
    states, _, _ = positions
    onnx_agent, jax_agent = agents.load(out, runtime="onnxruntime"), agents.load(run_dir)
    assert isinstance(onnx_agent, OnnxAgent)
    picks = range(0, len(states.done), 15)
    for i in picks:
        state = jax.tree_util.tree_map(lambda x, i=i: x[i], states)
        player = int(state.to_move)
        assert onnx_agent.act(state, player) == jax_agent.act(state, player)


@pytest.mark.slow
def test_sampling_agents_need_a_key_and_sample_legal_actions(relu_run, positions):
    run_dir, _, _, out, _ = relu_run
    states, _, _ = positions
    state = jax.tree_util.tree_map(lambda x: x[0], states)
    player = int(state.to_move)
    for agent in (agents.load(out, runtime="onnxruntime"), agents.load(out), agents.load(run_dir)):
        with pytest.raises(ValueError, match="greedy=False"):
            agent.act(state, player, greedy=False)  # a fixed key would repeat one "sample"
        samples = {agent.act(state, player, greedy=False, rng=jax.random.PRNGKey(k)) for k in range(20)}
        assert len(samples) > 1 and all(bool(agent.env.legal_mask(state)[a]) for a in samples)


@pytest.mark.slow
def test_onnx_policy_plays_batched_games(relu_run, positions):
    """``agent.policy`` (the pure_callback form) picks what ``act`` picks, under vmap."""
    _, _, _, out, _ = relu_run
    states, _, _ = positions
    agent = agents.load(out, runtime="onnxruntime")
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
        agents.load(tmp_path / "m.onnx", runtime="onnxruntime")


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


# ActionNet: the af1 feature inputs beside obs and mask, and the manifest that names them.
GATE_ROW = {
    "update": 0,
    "gates/heuristic_balanced/win_rate": 0.4,
    "gates/heuristic_expert/win_rate": 0.25,
    "gates/heuristic_expert/win_rate_lower": 0.2,
    "gates/heuristic_expert/win_rate_upper": 0.3,
    "gates/heuristic_expert/margin_mean": -12.5,
}


@pytest.fixture(scope="module")
def action_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("action_run")
    trainer, params = write_run(
        run_dir,
        gates={"random": {"passed": True}},
        network=ACTION_NETWORK,
        metrics=[GATE_ROW, {**GATE_ROW, "update": 5, "gates/heuristic_expert/win_rate": 0.9}],
    )
    out, manifest = export(run_dir, run_dir / "policy.onnx")
    return run_dir, trainer, params, out, manifest


@pytest.mark.slow
def test_action_net_positions_cover_strong_play(expert_positions):
    states, obs, masks = expert_positions
    assert len(obs) >= 500 and len(np.unique(obs, axis=0)) >= 500
    assert set(np.asarray(states.round_idx).tolist()) == {0, 1, 2}
    started = np.asarray(states.round.exp_count) > 0
    assert started.sum(axis=(1, 2)).max() >= 6  # expeditions on both sides, not only discards


@pytest.mark.parametrize("activation", ["relu", "tanh", "gelu"])
@pytest.mark.slow
def test_action_net_parity(activation, positions, expert_positions):
    """ActionNet's graph (context MLP, placement MLP of two layers, draw terms) against flax
    on real positions of random and of expert play, its af1 rows computed in JAX."""
    trainer = make_trainer(activation, ACTION_NETWORK)
    params = init_params(trainer, 2)
    network_cfg = {"_target_": "lost_cities.networks.nets.ActionNet", "hidden": [64, 32]}
    network_cfg.update(placement_hidden=[32, 16], activation=activation)
    model = policy_graph(params, network_cfg, trainer.env.obs_dim)
    session = ort.InferenceSession(model.SerializeToString())
    for _, obs, masks in (positions, expert_positions):
        # Logits of tens of units from sums of larger terms: float32 summation order
        # (XLA's dot against onnxruntime's MatMul) shows at ~1e-5 of their size.
        probs_error, logits_error = check_parity(
            trainer, params, session, obs, masks, features="af1", logits_atol=ACTION_LOGITS_ATOL
        )
        print(
            f"{activation}: {len(obs)} positions, max |probs| diff {probs_error:.2e}, "
            f"logits {logits_error:.2e}"
        )


@pytest.mark.slow
def test_action_net_logits_spread(action_run, expert_positions):
    """The parity above compares real decisions: the drawn weights make the legal logits
    differ by many units, not a near-tie, and the af1 inputs move them (zeroed rows change them)."""
    _, _, _, out, _ = action_run
    _, obs, masks = expert_positions
    session = agents.load(out, runtime="onnxruntime").session
    inputs = feeds(obs, masks, "af1")
    _, logits = session.run(["probs", "logits"], inputs)
    legal = np.where(masks, logits, np.nan)
    assert np.nanmedian(np.nanmax(legal, -1) - np.nanmin(legal, -1)) > 5
    zeroed = {**inputs, "draw": np.zeros_like(inputs["draw"])}
    assert np.abs(session.run(["logits"], zeroed)[0][masks] - logits[masks]).max() > 1


def test_action_net_model_contract_and_manifest(action_run):
    run_dir, _, _, out, manifest_path = action_run
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    shapes = {
        v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in [*model.graph.input, *model.graph.output]
    }
    want = {"obs": ["N", 512], "mask": ["N", 96], "placement": ["N", 16, 28], "draw": ["N", 96, 10]}
    assert shapes == {**want, "probs": ["N", 96], "logits": ["N", 96]}
    assert [v.name for v in model.graph.input] == list(want)
    manifest = json.loads(manifest_path.read_text())
    assert manifest["features"] == "af1"
    assert manifest["inputs"] == want
    assert manifest["network"]["_target_"] == "lost_cities.networks.nets.ActionNet"
    # strength: the run's gates at the exported update (update 0), strongest anchor first
    assert manifest["strength"] == {
        "opponent": "heuristic_expert",
        "games": 400,
        "win_rate": 0.25,
        "win_rate_lower": 0.2,
        "win_rate_upper": 0.3,
        "margin_mean": -12.5,
    }
    assert manifest["checkpoint"] == f"{run_dir.parent.name}/{run_dir.name}/checkpoints/latest"


def test_mlp_manifest_has_no_features(relu_run):
    _, _, _, _, manifest_path = relu_run
    manifest = json.loads(manifest_path.read_text())
    assert "features" not in manifest and "strength" not in manifest  # no gate ran at update 0
    assert list(manifest["inputs"]) == ["obs", "mask"]


def test_strength_from_an_evaluation_file(action_run, tmp_path):
    """``evaluation=``: evaluate's results.json (one result) or a name -> result mapping."""
    run_dir, *_ = action_run
    one = {
        "agent": "a.onnx",
        "opponent": "heuristic_balanced",
        "games": 40,
        "win_rate": 0.5,
        "margin_mean": 3.0,
    }
    (tmp_path / "results.json").write_text(json.dumps({**one, "win_rate_lower": None}))
    _, manifest_path = export(run_dir, tmp_path / "one.onnx", evaluation=tmp_path / "results.json")
    assert json.loads(manifest_path.read_text())["strength"] == {
        "opponent": "heuristic_balanced",
        "games": 40,
        "win_rate": 0.5,
        "margin_mean": 3.0,
    }
    mapping = {"random": {"games": 4, "win_rate": 1.0}, "heuristic_expert": {"games": 8, "win_rate": 0.125}}
    (tmp_path / "evaluation.json").write_text(json.dumps(mapping))
    _, manifest_path = export(run_dir, tmp_path / "two.onnx", evaluation=tmp_path / "evaluation.json")
    strength = json.loads(manifest_path.read_text())["strength"]
    assert strength == {"opponent": "heuristic_expert", "games": 8, "win_rate": 0.125}
    (tmp_path / "bad.json").write_text(json.dumps({"opponent": "random", "win_rate": 1.0}))
    with pytest.raises(ValueError, match="needs games"):
        export(run_dir, tmp_path / "three.onnx", evaluation=tmp_path / "bad.json")


def test_unknown_network_is_refused(relu_run):
    _, trainer, params, _, _ = relu_run
    with pytest.raises(ValueError, match="no ONNX export for network my.Net"):
        policy_graph(params, {"_target_": "my.Net", "hidden": [64, 32], "activation": "relu"}, 512)


@pytest.mark.slow
def test_onnx_action_agent_acts_like_checkpoint_agent(action_run, expert_positions):
    """The ONNX agent computes the af1 rows itself (manifest ``features``), in ``act`` and
    in the batched ``policy`` form, and picks what the checkpoint agent picks."""
    run_dir, _, _, out, _ = action_run
    states, _, _ = expert_positions
    onnx_agent, jax_agent = agents.load(out, runtime="onnxruntime"), agents.load(run_dir)
    assert onnx_agent.feature_names == ("placement", "draw")
    picks = list(range(0, len(states.done), 25))
    expected = []
    for i in picks:
        state = jax.tree_util.tree_map(lambda x, i=i: x[i], states)
        player = int(state.to_move)
        expected.append(jax_agent.act(state, player))
        assert onnx_agent.act(state, player) == expected[-1]
    batch = jax.tree_util.tree_map(lambda x: x[np.asarray(picks)], states)
    keys = jax.random.split(jax.random.PRNGKey(0), len(picks))
    assert np.asarray(jax.jit(jax.vmap(onnx_agent.policy))(batch, keys)).tolist() == expected


@pytest.mark.slow
def test_evaluate_plays_an_action_net_onnx(action_run):
    """``python -m lost_cities.evaluate agent=<ActionNet .onnx>``'s run (lost_cities.evaluation.matchup.run,
    the CLI without Hydra's config layer) plays whole duplicate matches with the exported agent."""
    from omegaconf import OmegaConf

    from lost_cities.evaluation import matchup as evaluate

    out = action_run[3]
    cfg = {
        "agent": str(out),
        "opponent": "discard_only",
        "env": "match3",
        "deals": 3,
        "bank": "v1",
        "first_deal": 0,
    }
    cfg |= {"seed": 0, "batch_size": 3, "progress": False, "baseline": None}
    results = evaluate.run(OmegaConf.create(cfg))
    assert results["games"] == 6 and results["wins"] + results["draws"] + results["losses"] == 6
    assert results["agent"] == str(out) and results["max_steps_rate"] == 0


def test_unknown_features_are_refused(action_run, tmp_path):
    _, _, _, out, manifest_path = action_run
    (tmp_path / "m.onnx").write_bytes(out.read_bytes())
    (tmp_path / "m.json").write_text(json.dumps({**json.loads(manifest_path.read_text()), "features": "af9"}))
    for runtime in ("onnxruntime", "jax"):
        with pytest.raises(ValueError, match="input features 'af9'; this agent computes af1"):
            agents.load(tmp_path / "m.onnx", runtime=runtime)


def _policy_leaves(params):
    """``{path: array}`` of every weight but the critic's."""
    flat = jax.tree_util.tree_flatten_with_path(params)[0]
    return {jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in flat if "critic" not in str(path)}


@pytest.mark.parametrize("run", ["relu_run", "action_run"])
def test_policy_weights_read_back_from_the_model(run, request):
    """``read_policy_params`` inverts the export: every policy weight of the checkpoint comes
    back exactly, and the critic (which the model leaves out) is the template's."""
    from lost_cities.models.exported import read_policy_params

    _, trainer, params, out, _ = request.getfixturevalue(run)
    template = init_params(trainer, 1)
    read = read_policy_params(out, template)
    expected, got = _policy_leaves(params), _policy_leaves(read)
    assert expected.keys() == got.keys() and len(got) >= 4
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value, err_msg=name)
    critic, fresh = (jax.tree_util.tree_leaves(p["params"]["critic"]) for p in (read, template))
    assert critic and all(np.array_equal(a, b) for a, b in zip(critic, fresh, strict=True))


def test_weights_of_another_network_are_refused(relu_run, action_run):
    """A template of another network than the model's: the weight that differs is named."""
    from lost_cities.models.exported import read_policy_params

    mlp_out, action_out, action_trainer = relu_run[3], action_run[3], action_run[1]
    with pytest.raises(ValueError, match=r"context_in_bias of shape \(32,\), the model has no such weight"):
        read_policy_params(mlp_out, init_params(action_trainer, 0))
    one_layer = make_trainer("relu", [*ACTION_NETWORK, "network.placement_hidden=[32]"])  # model: [32, 16]
    with pytest.raises(
        ValueError, match=r"placement_score_kernel of shape \(32, 1\), the model has shape \(16, 1\)"
    ):
        read_policy_params(action_out, init_params(one_layer, 0))


@pytest.mark.slow
def test_exported_agent_runs_in_jax_like_the_checkpoint(action_run, expert_positions):
    """``agents.load_exported``: the model's weights as a JAX agent pick the checkpoint agent's
    moves; as a search base its logits rank the candidates, as a checkpoint's do."""
    from lost_cities.policies import _base, parse

    run_dir, _, _, out, _ = action_run
    states, _, _ = expert_positions
    exported, checkpoint = agents.load_exported(out), agents.load(run_dir)
    assert exported.meta["critic"] is None and exported.env.name == "match3"
    batch = jax.tree_util.tree_map(lambda x: x[:: max(1, len(states.done) // 24)], states)
    keys = jax.random.split(jax.random.PRNGKey(0), len(batch.done))
    play = jax.jit(jax.vmap(lambda policy, s, k: policy(s, k), in_axes=(None, 0, 0)))
    assert (
        np.asarray(play(exported.policy, batch, keys)).tolist()
        == np.asarray(play(checkpoint.policy, batch, keys)).tolist()
    )
    (_, exported_scores), (_, checkpoint_scores) = (
        _base(parse(str(out)), exported.env, None),
        _base(parse(str(run_dir)), exported.env, None),
    )
    scores = jax.jit(jax.vmap(lambda f, s: f(s), in_axes=(None, 0)))
    np.testing.assert_allclose(scores(exported_scores, batch), scores(checkpoint_scores, batch), atol=1e-5)


def test_a_run_starts_from_an_exported_model(action_run):
    """``init.start`` / ``init.checkpoint`` = an ``.onnx``: its policy's weights, this run's
    fresh critic; a run of another network is refused before any weight is read."""
    from lost_cities.imitation.warm_start import load_pretrained

    _, trainer, params, out, _ = action_run
    template = init_params(trainer, 2)
    read = load_pretrained(out, trainer, "init.start", template=template)
    assert _policy_leaves(read).keys() == _policy_leaves(params).keys()
    for name, value in _policy_leaves(params).items():
        np.testing.assert_array_equal(_policy_leaves(read)[name], value, err_msg=name)
    other = make_trainer("relu", [*ACTION_NETWORK, "network.placement_hidden=[32]"])
    with pytest.raises(
        ValueError, match=r"init.start=.*policy.onnx: its network .* does not match this run's"
    ):
        load_pretrained(out, other, "init.start")
    with pytest.raises(FileNotFoundError, match="init.checkpoint=.*nothing.onnx: no such model file"):
        load_pretrained(out.parent / "nothing.onnx", trainer)


def test_an_existing_model_or_manifest_is_kept_unless_overwrite_is_asked(relu_run, tmp_path):
    run_dir, _, _, out, _ = relu_run
    before = out.read_bytes()
    with pytest.raises(FileExistsError, match="overwrite=true"):
        export(run_dir, out)
    assert out.read_bytes() == before
    (tmp_path / "lone.json").write_text("{}")  # a manifest without its model is not replaced either
    with pytest.raises(FileExistsError, match="lone.json exists"):
        export(run_dir, tmp_path / "lone.onnx")
    assert not (tmp_path / "lone.onnx").exists()
    again, manifest = export(run_dir, out, overwrite=True)
    assert again == out and json.loads(manifest.read_text())["update"] >= 0
