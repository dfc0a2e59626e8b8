"""A critic as the search's leaf value (lost_cities/search/leaf.py): the training return
inverted into points, and the value of the state it is given."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import _fresh_critic_agent, _take

from lost_cities import envs


def test_critic_leaf_inverts_the_training_return_into_points():
    from lost_cities.search.leaf import margin_of_return

    margins = jnp.array([-250.0, -40.0, -3.0, 0.0, 7.5, 60.0, 300.0])
    for coef in (0.0, 0.2):
        target = jnp.tanh(margins / 50.0) + coef * margins / 50.0
        recovered = jax.vmap(margin_of_return, in_axes=(0, None, None))(target, 50.0, coef)
        tolerance = 1.0 if coef == 0.0 else 1e-3  # tanh is flat out at +-250 points
        np.testing.assert_allclose(recovered, margins, atol=tolerance)


@pytest.mark.slow
def test_critic_leaf_reads_the_state_it_is_given(match_states):
    """The leaf is the critic's value of the state passed (the sampled world), and moves
    with the margin so far under a shaped reward (its potential is added back)."""
    from lost_cities.search.leaf import critic_leaf

    env = envs.make("match3")
    agent = _fresh_critic_agent(env)
    leaf = jax.jit(critic_leaf(agent), static_argnums=1)
    states = _take(match_states, np.arange(0, 60, 6))
    points = np.array([float(leaf(_take(states, i), 0)) for i in range(10)])
    assert np.all(np.abs(points) < 600.0) and len(np.unique(points)) == 10
    carried = _take(states, 0).replace(carry=jnp.array([30.0, 0.0]))
    assert float(leaf(carried, 0)) != pytest.approx(points[0])
    with pytest.raises(ValueError, match="omniscient critic"):
        critic_leaf(_with_critic(agent, "lost_cities.networks.critic.shared.SharedCritic"))


def _with_critic(agent, name):
    from types import SimpleNamespace

    return SimpleNamespace(**{**vars(agent), "meta": {**agent.meta, "critic": {"_target_": name}}})
