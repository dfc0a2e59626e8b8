"""The samplers behind random play enumerate exactly the legal actions."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lost_cities import legal_action_mask, reset, step
from lost_cities.game.engine import kth_legal_action, kth_set_bit, legal_action_count
from lost_cities.game.sampling import kth_true, random_legal_action, uniform_legal_action


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


@pytest.mark.slow
def test_kth_legal_action_enumerates_each_legal_action_once():
    states = _positions()
    masks = np.asarray(jax.vmap(legal_action_mask)(states))
    counts = np.asarray(jax.vmap(legal_action_count)(states))
    np.testing.assert_array_equal(counts, masks.sum(axis=1))
    assert counts[-1] == 0 and (counts[:-1] > 0).all()
    kth = jax.jit(jax.vmap(kth_legal_action))
    enumerated = np.stack(
        [np.asarray(kth(states, jnp.full(counts.shape, k))) for k in range(int(counts.max()))], 1
    )
    for i in np.flatnonzero(counts):
        np.testing.assert_array_equal(np.sort(enumerated[i, : counts[i]]), np.flatnonzero(masks[i]))


def test_kth_set_bit_matches_a_scan_of_the_bits():
    rng = np.random.default_rng(2)
    words = rng.integers(1, 2**32, size=500, dtype=np.uint64)
    ks = np.array([rng.integers(bin(int(w)).count("1")) for w in words])
    expected = [[i for i in range(32) if int(w) >> i & 1][k] for w, k in zip(words, ks, strict=True)]
    got = kth_set_bit(jnp.asarray(words, jnp.uint32), jnp.asarray(ks, jnp.int32))
    np.testing.assert_array_equal(np.asarray(got), expected)
    byte = jnp.uint32(0b10110010)
    assert [int(kth_set_bit(byte, jnp.int32(k), width=8)) for k in range(4)] == [1, 4, 5, 7]


def test_kth_true_on_single_and_trailing_batch_masks():
    rng = np.random.default_rng(1)
    masks = rng.random((96, 64)) < rng.random(64)
    masks[5] = True
    ks = np.array([rng.integers(masks[:, j].sum()) for j in range(64)])
    got = np.asarray(kth_true(jnp.asarray(masks), jnp.asarray(ks)))
    expected = [np.flatnonzero(masks[:, j])[ks[j]] for j in range(64)]
    np.testing.assert_array_equal(got, expected)
    assert int(kth_true(jnp.asarray(masks[:, 0]), ks[0])) == expected[0]


@pytest.mark.slow
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
