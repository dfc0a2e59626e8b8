"""Duplicate evaluation computes each policy on its movers only
(lost_cities/evaluation/duplicate.py): the compacted loop plays the same games, and
``mover_actions`` gathers the games that need a policy in several passes."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import EXPERT, _take

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.evaluation import deal_bank


@pytest.mark.parametrize("env_name", ["single_round", "match3"])
@pytest.mark.slow
def test_duplicate_computes_each_policy_on_its_movers_only_with_the_same_games(env_name):
    """The compacted evaluation loop (a policy computed only where it moves) plays exactly
    the games of the loop that computes both policies for every game."""
    from lost_cities.evaluation import play_duplicate
    from lost_cities.evaluation.duplicate import mover_capacity

    env = envs.make(env_name)
    deck_orders, coins = deal_bank(40)
    assert mover_capacity(80) < 80  # 40 deals are 80 games: the compaction is exercised
    runs = [
        play_duplicate(env, make("random"), EXPERT, deck_orders, coins, jax.random.PRNGKey(3), compact=c)
        for c in (True, False)
    ]
    assert runs[0].keys() == runs[1].keys()
    for name in runs[0]:
        np.testing.assert_array_equal(runs[0][name], runs[1][name], err_msg=name)


@pytest.mark.slow
def test_mover_actions_take_several_passes_when_many_games_need_the_policy(match_states):
    from lost_cities.evaluation.duplicate import mover_actions

    states = _take(match_states, np.arange(20))
    keys = jax.random.split(jax.random.PRNGKey(0), 20)
    need = jnp.asarray(np.random.default_rng(0).random(20) < 0.7)
    random_policy = make("random")
    expected = np.where(need, jax.vmap(random_policy)(states, keys), 0)
    progress = jnp.asarray(states.round.deck_ptr)
    for capacity in (3, 7, 20):
        np.testing.assert_array_equal(mover_actions(random_policy, states, keys, need, capacity), expected)
        # gathered by their rounds' progress, in several passes: the same actions
        by_progress = mover_actions(random_policy, states, keys, need, capacity, progress)
        np.testing.assert_array_equal(by_progress, expected)


def test_mover_actions_gather_the_games_that_need_the_policy_in_passes():
    """The gather and scatter alone, with a policy that answers its game's index plus one:
    each game that needs the policy gets its own answer, the others 0, whatever the number
    of passes (capacity 3 of 11 games: four), and in progress order too."""
    from lost_cities.evaluation.duplicate import mover_actions, mover_capacity

    def index_policy(state, key):
        return state + 1

    games = jnp.arange(11, dtype=jnp.int32)
    keys = jax.random.split(jax.random.PRNGKey(0), 11)
    need = jnp.asarray([True, False, True, True, False, True, True, True, False, True, True])
    expected = np.where(np.asarray(need), np.arange(11) + 1, 0)
    progress = jnp.asarray([5, 1, 9, 0, 3, 3, 7, 2, 8, 6, 4])
    for capacity in (1, 3, 8, 11):
        np.testing.assert_array_equal(mover_actions(index_policy, games, keys, need, capacity), expected)
        np.testing.assert_array_equal(
            mover_actions(index_policy, games, keys, need, capacity, progress), expected
        )
    # ceil(0.55 n + 2 sqrt(n)), at most n: 80 games 44 + 17.9, 1000 games 550 + 63.2
    assert [mover_capacity(n) for n in (1, 2, 80, 1000)] == [1, 2, 62, 614]
