"""The one policy resolver (lost_cities/policies.py): a spec is parsed once into a typed
value; an exported model runs as its JAX network wherever it is used; a search over a net
of another env is an error, never a fallback to another scorer."""

from pathlib import Path

import jax
import numpy as np
import pytest

from lost_cities import envs, policies
from lost_cities.policies import BotSpec, ModelSpec, SearchSpec, make_policy, parse

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


def test_an_exported_model_plays_as_its_jax_network_and_as_onnxruntime_does():
    """``x.onnx`` is one policy everywhere: the JAX network read back from the model, which
    picks onnxruntime's moves (the agent of ``runtime="onnxruntime"``)."""
    from lost_cities import agents

    env = envs.make("match3")
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(4), 16))
    keys = jax.random.split(jax.random.PRNGKey(0), 16)
    policy = make_policy(str(WEB_MODEL), env)
    onnx_agent = agents.load(WEB_MODEL, runtime="onnxruntime")
    assert type(agents.load(WEB_MODEL)).__name__ == "Agent"
    jax_moves = np.asarray(jax.jit(jax.vmap(policy))(states, keys))
    onnx_moves = np.asarray(jax.jit(jax.vmap(onnx_agent.policy))(states, keys))
    np.testing.assert_array_equal(jax_moves, onnx_moves)


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
