"""The samplers behind random play enumerate exactly the legal actions, in order."""

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities import legal_action_mask, reset, step
from lost_cities.engine import kth_legal_action, legal_action_count
from lost_cities.sampling import kth_true, random_legal_action, uniform_legal_action


def _positions(games=4, seed=0):
    """Round states from random play (pile draws included), both seats to move."""
    rng = np.random.default_rng(seed)
    step_jit, mask_jit = jax.jit(step), jax.jit(legal_action_mask)
    states = []
    for game in range(games):
        state = reset(jax.random.PRNGKey(game))
        while not bool(state.done):
            states.append(state)
            state, _, _ = step_jit(state, int(rng.choice(np.flatnonzero(np.asarray(mask_jit(state))))))
    states.append(state)
    return jax.tree.map(lambda *xs: jnp.stack(xs), *states)


def test_kth_legal_action_enumerates_the_mask_in_order():
    states = _positions()
    masks = np.asarray(jax.vmap(legal_action_mask)(states))
    counts = np.asarray(jax.vmap(legal_action_count)(states))
    np.testing.assert_array_equal(counts, masks.sum(axis=1))
    assert counts[-1] == 0 and (counts[:-1] > 0).all()
    kth = jax.jit(jax.vmap(kth_legal_action))
    for k in range(int(counts.max())):
        got = np.asarray(kth(states, jnp.full(counts.shape, k)))
        for i in np.flatnonzero(counts > k):
            assert got[i] == np.flatnonzero(masks[i])[k]


def test_kth_true_on_single_and_trailing_batch_masks():
    rng = np.random.default_rng(1)
    masks = rng.random((96, 64)) < rng.random(64)
    masks[5] = True
    ks = np.array([rng.integers(masks[:, j].sum()) for j in range(64)])
    got = np.asarray(kth_true(jnp.asarray(masks), jnp.asarray(ks)))
    expected = [np.flatnonzero(masks[:, j])[ks[j]] for j in range(64)]
    np.testing.assert_array_equal(got, expected)
    assert int(kth_true(jnp.asarray(masks[:, 0]), ks[0])) == expected[0]


def test_random_samplers_are_uniform_over_legal_actions():
    state = reset(jax.random.PRNGKey(7))
    mask = legal_action_mask(state)
    legal = np.flatnonzero(np.asarray(mask))
    keys = jax.random.split(jax.random.PRNGKey(0), 20_000)
    for actions in (
        jax.vmap(random_legal_action, in_axes=(0, None))(keys, state),
        jax.vmap(uniform_legal_action, in_axes=(0, None))(keys, mask),
    ):
        counts = np.bincount(np.asarray(actions), minlength=96)
        assert set(np.flatnonzero(counts)) == set(legal)
        expected = len(keys) / len(legal)
        # each count is Binomial(20000, 1/n); 5 standard deviations bounds a false alarm at ~1e-5
        assert np.abs(counts[legal] - expected).max() < 5 * np.sqrt(expected)
