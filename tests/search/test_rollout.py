"""The rollouts (lost_cities/search/rollout.py): the match value of a finished round, and
rollout values replayed ply by ply with an opponent model and with a next move."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import EXPERT, _take

from lost_cities.bots import make
from lost_cities.game.match import match_legal_action_mask, match_reset
from lost_cities.search import determinize, expert_scores, match_value, top_candidates


def test_match_value_counts_the_carry_the_start_and_the_utility():
    state = match_reset(jax.random.PRNGKey(0))
    finished = state.round.replace(
        done=jnp.bool_(True),
        exp_sum=jnp.zeros((2, 5), jnp.int8).at[0, 0].set(30),
        exp_count=jnp.zeros((2, 5), jnp.int8).at[0, 0].set(3),
    )  # seat 0 scores 10 this round
    ms = state.replace(round=finished, round_idx=jnp.int32(1), carry=jnp.array([5.0, 20.0]))
    assert float(match_value(ms, finished, 0, 0.0, (0, 0, 0))) == -5.0
    assert float(match_value(ms, finished, 1, 0.0, (0, 0, 0))) == 5.0
    assert float(match_value(ms, finished, 1, 3.0, (0, 0, 0))) == 8.0  # seat 1 will start round 3
    assert float(match_value(ms.replace(round_idx=jnp.int32(2)), finished, 1, 3.0, (0, 0, 0))) == 5.0
    assert float(match_value(ms, finished, 1, 0.0, (0, 10.0, 0))) == pytest.approx(np.tanh(0.5))
    assert float(match_value(finished, finished, 0, 3.0, (0, 0, 0))) == 10.0  # a lone round


def _replayed_values(worlds, actions, keys, policy_of, depth=None):
    """float[W, K]: the searching seat's match points after each candidate, the round played
    on ply by ply, ply ``t`` (after the candidate) by ``policy_of(t, seat to move)``, for at
    most ``depth`` plies (``None``: to the round's end; a cut round: the board as it stands)."""
    from lost_cities.game.engine import step
    from lost_cities.game.views import current_round, with_round
    from lost_cities.search.rollout import match_points

    step = jax.jit(step)  # one engine step at a time, compiled once (op by op it dominated the test)
    player = int(current_round(worlds).to_move[0])
    values = np.zeros((keys.shape[0], actions.shape[0]))
    for w in range(keys.shape[0]):
        world = _take(worlds, w)
        for k in range(actions.shape[0]):
            round_state, _, _ = step(current_round(world), actions[k])
            t = 0
            while not bool(round_state.done) and (depth is None or t < depth):
                move = policy_of(t, int(round_state.to_move))(
                    with_round(world, round_state), jax.random.fold_in(keys[w], t)
                )
                round_state, _, _ = step(round_state, move)
                t += 1
            values[w, k] = float(match_points(world, round_state, player, 0.0))
    return values


def _rollout_setup(match_states, index=40, n=2):
    state = _take(match_states, index)
    worlds = jax.jit(jax.vmap(determinize, in_axes=(0, None)))(
        jax.random.split(jax.random.PRNGKey(5), n), state
    )
    candidates = jax.jit(
        lambda s: top_candidates(expert_scores(s), match_legal_action_mask(s), EXPERT(s, None), 2)
    )
    actions, _ = candidates(state)
    return state, worlds, actions, jax.random.split(jax.random.PRNGKey(6), n)


def _rollouts(worlds, actions, keys, policy, depth=None, **models):
    """``rollout_values`` (start value 0, raw points) under jit, as the search runs them:
    one compile each, not op by op."""
    from lost_cities.search import rollout_values

    run = jax.jit(lambda w, a, k: rollout_values(w, a, policy, k, depth, 0.0, (0, 0, 0), **models))
    return np.asarray(run(worlds, actions, keys))


@pytest.mark.slow
def test_opponent_model_plays_the_other_seat_in_the_rollouts(match_states):
    """``opponent_rollout``: every rollout value equals a ply-by-ply replay in which the
    searching seat moves by the rollout policy and the other seat by the opponent model (to
    the round's end, and cut after an odd number of plies, inside a pair of the rollout's
    loop), and differs from the rollouts where one policy plays both seats."""
    mine, theirs = EXPERT, make("discard_only")
    state, worlds, actions, keys = _rollout_setup(match_states)
    values = _rollouts(worlds, actions, keys, mine, opponent=theirs)
    player = int(state.to_move)
    policies = {player: jax.jit(mine), 1 - player: jax.jit(theirs)}
    assert np.array_equal(values, _replayed_values(worlds, actions, keys, lambda t, seat: policies[seat]))
    cut = _rollouts(worlds, actions, keys, mine, 3, opponent=theirs)
    replayed_cut = _replayed_values(worlds, actions, keys, lambda t, seat: policies[seat], depth=3)
    assert np.array_equal(cut, replayed_cut)
    assert not np.array_equal(cut, values)
    one_policy = _rollouts(worlds, actions, keys, mine)
    assert not np.array_equal(values, one_policy)


@pytest.mark.slow
def test_next_move_makes_the_searching_seats_next_decision_in_the_rollouts(match_states):
    """``next_move``: the searching seat's first decision after the other seat's reply (ply
    1 of the rollout) is that policy's, every other ply the rollout policy's; with the
    rollout policy itself as ``next_move`` the values are the plain rollouts'."""
    searched, expert = jax.jit(make("discard_only")), jax.jit(EXPERT)
    _, worlds, actions, keys = _rollout_setup(match_states)
    values = _rollouts(worlds, actions, keys, EXPERT, next_move=make("discard_only"))
    replayed = _replayed_values(worlds, actions, keys, lambda t, seat: searched if t == 1 else expert)
    assert np.array_equal(values, replayed)
    plain = _rollouts(worlds, actions, keys, EXPERT)
    assert not np.array_equal(values, plain)
    same = _rollouts(worlds, actions, keys, EXPERT, next_move=EXPERT)
    assert np.array_equal(same, plain)
