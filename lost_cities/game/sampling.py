"""Sampling helpers shared by scripted policies and the benchmark.

Like the engine, these accept extra trailing batch axes (``mask[96, B]``).
"""

import jax
import jax.numpy as jnp

from lost_cities.game.engine import kth_legal_action, kth_set_bit, legal_action_count

_WORD = 32


def kth_true(mask, k):
    """Index of the k-th (0-based) true entry of ``mask[n, ...]`` (n a multiple of 32).

    The mask is packed into 32-bit words and the entry found with population counts.
    XLA:CPU's cumsum over a short axis is quadratic and its argmax a slow variadic
    reduce; either made random play cost more than the engine step itself.
    """
    n_words = mask.shape[0] // _WORD
    batch = mask.shape[1:]
    shifts = jnp.arange(_WORD, dtype=jnp.uint32).reshape((1, _WORD) + (1,) * len(batch))
    bits = mask.reshape((n_words, _WORD) + batch).astype(jnp.uint32) << shifts
    words = jnp.sum(bits, axis=1, dtype=jnp.uint32)
    k = jnp.asarray(k, jnp.int32)
    word = words[0]
    base = jnp.zeros_like(k)
    for w in range(1, n_words):
        count = jax.lax.population_count(word).astype(jnp.int32)
        skip = k >= count
        k = jnp.where(skip, k - count, k)
        word = jnp.where(skip, words[w], word)
        base = base + jnp.where(skip, _WORD, 0)
    return base + kth_set_bit(word, k)


def uniform_legal_action(rng, mask):
    """A uniformly random legal action: the k-th legal entry for k ~ U{0..n-1}."""
    count = jnp.sum(mask.astype(jnp.int32), axis=0)
    k = jnp.floor(jax.random.uniform(rng, count.shape) * count).astype(jnp.int32)
    return kth_true(mask, jnp.clip(k, 0, jnp.maximum(count - 1, 0)))


def legal_action_at(state, u):
    """The legal action of a round ``State`` at quantile ``u`` in [0, 1): for uniform ``u``,
    a uniformly random legal action (see ``kth_legal_action``).

    Taking ``u`` rather than a key lets a batched caller draw one uniform per game from
    a single key instead of splitting a key per game (each split is a hash per game).
    """
    count = legal_action_count(state)
    k = jnp.floor(u * count).astype(jnp.int32)
    return kth_legal_action(state, jnp.clip(k, 0, jnp.maximum(count - 1, 0)))


def random_legal_action(rng, state):
    """A uniformly random legal action of a round ``State``."""
    return legal_action_at(state, jax.random.uniform(rng, state.to_move.shape))
