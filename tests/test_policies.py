"""The one policy resolver (lost_cities/policies.py): a spec is parsed once into a typed
value; an exported model runs as its JAX network wherever it is used; a search over a net
of another env is an error, never a fallback to another scorer; ``search:<base>`` specs
resolve wherever a policy is (make_policy, agents.load), and a network proposes the
search's candidates by its logits."""

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import PRESETS, _take

from lost_cities import envs, policies
from lost_cities.game.match import match_legal_action_mask
from lost_cities.policies import BotSpec, ModelSpec, SearchSpec, make_policy, parse
from lost_cities.search import config as search_config
from lost_cities.search import top_candidates

WEB_MODEL = Path(__file__).resolve().parents[1] / "web" / "public" / "bc-ppo-xi6-bal2700.onnx"


def test_specs_parse_into_typed_values(tmp_path):
    assert parse("heuristic_expert") == BotSpec("heuristic_expert")
    assert parse(str(WEB_MODEL)) == ModelSpec(str(WEB_MODEL)) and parse(str(WEB_MODEL)).exported
    assert parse(str(tmp_path)) == ModelSpec(str(tmp_path)) and not parse(str(tmp_path)).exported
    search = parse(f"search/fast:{WEB_MODEL}")
    assert search == SearchSpec(f"search/fast:{WEB_MODEL}", "fast", ModelSpec(str(WEB_MODEL)))
    assert parse("search:heuristic_expert").preset == "default"
    assert parse(search) is search  # a parsed spec is returned as it is
    assert policies.is_search("search/fast:x") and not policies.is_search("searchlight:x")
    assert not policies.is_search("outputs/search:x")


@pytest.mark.parametrize(
    "text, error, match",
    [
        ("heuristic_expertt", ValueError, "neither an existing checkpoint.*unknown bot 'heuristic_expertt'"),
        ("search:", ValueError, "search:<base>"),
        ("search:no_such_bot", ValueError, "neither an existing checkpoint"),
        ("missing.onnx", FileNotFoundError, "missing.onnx: no such model file"),
    ],
)
def test_a_bad_spec_is_an_error_naming_it(text, error, match):
    with pytest.raises(error, match=match):
        parse(text)


def test_search_knobs_apply_to_a_search_only():
    with pytest.raises(ValueError, match="'random' is not a search; search knobs \\['worlds'\\]"):
        make_policy("random", envs.make("match3"), worlds=2)


def _played(match_states, every):
    """Every ``every``-th position of the played matches: all three rounds, both seats to
    move, discard piles and known cards in the opponent's hand (not only fresh deals)."""
    states = _take(match_states, np.arange(0, match_states.round_idx.shape[0], every))
    rounds = np.asarray(states.round_idx)
    assert set(rounds.tolist()) == {0, 1, 2} and set(np.asarray(states.to_move).tolist()) == {0, 1}
    assert (np.asarray(states.round.pile_size).sum(axis=1) > 0).mean() > 0.5
    return states


@pytest.mark.slow
def test_an_exported_model_plays_as_its_jax_network_and_as_onnxruntime_does(match_states):
    """``x.onnx`` is one policy everywhere: the JAX network read back from the model, which
    picks onnxruntime's moves (the agent of ``runtime="onnxruntime"``) at positions met in
    play, in every round."""
    from lost_cities import agents

    env = envs.make("match3")
    states = _played(match_states, 7)
    n = states.round_idx.shape[0]
    assert n > 150
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    policy = make_policy(str(WEB_MODEL), env)
    onnx_agent = agents.load(WEB_MODEL, runtime="onnxruntime")
    assert type(agents.load(WEB_MODEL)).__name__ == "Agent"
    jax_moves = np.asarray(jax.jit(jax.vmap(policy))(states, keys))
    onnx_moves = np.asarray(jax.jit(jax.vmap(onnx_agent.policy))(states, keys))
    np.testing.assert_array_equal(jax_moves, onnx_moves)
    assert len(set(jax_moves.tolist())) > 10  # many different moves, not one answer everywhere


@pytest.mark.slow
def test_every_shipped_model_runs_in_jax_the_oldest_as_in_onnxruntime(match_states):
    """Every shipped manifest names a network this package builds, and that network, with the
    model's weights read back, scores played positions as onnxruntime scores the file: 96
    finite logits per position, whose legal-masked best move is legal and onnxruntime's.
    web/public/policy.onnx, exported before the network was a choice, names none and is the
    MLP (it was refused with omegaconf's "Missing key _target_")."""
    from omegaconf import OmegaConf

    from lost_cities import agents
    from lost_cities.models.base import read_manifest, shipped_model, shipped_models
    from lost_cities.models.exported import read_policy_params
    from lost_cities.networks.critic.shared import SharedCritic
    from lost_cities.networks.features import observer_view
    from lost_cities.networks.nets import ILLEGAL_LOGIT, build_network, masked_logits

    env = envs.make("match3")
    states = _played(match_states, 13)
    n = states.round_idx.shape[0]
    movers = np.asarray(states.to_move)
    obs = jax.vmap(env.observe)(states, movers)
    view = jax.vmap(observer_view)(states.round, movers)
    legal = np.asarray(jax.vmap(env.legal_mask)(states))
    names = shipped_models()
    assert "policy.onnx" in names and len(names) >= 5
    for name in names:
        network = build_network(
            OmegaConf.create(read_manifest(shipped_model(name))["network"]), SharedCritic(gae_lambda=0.0)
        )
        template = network.init(jax.random.PRNGKey(0), obs[:1], jnp.zeros((1, 0)))
        params = read_policy_params(shipped_model(name), template)
        logits = network.apply(params, obs, network.input_features(obs, view), method="logits")
        assert logits.shape == (n, 96) and np.isfinite(np.asarray(logits)).all(), name
        masked = np.asarray(masked_logits(logits, legal))
        assert (masked[~legal] == ILLEGAL_LOGIT).all() and (masked[legal] > ILLEGAL_LOGIT).all(), name
        moves = masked.argmax(axis=1)
        assert legal[np.arange(n), moves].all(), name
        _, onnx_logits = agents.load(shipped_model(name), runtime="onnxruntime").run(obs, legal)
        np.testing.assert_array_equal(moves, onnx_logits.argmax(axis=1), err_msg=name)
        np.testing.assert_allclose(
            np.asarray(logits)[legal], onnx_logits[legal], rtol=1e-4, atol=1e-4, err_msg=name
        )
    oldest = shipped_model("policy.onnx")
    assert "_target_" not in read_manifest(oldest)["network"]
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    jax_moves = np.asarray(jax.jit(jax.vmap(agents.load(oldest).policy))(states, keys))
    onnx_moves = np.asarray(
        jax.jit(jax.vmap(agents.load(oldest, runtime="onnxruntime").policy))(states, keys)
    )
    np.testing.assert_array_equal(jax_moves, onnx_moves)


