"""The search as a policy (lost_cities/search/agent.py): batched decisions equal one game at
a time, legal duplicate games, one candidate is the base policy, and round states."""

import dataclasses

import jax
import numpy as np
import pytest
from search_common import EXPERT, INVARIANCE_CFG, _cfg, _take

from lost_cities import envs
from lost_cities.evaluation import deal_bank, duplicate_evaluate
from lost_cities.game.engine import legal_action_mask
from lost_cities.search import BOT_SCORES, search_policy


@pytest.mark.slow
def test_batched_decisions_equal_one_game_at_a_time(match_states):
    cfg = dataclasses.replace(INVARIANCE_CFG, worlds=3, candidates=3)
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], cfg)
    states = _take(match_states, np.arange(0, 60, 6))
    keys = jax.random.split(jax.random.PRNGKey(2), 10)
    batched = jax.jit(jax.vmap(policy))(states, keys)
    one, rows = jax.jit(policy), jax.tree.map(np.asarray, states)
    single = [int(one(_take(rows, i), keys[i])) for i in range(10)]
    assert np.asarray(batched).tolist() == single


@pytest.mark.parametrize("env_name", ["single_round", "match3"])
@pytest.mark.slow
def test_search_plays_legal_duplicate_games(env_name):
    env = envs.make(env_name)
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], _cfg(worlds=2, candidates=3))
    deck_orders, coins = deal_bank(2)
    results = duplicate_evaluate(env, policy, EXPERT, deck_orders, coins, jax.random.PRNGKey(0))
    assert results["games"] == 4 and results["max_steps_rate"] == 0.0  # raises on an illegal move


@pytest.mark.slow
def test_search_of_one_candidate_is_the_base_policy(match_states):
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], _cfg(worlds=1, candidates=1))
    states = _take(match_states, np.arange(0, 200, 7))
    keys = jax.random.split(jax.random.PRNGKey(1), states.round_idx.shape[0])
    np.testing.assert_array_equal(
        jax.jit(jax.vmap(policy))(states, keys), jax.jit(jax.vmap(EXPERT))(states, keys)
    )


@pytest.mark.slow
def test_round_state_search_is_legal(match_states):
    rounds = _take(match_states, np.arange(0, 100, 10)).round
    cfg = _cfg(worlds=2, candidates=3, gate_points=0.0, gate_z=0.0)
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], cfg)
    actions = jax.jit(jax.vmap(policy))(rounds, jax.random.split(jax.random.PRNGKey(4), 10))
    masks = jax.jit(jax.vmap(legal_action_mask))(rounds)
    assert np.take_along_axis(np.asarray(masks), np.asarray(actions)[:, None], axis=1).all()


def test_the_best_challenger_is_the_best_mean_paired_gain_and_the_base_wins_ties():
    """Candidates are compared by their mean gain over the base move (column 0) world by
    world; an invalid one is never the best, and on a tie the lower index (the base move
    first) is kept; the gains returned are the chosen candidate's, world by world."""
    import jax.numpy as jnp

    from lost_cities.search.agent import best_challenger

    base = jnp.array([4.0, -2.0, 7.0])
    values = jnp.stack([base, base + jnp.array([3.0, 0.0, 0.0]), base + 2.0, base + 9.0], axis=1)
    best, gains = best_challenger(values, jnp.array([True, True, True, False]))
    assert int(best) == 2 and np.asarray(gains).tolist() == [2.0, 2.0, 2.0]  # 2.0 beats 1.0; 3 invalid
    tied = jnp.stack([base, base + jnp.array([3.0, 0.0, 0.0]), base + 1.0], axis=1)
    assert int(best_challenger(tied, jnp.array([True, True, True]))[0]) == 1
    worse = jnp.stack([base, base - 1.0], axis=1)
    best, gains = best_challenger(worse, jnp.array([True, True]))
    assert int(best) == 0 and np.asarray(gains).tolist() == [0.0, 0.0, 0.0]
    bonus = jnp.array([0.0, 0.0, 0.0, 5.0])  # a prior for the invalid one changes nothing
    assert int(best_challenger(values, jnp.array([True, True, True, False]), bonus)[0]) == 2


def test_gate_closeness_measures_the_best_challenger_against_the_gate_in_standard_errors():
    """The challenger is the best candidate other than the base move, even when it is worse
    than the base; its closeness is ``|mean gain - threshold|`` in standard errors, so a
    challenger at the gate is nearer than one far above or below it; with no valid
    challenger there is nothing to decide (``inf``)."""
    import jax.numpy as jnp

    from lost_cities.search.agent import gate_closeness
    from lost_cities.search.config import load_preset

    cfg = load_preset("fast", gate_points=1.0, gate_z=1.0)
    base = jnp.array([4.0, -2.0, 7.0, 1.0])
    noise = jnp.array([1.0, -1.0, 1.0, -1.0])  # standard error 1 / sqrt(4) * std
    error = float(jnp.std(noise, ddof=1) / 2)
    at_gate = jnp.stack([base, base + 1.0 + noise, base - 3.0], axis=1)
    challenger, near = gate_closeness(at_gate, jnp.array([True, True, True]), cfg)
    assert int(challenger) == 1 and float(near) == pytest.approx(0.0, abs=1e-5)
    far = jnp.stack([base, base + 6.0 + noise, base - 3.0], axis=1)
    assert float(gate_closeness(far, jnp.array([True, True, True]), cfg)[1]) == pytest.approx(5.0 / error)
    worse = jnp.stack([base, base - 5.0 + noise, base - 3.0], axis=1)  # every challenger below the base
    challenger, below = gate_closeness(worse, jnp.array([True, True, True]), cfg)
    assert int(challenger) == 2  # the least bad; its gains are constant (error 0): far from the gate
    assert float(below) > 1e5
    bonus = jnp.array([0.0, 0.0, 3.0])  # a prior moves the candidate's gain, hence its closeness
    assert int(gate_closeness(worse, jnp.array([True, True, True]), cfg, 1.0, bonus)[0]) == 2
    alone = gate_closeness(far, jnp.array([True, False, False]), cfg)
    assert not np.isfinite(float(alone[1]))
