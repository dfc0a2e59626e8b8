"""``opponent=league``: the fixed opponents of ``static`` plus a pool of the learner's past selves.

An episode's opponent is drawn among ``policies`` (by ``weights``, as in ``static``) and
``league`` (by ``league_weight``). The pool holds ``pool_size`` snapshots of the
learner's parameters stacked on a leading axis; it lives in the ``TrainState`` (so
checkpoints and resume carry it), starts as copies of the initial parameters, and every
``snapshot_every_updates`` updates its oldest entry is replaced by the learner's new
parameters, inside the jitted update. A snapshot samples from its masked logits and its
moves are not training rows (it is a fixed opponent for the episode).

Env slot ``i`` plays pool entry ``i // (num_envs // pool_size)``, so one forward pass
with the parameters vmapped over the pool answers every league episode at once.
"""

import jax
import jax.numpy as jnp
from flax import struct

from lost_cities.ppo.opponent import League, OpponentSet
from lost_cities.ppo.opponent.static import StaticOpponent

LEAGUE = "league"


@struct.dataclass
class Pool:
    params: dict  # each leaf [pool_size, ...]
    taken_at: jnp.ndarray  # int32[pool_size]: the update whose parameters the entry holds (0: initial)
    snapshots: jnp.ndarray  # int32: snapshots taken; the next one replaces entry snapshots % pool_size


def init_pool(params, pool_size) -> Pool:
    stacked = jax.tree.map(lambda x: jnp.broadcast_to(x, (pool_size,) + x.shape), params)
    return Pool(stacked, jnp.zeros(pool_size, jnp.int32), jnp.int32(0))


def refresh(pool: Pool, params, update, every) -> Pool:
    """After update ``update``: if it is a multiple of ``every``, ``params`` replace the oldest entry.

    A traced condition (a select on the one entry), so the jitted update never branches.
    """
    due = update % every == 0
    entry = pool.snapshots % pool.taken_at.shape[0]

    def put(stack, leaf):
        return jax.lax.dynamic_update_index_in_dim(stack, jnp.where(due, leaf, stack[entry]), entry, 0)

    return Pool(
        jax.tree.map(put, pool.params, params),
        pool.taken_at.at[entry].set(jnp.where(due, update, pool.taken_at[entry])),
        pool.snapshots + due.astype(jnp.int32),
    )


def pool_metrics(pool: Pool, update):
    """``league/snapshots``: entries holding a snapshot (the rest hold the initial parameters)."""
    return {
        "league/snapshots": jnp.minimum(pool.snapshots, pool.taken_at.shape[0]),
        "league/mean_snapshot_age_updates": jnp.mean(update - pool.taken_at),
    }


def pool_logits(network_logits, pool_params, inputs):
    """Logits of env slot ``i`` under pool entry ``i // (n // pool_size)``: one vmapped forward pass.

    ``inputs``: the network's per-env inputs (a pytree with the env axis first)."""
    pool_size, n = jax.tree.leaves(pool_params)[0].shape[0], jax.tree.leaves(inputs)[0].shape[0]
    grouped = jax.tree.map(lambda x: x.reshape((pool_size, n // pool_size) + x.shape[1:]), inputs)
    logits = jax.vmap(network_logits)(pool_params, grouped)
    return logits.reshape((n,) + logits.shape[2:])


class LeagueOpponent(StaticOpponent):
    def __init__(self, policies=(), weights=None, league_weight=1.0, pool_size=8, snapshot_every_updates=20):
        super().__init__(policies, weights)
        self.league_weight = float(league_weight)
        self.league = League(pool_size, snapshot_every_updates)

    def build(self, env) -> OpponentSet:
        fixed = super().build(env)
        return OpponentSet.from_weights(
            fixed.names + (LEAGUE,), self.weights + [self.league_weight], fixed.policies + (self.league,)
        )