@pytest.mark.slow
def test_a_search_over_a_net_of_another_env_is_an_error_not_a_fallback(tmp_path):
    """Before: the search ranked a wrong-env net's candidates by the expert's scores, silently."""
    with pytest.raises(ValueError, match="network of env match3; this plays env single_round"):
        make_policy(f"search/fast:{WEB_MODEL}", envs.make("single_round"))
    with pytest.raises(ValueError, match="search\\.proposer=.*network of env match3"):
        make_policy("search:heuristic_expert", envs.make("single_round"), proposer=str(WEB_MODEL))


def test_a_leaf_must_be_a_checkpoint_with_a_critic():
    with pytest.raises(ValueError, match="search.leaf=.*a checkpoint dir .*not a bot"):
        make_policy("search:heuristic_expert", envs.make("match3"), depth=4, leaf="heuristic_expert")
    with pytest.raises(ValueError, match="search.leaf=.*a checkpoint dir"):
        make_policy("search:heuristic_expert", envs.make("match3"), depth=4, leaf=str(WEB_MODEL))


# ---- specs: search:<base> wherever a policy is resolved -----------------------------------------------


@pytest.fixture
def checkout_presets(monkeypatch):
    """Presets from this checkout (an installed lost_cities.conf may be another checkout's)."""
    monkeypatch.setattr(search_config, "conf_dir", lambda: PRESETS)


@pytest.mark.slow
def test_make_policy_and_agents_load_accept_search_specs(checkout_presets, match_states, capsys):
    from lost_cities import agents
    from lost_cities.policies import make_policy

    env = envs.make("match3")
    policy = make_policy("search:heuristic_expert", env)
    assert "worlds x" in capsys.readouterr().out  # the cost per decision is printed
    state = _take(match_states, 5)
    action = int(jax.jit(policy)(state, jax.random.PRNGKey(0)))
    assert bool(match_legal_action_mask(state)[action])
    agent = agents.load("search:heuristic_expert")
    assert agent.act(state, int(state.to_move), rng=jax.random.PRNGKey(0)) == action
    with pytest.raises(ValueError, match="unknown search preset"):
        make_policy("search/no-such-preset:heuristic_expert", env)
    with pytest.raises(ValueError, match="neither an existing checkpoint"):
        make_policy("search:no_such_bot", env)


@pytest.mark.slow
def test_a_network_proposes_the_candidates_by_its_logits(tmp_path, match_states):
    """``proposer=<.onnx>``: the network's logits rank the challengers of the base move. The
    test network's logits are the expert's action values, so it proposes what the expert's
    own scores do, and a copy with the logits negated scores every legal action the other
    way (the proposer reads the model it is given); an unknown proposer is refused."""
    import action_fixture

    from lost_cities.policies import _base

    env = envs.make("match3")
    model = action_fixture.expert_model(tmp_path / "expert.onnx")
    policy, by_logits = _base("heuristic_balanced", env, proposer=str(model))
    _, by_values = _base("heuristic_balanced", env, proposer="heuristic_expert")
    states = _take(match_states, np.arange(0, match_states.round_idx.shape[0], 5))
    bases = jax.jit(jax.vmap(policy))(
        states, jax.random.split(jax.random.PRNGKey(0), states.round_idx.shape[0])
    )
    masks = jax.jit(jax.vmap(match_legal_action_mask))(states)

    def candidates(scores):
        return jax.jit(jax.vmap(lambda s, m, b: top_candidates(scores(s), m, b, 4)))(states, masks, bases)

    (logit_actions, logit_valid), (value_actions, value_valid) = candidates(by_logits), candidates(by_values)
    np.testing.assert_array_equal(logit_valid, value_valid)
    np.testing.assert_array_equal(
        np.where(logit_valid, logit_actions, -1), np.where(value_valid, value_actions, -1)
    )
    assert (logit_actions[:, 1] != logit_actions[:, 0]).all()  # challengers, not the base move again
    upside_down = action_fixture.expert_model(tmp_path / "upside-down.onnx", logit_per_point=-1.0)
    _, by_negated = _base("heuristic_balanced", env, proposer=str(upside_down))
    masks = np.asarray(masks)
    scores, negated = (np.asarray(jax.jit(jax.vmap(f))(states)) for f in (by_logits, by_negated))
    np.testing.assert_allclose(negated[masks], -scores[masks], rtol=1e-5, atol=1e-4)
    assert np.ptp(scores[masks]) > 1.0  # the logits are not all one value
    with pytest.raises(ValueError, match="unknown search proposer 'no_such'.*checkpoint dir or exported"):
        _base("heuristic_balanced", env, proposer="no_such")
