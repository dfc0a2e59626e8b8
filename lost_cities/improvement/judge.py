"""The teacher judged without its own bias: what its labels gain over the champion's move.

The search's own estimate of its gain (``teacher/gain_points``) is the best of its candidates'
noisy means, biased upward many times over (experiments/self-improvement: +1.11 points a
decision logged for labels that gain +0.03). Here the teacher labels a sample of the
iteration's own positions (the games' carries between chunks) exactly as generation does,
and each label that leaves the champion's move is judged against that move in ``worlds``
fresh uniform worlds (other keys than the teacher's), the champion rolling out: a label that
keeps the move gains exactly 0, so only the changed ones cost rollouts. The worlds are
independent of the ones that chose the label, so the mean is unbiased for any ``worlds``
(more only narrow it); its model is the uniform worlds' (a belief's better worlds cannot show).
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.models import Agent
from lost_cities.search.agent import candidate_values
from lost_cities.search.rollout import point_utility

BATCH = 32  # changed labels judged per compiled call


def _reference(labeller, worlds):
    cfg = dataclasses.replace(labeller.search, worlds=worlds, inference_pool=1)

    @jax.jit
    def judge(params, states, pairs, keys):
        agent = Agent(labeller.env, labeller.network, params, {})

        def one(state, pair, key):
            world_key, rollout_key = jax.random.split(key)
            values = candidate_values(cfg, state, pair, world_key, rollout_key, worlds, agent.policy)
            return jnp.mean(values[:, 1] - values[:, 0]) / point_utility(state, cfg.scales)

        return jax.vmap(one)(states, pairs, keys)

    return judge


def judged_gains(labeller, params, states, key, worlds):
    """float32[N]: each position's label's points over the champion's move by the reference
    (0 where the label keeps it). ``states`` hold a multiple of the labeller's ``games``."""
    n = len(jax.tree.leaves(states)[0])
    if n % labeller.games:
        raise ValueError(f"{n} positions to judge: a multiple of generate.games={labeller.games}")
    k_label, k_judge = jax.random.split(key)
    actions, index = [], []
    for i, first in enumerate(range(0, n, labeller.games)):
        part = jax.tree.map(lambda x, first=first: x[first : first + labeller.games], states)
        info = labeller.decide(params, part, jax.random.fold_in(k_label, i))
        actions.append(np.asarray(info["actions"]))
        index.append(np.asarray(info["index"]))
    actions, index = np.concatenate(actions), np.concatenate(index)
    changed = np.flatnonzero(index != 0)
    gains = np.zeros(n, np.float32)
    judge = _reference(labeller, worlds)
    for first in range(0, len(changed), BATCH):
        rows = changed[first : first + BATCH]
        padded = np.resize(rows, BATCH)  # a fixed shape: the padding repeats rows, read once
        pairs = np.stack([actions[padded, 0], actions[padded, index[padded]]], axis=1)
        keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(k_judge, jnp.asarray(padded))
        part = jax.tree.map(lambda x, padded=padded: x[padded], states)
        gains[rows] = np.asarray(judge(params, part, jnp.asarray(pairs), keys))[: len(rows)]
    return gains


def summary(gains):
    """The logged metrics of :func:`judged_gains`: the mean and its 95% interval, points a decision."""
    gains = np.asarray(gains, np.float64)
    half = 1.96 * gains.std(ddof=1) / np.sqrt(len(gains))
    return {
        "teacher/judged_gain_points": float(gains.mean()),
        "teacher/judged_gain_lower": float(gains.mean() - half),
        "teacher/judged_gain_upper": float(gains.mean() + half),
        "teacher/judged_positions": len(gains),
    }
