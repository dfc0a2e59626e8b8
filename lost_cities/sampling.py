"""Sampling helpers shared by scripted policies and the benchmark."""

import jax
import jax.numpy as jnp


def kth_true(mask, k):
    """Index of the k-th (0-based) true entry of a bool vector (0 if there is none).

    Written as an unrolled scan over the entries: under vmap this fuses into one
    element-wise loop, whereas XLA's CPU cumsum (quadratic) and argmax (a variadic
    reduce) each cost more than a whole engine step.
    """
    k = jnp.asarray(k, jnp.int32)
    index = jnp.zeros_like(k)
    for i in range(mask.shape[-1]):
        index = jnp.where(mask[i] & (k == 0), i, index)
        k = k - mask[i].astype(jnp.int32)
    return index


def uniform_legal_action(rng, mask):
    """A uniformly random legal action: the k-th legal entry for k ~ U{0..n-1}."""
    count = jnp.sum(mask.astype(jnp.int32))
    k = jnp.floor(jax.random.uniform(rng) * count).astype(jnp.int32)
    return kth_true(mask, jnp.minimum(k, count - 1))
