"""The profile's arithmetic count: what its 'GFLOP/s' of the epochs is measured against."""

import jax
import jax.numpy as jnp

from lost_cities.benchmarks.profile import flops


def test_flops_counts_a_matrix_product_as_two_operations_per_multiply_add():
    product = jax.jit(lambda a, b: a @ b)
    assert flops(product, jnp.zeros((64, 32)), jnp.zeros((32, 16))) == 2 * 64 * 32 * 16
    assert flops(product, jnp.zeros((128, 32)), jnp.zeros((32, 16))) == 2 * 128 * 32 * 16
