"""Shuffled minibatch epochs over one batch: the optimisation step PPO and BC share."""

import jax
import optax


def minibatch_epochs(loss, optimizer, params, opt_state, batch, key, epochs, minibatches):
    """``epochs`` passes of ``minibatches`` gradient steps of ``loss(params, minibatch) ->
    (value, info)`` over ``batch`` (a pytree, leading axis the samples), reshuffled every
    epoch; returns ``(params, opt_state, info)`` with ``info`` stacked ``[epochs, minibatches]``."""
    size = jax.tree.leaves(batch)[0].shape[0]
    grad_fn = jax.grad(loss, has_aux=True)

    def sgd_step(carry, minibatch):
        params, opt_state = carry
        grads, info = grad_fn(params, minibatch)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), info

    def epoch(carry, key):
        order = jax.random.permutation(key, size)
        shuffled = jax.tree.map(
            lambda x: x[order].reshape((minibatches, size // minibatches) + x.shape[1:]), batch
        )
        return jax.lax.scan(sgd_step, carry, shuffled)

    (params, opt_state), info = jax.lax.scan(epoch, (params, opt_state), jax.random.split(key, epochs))
    return params, opt_state, info
