"""The environment contract (lost_cities.envs.base.Env), held over every registered env.

In the spirit of Pgx's api_test: shapes and dtypes of everything an env returns, jit and
vmap, legal masks that are never empty while a game runs, illegal and post-done actions
as no-ops, the reward only on the ending transition (zero-sum, equal to ``final_margin``),
and observation sizes that match the env's declared attributes.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lost_cities import State, envs
from lost_cities.evaluation import deal_bank
from lost_cities.game.cards import MAX_STEPS, N_ACTIONS
from lost_cities.game.sampling import uniform_legal_action

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("env_contract")

ENVS = envs.names()
GAMES = 6


def test_the_registry_holds_the_spec_envs():
    assert {"single_round", "match3"} <= set(ENVS)
    for name in ENVS:
        assert envs.make(name) is envs.make(name)  # one instance per name: one compile per process


def _equal(a, b):
    return all(
        bool(jnp.array_equal(x, y)) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True)
    )


@pytest.fixture(scope="module", params=ENVS)
def env(request):
    return envs.make(request.param)


def test_attributes_describe_the_env(env):
    assert isinstance(env.name, str) and env.name in ENVS
    assert isinstance(env.obs_version, str) and env.obs_version
    assert isinstance(env.rounds, int) and env.rounds >= 1
    assert env.privileged_dim > env.obs_dim > 0


@pytest.mark.slow
def test_shapes_and_dtypes(env):
    state = env.init(jax.random.PRNGKey(0))
    player = env.to_move(state)
    assert player.shape == () and player.dtype == jnp.int32
    assert env.done(state).shape == () and env.done(state).dtype == jnp.bool_ and not env.done(state)
    obs = env.observe(state, player)
    assert obs.shape == (env.obs_dim,) and obs.dtype == jnp.float32
    privileged = env.privileged(state, player)
    assert privileged.shape == (env.privileged_dim,) and privileged.dtype == jnp.float32
    mask = env.legal_mask(state)
    assert mask.shape == (N_ACTIONS,) and mask.dtype == jnp.bool_ and bool(mask.any())
    margin = env.final_margin(state)
    assert margin.shape == (2,) and margin.dtype == jnp.float32
    assert isinstance(env.round_state(state), State)
    next_state, reward, done = env.step(state, jnp.argmax(mask).astype(jnp.int32))
    assert reward.shape == (2,) and reward.dtype == jnp.float32
    assert done.shape == () and done.dtype == jnp.bool_
    assert jax.tree.structure(next_state) == jax.tree.structure(state)


@pytest.mark.slow
def test_jit_and_vmap_give_batched_results_equal_to_single_games(env):
    keys = jax.random.split(jax.random.PRNGKey(1), GAMES)
    states = jax.jit(jax.vmap(env.init))(keys)
    masks = jax.jit(jax.vmap(env.legal_mask))(states)
    obs = jax.jit(jax.vmap(env.observe))(states, jax.vmap(env.to_move)(states))
    assert masks.shape == (GAMES, N_ACTIONS) and obs.shape == (GAMES, env.obs_dim)
    actions = jnp.argmax(masks, axis=1).astype(jnp.int32)
    stepped, rewards, dones = jax.jit(jax.vmap(env.step))(states, actions)
    assert rewards.shape == (GAMES, 2) and dones.shape == (GAMES,)
    for g in range(GAMES):
        single = env.init(keys[g])
        assert _equal(jax.tree.map(lambda x, g=g: x[g], states), single)
        np.testing.assert_array_equal(obs[g], env.observe(single, env.to_move(single)))
        after, _, _ = env.step(single, actions[g])
        assert _equal(jax.tree.map(lambda x, g=g: x[g], stepped), after)


@pytest.mark.slow
def test_init_from_deal_is_deterministic(env):
    deck_orders, coins = deal_bank(2)
    a = env.init_from_deal(jnp.asarray(deck_orders[0]), jnp.asarray(coins[0]))
    b = env.init_from_deal(jnp.asarray(deck_orders[0]), jnp.asarray(coins[0]))
    c = env.init_from_deal(jnp.asarray(deck_orders[1]), jnp.asarray(coins[1]))
    assert _equal(a, b) and not _equal(a, c)


@pytest.mark.slow
def test_an_illegal_action_is_a_no_op(env):
    state = env.init(jax.random.PRNGKey(2))
    illegal = jnp.argmin(env.legal_mask(state)).astype(jnp.int32)
    assert not env.legal_mask(state)[illegal]
    for action in (illegal, jnp.int32(-1), jnp.int32(N_ACTIONS)):
        after, reward, done = env.step(state, action)
        assert _equal(after, state) and not bool(done)
        np.testing.assert_array_equal(reward, 0.0)


@pytest.fixture(scope="module")
def played(env):
    """``GAMES`` games of random legal play, long enough that every one ends (each round
    ends by ``MAX_STEPS`` plies): per ply the reward, done before and after, whether the
    mask had a legal action; and the final states."""
    plies = env.rounds * MAX_STEPS + 2

    def ply(state, key):
        mask = env.legal_mask(state)
        action = uniform_legal_action(key, mask)
        after, reward, done = env.step(state, action)
        return after, (reward, env.done(state), done, mask.any(), env.final_margin(after))

    def play(key):
        init_key, play_key = jax.random.split(key)
        return jax.lax.scan(ply, env.init(init_key), jax.random.split(play_key, plies))

    final, per_ply = jax.jit(jax.vmap(play))(jax.random.split(jax.random.PRNGKey(3), GAMES))
    return final, jax.device_get(per_ply)


@pytest.mark.slow
def test_every_game_ends_and_masks_are_never_empty_while_it_runs(env, played):
    final, (_, done_before, done_after, any_legal, _) = played
    assert bool(jnp.all(jax.vmap(env.done)(final)))
    assert np.all(done_after[:, -1])
    assert np.all(any_legal[~done_before])
    assert np.all(done_after[done_before])  # done stays done


@pytest.mark.slow
def test_reward_only_on_the_ending_transition_and_equal_to_the_final_margin(env, played):
    final, (reward, done_before, done_after, _, margin_after) = played
    ending = done_after & ~done_before
    assert np.all(ending.sum(axis=1) == 1)
    np.testing.assert_array_equal(reward[~ending], 0.0)
    np.testing.assert_array_equal(reward[ending], margin_after[ending])
    np.testing.assert_array_equal(reward[ending][:, 0], -reward[ending][:, 1])  # zero-sum
    np.testing.assert_array_equal(reward[ending], np.asarray(jax.vmap(env.final_margin)(final)))


@pytest.mark.slow
def test_steps_after_the_end_are_no_ops(env, played):
    final, _ = played
    state = jax.tree.map(lambda x: x[0], final)
    for action in (0, 7, N_ACTIONS - 1):
        after, reward, done = env.step(state, jnp.int32(action))
        assert _equal(after, state) and bool(done)
        np.testing.assert_array_equal(reward, 0.0)
