"""The teacher judged without its own bias: what its labels gain over the champion's move.

The search's own estimate of its gain (``teacher/gain_points``) is the best of its candidates'
noisy means, biased upward many times over (experiments/self-improvement: +1.11 points a
decision logged for labels that gain +0.03). Here the teacher labels a sample of the
iteration's own positions (the games' carries between chunks) exactly as generation does,
and each label that leaves the champion's move is judged against that move in ``worlds``
fresh worlds (other keys than the teacher's), the champion rolling out: a label that keeps
the move gains exactly 0, so only the changed ones cost rollouts. The worlds are independent
of the ones that chose the label, so the mean is unbiased for any ``worlds`` (more only
narrow it). What it is unbiased for depends on the worlds (``hand``):

- ``uniform``: honest uniform worlds, the search's own model; a teacher whose worlds are
  better than uniform (a belief) cannot show it, and one that fits the uniform model's
  noise is not caught;
- ``real``: the opponent's **real hand**, only the deck's order (and the later rounds) dealt
  afresh. The positions come from real play, so the true hand is a draw from the true
  posterior over hands and the deck's order is uniform given it: the mean is unbiased for
  the label's real gain in the game. A judge may know what no player does; it never labels.
  The deck's order is most of a world's variance (experiments/search-vs-net/: 98.7%), so
  averaging it over ``worlds`` keeps this judge about as narrow as the uniform one.
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.game.views import current_round, with_round
from lost_cities.models import Agent
from lost_cities.search.agent import candidate_values
from lost_cities.search.determinize import deck_dealt_afresh, determinize
from lost_cities.search.rollout import point_utility

BATCH = 32  # changed labels judged per compiled call
HANDS = ("real", "uniform")
# The teacher's worlds: the search's own model of the opponent's hand (uniform, or its belief's),
# or the real hand (an oracle: labels the student, which never sees the hand, can only approach)
TEACHER_HANDS = ("model", "real")


def real_hand_world(rng, env_state):
    """A world of the mover's information set but for the opponent's hand, which is the real
    one: the deck's order and the later rounds dealt afresh (the judge's ``hand=real``, and the
    oracle teacher's ``teacher.hand=real``)."""
    world_key, deck_key = jax.random.split(rng)
    hand_kept = deck_dealt_afresh(deck_key, current_round(env_state))
    return with_round(determinize(world_key, env_state), hand_kept)


def _reference(labeller, worlds, hand):
    cfg = dataclasses.replace(labeller.search, worlds=worlds, inference_pool=1)
    deal = {"real": real_hand_world, "uniform": determinize}[hand]

    @jax.jit
    def judge(params, states, pairs, keys):
        agent = Agent(labeller.env, labeller.network, params, {})

        def one(state, pair, key):
            world_key, rollout_key = jax.random.split(key)
            values = candidate_values(
                cfg, state, pair, world_key, rollout_key, worlds, agent.policy, deal=deal
            )
            return jnp.mean(values[:, 1] - values[:, 0]) / point_utility(state, cfg.scales)

        return jax.vmap(one)(states, pairs, keys)

    return judge


def judged_gains(labeller, params, states, key, worlds, hand="real"):
    """float32[N]: each position's label's points over the champion's move by the judge of
    ``hand`` (see the module doc; 0 where the label keeps it). ``states`` hold a multiple of
    the labeller's ``games``."""
    k_label, k_judge = jax.random.split(key)
    actions, index = labels_of(labeller, params, states, k_label)
    return judge_labels(labeller, params, states, actions, index, k_judge, worlds, hand)


def labels_of(labeller, params, states, key):
    """``(actions int[N, K], index int[N])``: the teacher's candidates at each position and the
    one it labels (0: the champion's move), as generation labels them."""
    n = len(jax.tree.leaves(states)[0])
    if n % labeller.games:
        raise ValueError(f"{n} positions to judge: a multiple of generate.games={labeller.games}")
    actions, index = [], []
    for i, first in enumerate(range(0, n, labeller.games)):
        part = jax.tree.map(lambda x, first=first: x[first : first + labeller.games], states)
        info = labeller.decide(params, part, jax.random.fold_in(key, i))
        actions.append(np.asarray(info["actions"]))
        index.append(np.asarray(info["index"]))
    return np.concatenate(actions), np.concatenate(index)


def judge_labels(labeller, params, states, actions, index, key, worlds, hand="real"):
    """float32[N]: :func:`judged_gains` of given labels. Position ``i``'s worlds and rollouts
    are of ``key`` and ``i`` alone, so two teachers' labels judged with one key are paired."""
    if hand not in HANDS:
        raise ValueError(f"the judge's hand={hand!r}; choose one of {list(HANDS)}")
    changed = np.flatnonzero(index != 0)
    gains = np.zeros(len(index), np.float32)
    judge = _reference(labeller, worlds, hand)
    for first in range(0, len(changed), BATCH):
        rows = changed[first : first + BATCH]
        padded = np.resize(rows, BATCH)  # a fixed shape: the padding repeats rows, read once
        pairs = np.stack([actions[padded, 0], actions[padded, index[padded]]], axis=1)
        keys = jax.vmap(jax.random.fold_in, in_axes=(None, 0))(key, jnp.asarray(padded))
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
