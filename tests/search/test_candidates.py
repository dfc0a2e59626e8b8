"""The search's candidates (lost_cities/search/candidates.py): the expert's scores, and
the top-K moves, the base move first."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import EXPERT, _take

from lost_cities.bots.context import best_legal
from lost_cities.game.cards import N_ACTIONS
from lost_cities.game.match import match_legal_action_mask
from lost_cities.search import expert_scores, top_candidates


@pytest.mark.slow
def test_expert_scores_rank_the_experts_own_move_first(match_states):
    index = np.arange(0, match_states.round_idx.shape[0], 3)
    states = _take(match_states, index)
    masks = jax.jit(jax.vmap(match_legal_action_mask))(states)
    best = jax.jit(jax.vmap(lambda s, m: best_legal(expert_scores(s), m)))(states, masks)
    np.testing.assert_array_equal(
        best, jax.jit(jax.vmap(EXPERT))(states, jax.random.split(jax.random.PRNGKey(0), len(index)))
    )


def test_top_candidates_base_first_then_best_legal_distinct():
    scores = jnp.arange(N_ACTIONS, dtype=jnp.float32)
    legal = jnp.zeros(N_ACTIONS, bool).at[jnp.array([3, 10, 50, 90])].set(True)
    actions, valid = top_candidates(scores, legal, jnp.int32(10), 4)
    assert actions.tolist() == [10, 90, 50, 3] and valid.all()
    actions, valid = top_candidates(scores, legal, jnp.int32(10), 6)
    assert actions[:4].tolist() == [10, 90, 50, 3] and valid.tolist() == [True] * 4 + [False] * 2
    # legal actions the scorer rules out (-inf, e.g. the expert's non-extending pile draws) stay candidates
    actions, valid = top_candidates(
        jnp.where(legal & (jnp.arange(N_ACTIONS) == 3), -jnp.inf, scores), legal, 10, 4
    )
    assert actions.tolist() == [10, 90, 50, 3] and valid.all()
