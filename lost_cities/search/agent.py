"""The search policy: ``policy(env_state, rng) -> action``, pure JAX, one game per call.

Per decision, for the seat to move:

1. the base policy's move ``b`` and its scores give the candidates: ``b`` and the next
   best ``candidates - 1`` legal actions (:mod:`lost_cities.search.candidates`);
2. ``worlds`` worlds are sampled from the mover's information set
   (:mod:`lost_cities.search.determinize`);
3. every candidate is scored in every world by a base-policy rollout for both seats
   (:mod:`lost_cities.search.rollout`), the same worlds and keys for all candidates;
4. gate: the candidate ``c`` of best mean value replaces ``b`` only when its mean paired
   gain ``mean(v_c - v_b)`` exceeds ``gate_points`` and ``gate_z`` standard errors.

The policy is a ``jax.tree_util.Partial`` whose function (the static part, cached per
config) closes over the :class:`SearchConfig`; the base policy and its scorer are its
arguments, so a network's parameters stay traced leaves. Under ``vmap`` over games
(duplicate evaluation) every decision runs worlds x candidates lanes at once.
"""

import functools

import jax
import jax.numpy as jnp
from jax.tree_util import Partial

from lost_cities.search.candidates import legal_mask_of, top_candidates
from lost_cities.search.config import SearchConfig
from lost_cities.search.determinize import determinize
from lost_cities.search.rollout import point_utility, rollout_values


def select(values, valid, cfg, unit=1.0):
    """``(index, gain)``: the chosen candidate (0 is the base move) from ``values[W, K]``.

    ``unit`` is the utility of one point (``1 / scale`` under a ``tanh`` utility), so that
    ``gate_points`` stays in points."""
    n_worlds = values.shape[0]
    gains = values - values[:, :1]  # paired with the base move, world by world
    mean_gain = jnp.mean(gains, axis=0)
    ranked = jnp.where(valid, mean_gain, -jnp.inf)
    best = jnp.argmax(ranked)  # lowest index on ties: the base move wins a tie
    spread = jnp.std(gains[:, best], ddof=1) if n_worlds > 1 else jnp.float32(0.0)
    gain = mean_gain[best]
    clears = (gain > cfg.gate_points * unit) & (gain > cfg.gate_z * spread / jnp.sqrt(float(n_worlds)))
    return jnp.where(clears, best, 0), gain


def search_decision(cfg, base_policy, scores, state, rng):
    """``(action, info)`` for the seat to move; ``info`` holds the candidates and values."""
    base_key, world_key, rollout_key = jax.random.split(rng, 3)
    base = base_policy(state, base_key).astype(jnp.int32)
    actions, valid = top_candidates(scores(state), legal_mask_of(state), base, cfg.candidates)
    worlds = jax.vmap(determinize, in_axes=(0, None))(jax.random.split(world_key, cfg.worlds), state)
    keys = jax.random.split(rollout_key, cfg.worlds)
    values = rollout_values(worlds, actions, base_policy, keys, cfg.depth, cfg.start_value, cfg.scales)
    index, gain = select(values, valid, cfg, point_utility(state, cfg.scales))
    action = jnp.sum(jnp.where(jnp.arange(cfg.candidates) == index, actions, 0)).astype(jnp.int32)
    return action, {"actions": actions, "valid": valid, "values": values, "index": index, "gain": gain}


@functools.lru_cache(maxsize=64)
def _policy_fn(cfg):
    def policy(base_policy, scores, state, rng):
        if cfg.candidates == 1:
            return base_policy(state, rng).astype(jnp.int32)
        return search_decision(cfg, base_policy, scores, state, rng)[0]

    policy.__name__ = f"search_{cfg.worlds}x{cfg.candidates}"
    return policy


def _as_partial(f):
    return f if isinstance(f, Partial) else Partial(f)


def search_policy(base_policy, scores, cfg: SearchConfig):
    """``policy(env_state, rng) -> action`` searching on top of ``base_policy``."""
    return Partial(_policy_fn(cfg), _as_partial(base_policy), _as_partial(scores))
