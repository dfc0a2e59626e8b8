"""Positions of a policy's self-play, for the measurements that need many live states of
real games (a search's cost per decision, a belief's training set)."""

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.bots import make


def positions(env, count, seed=0, every=7, policy=None):
    """``count`` env states from ``policy``-vs-``policy`` play (batched, leading axis; every
    move's key fixed; default ``heuristic_expert``)."""
    player = make("heuristic_expert") if policy is None else policy
    games = max(1, -(-count * every // (env.rounds * 44)))
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(seed), games))

    def ply(states, _):
        moves = jax.vmap(player)(states, jnp.zeros((games, 2), jnp.uint32))
        return jax.vmap(env.step)(states, moves)[0], states

    _, record = jax.lax.scan(ply, states, None, length=env.rounds * 44)
    flat = jax.tree.map(lambda x: x[::every].reshape((-1,) + x.shape[2:]), record)
    live = np.flatnonzero(~np.asarray(jax.vmap(env.done)(flat)))[:count]
    return jax.tree.map(lambda x: x[live], flat)
