"""The search policy: ``policy(env_state, rng) -> action``, pure JAX, one game per call.

Per decision, for the seat to move:

1. the base policy's move ``b`` and its scores give the candidates: ``b`` and the next
   best ``candidates - 1`` legal actions (:mod:`lost_cities.search.candidates`);
2. ``worlds`` worlds are sampled from the mover's information set
   (:mod:`lost_cities.search.determinize`; with a ``belief``, the opponent's hand drawn by
   it, :mod:`lost_cities.search.belief`), with ``inference_pool`` > 1 preferring those
   in which the opponent's model plays the most of the opponent's latest
   ``inference_moves`` moves (:mod:`lost_cities.search.inference`);
3. every candidate is scored in every world by a base-policy rollout for both seats, or
   with ``opponent_rollout`` for the other seat (a model of the opponent)
   (:mod:`lost_cities.search.rollout`), the same worlds and keys for all candidates;
4. gate: the candidate ``c`` of best mean value replaces ``b`` only when its mean paired
   gain ``mean(v_c - v_b)`` exceeds ``gate_points`` and ``gate_z`` standard errors; with
   ``confirm_worlds`` that gain is measured again on fresh worlds, ``c`` against ``b``.
   ``prior_points`` adds the proposer's own preference to every gain: that many points
   per unit of ``score_c - score_b`` (for a network, per nat of its probability ratio).

The policy is a ``jax.tree_util.Partial`` whose function (the static part, cached per
config) closes over the :class:`SearchConfig`; the base policy and its scorer are its
arguments, so a network's parameters stay traced leaves. Under ``vmap`` over games
(duplicate evaluation) every decision runs worlds x candidates lanes at once.
"""

import dataclasses
import functools

import jax
import jax.numpy as jnp
from jax.tree_util import Partial

from lost_cities.search.candidates import legal_mask_of, top_candidates
from lost_cities.search.config import SearchConfig
from lost_cities.search.endgame import EndgamePolicy
from lost_cities.search.inference import sample_worlds
from lost_cities.search.rollout import point_utility, rollout_values


def prior_bonus(scores, actions, prior_points, unit=1.0):
    """float32[K]: ``prior_points`` points (in utility: times ``unit``) per unit of the
    proposer's score of each candidate over the base move's (``actions[0]``); 0 where either
    is unrated (not finite), so a move the proposer does not rate is judged by rollouts alone."""
    ranked = scores[actions]
    lead = ranked - ranked[0]
    return jnp.where(jnp.isfinite(lead), prior_points * unit * lead, 0.0)


def best_challenger(values, valid, bonus=0.0):
    """``(index, gains[W])``: the candidate of best mean paired gain over the base move
    (column 0) in ``values[W, K]``, ``bonus[K]`` added, and its gains world by world (the
    base move wins a tie)."""
    gains = values - values[:, :1] + bonus  # paired with the base move, world by world
    ranked = jnp.where(valid, jnp.mean(gains, axis=0), -jnp.inf)
    best = jnp.argmax(ranked)  # lowest index on ties
    return best, gains[:, best]


def clears_gate(gains, cfg, unit=1.0):
    """``(clears, mean gain)``: whether paired ``gains[W]`` clear ``gate_points`` (in units of
    ``unit``, the utility of one point: ``1 / scale`` under a ``tanh`` utility) and
    ``gate_z`` standard errors."""
    n_worlds = gains.shape[0]
    gain = jnp.mean(gains)
    spread = jnp.std(gains, ddof=1) if n_worlds > 1 else jnp.float32(0.0)
    clears = (gain > cfg.gate_points * unit) & (gain > cfg.gate_z * spread / jnp.sqrt(float(n_worlds)))
    return clears, gain


def gate_closeness(values, valid, cfg, unit=1.0, bonus=0.0):
    """``(challenger, closeness)``: the best candidate other than the base move in ``values[W,
    K]`` (``bonus`` added) and how near its mean paired gain is to the gate's threshold, in
    standard errors (``inf`` where there is no challenger): the decisions that more worlds
    would most likely turn are the nearest."""
    n_worlds = values.shape[0]
    gains = values - values[:, :1] + bonus
    ranked = jnp.where(valid & (jnp.arange(valid.shape[0]) > 0), jnp.mean(gains, axis=0), -jnp.inf)
    challenger = jnp.argmax(ranked)
    paired = gains[:, challenger]
    error = jnp.std(paired, ddof=1) / jnp.sqrt(float(n_worlds))
    threshold = jnp.maximum(cfg.gate_points * unit, cfg.gate_z * error)
    closeness = jnp.abs(jnp.mean(paired) - threshold) / jnp.maximum(error, 1e-6 * unit)
    return challenger, jnp.where(jnp.isfinite(ranked[challenger]), closeness, jnp.inf)


def select(values, valid, cfg, unit=1.0, bonus=0.0):
    """``(index, gain)``: the chosen candidate (0 is the base move) from ``values[W, K]``
    (``bonus[K]``: the proposer's prior, :func:`prior_bonus`)."""
    best, gains = best_challenger(values, valid, bonus)
    clears, gain = clears_gate(gains, cfg, unit)
    return jnp.where(clears, best, 0), gain


def candidate_values(
    cfg,
    state,
    candidates,
    world_key,
    rollout_key,
    count,
    base_policy,
    rollout_policy=None,
    leaf=None,
    opponent_model=None,
    next_move=None,
    deal=None,
):
    """float32[count, K]: each of ``candidates`` scored in ``count`` worlds from the mover's
    information set, the same worlds and keys for all (the policies as in :func:`search_decision`)."""
    rollout_policy = base_policy if rollout_policy is None else rollout_policy
    inferred = base_policy if opponent_model is None else opponent_model
    worlds = sample_worlds(world_key, state, count, cfg.inference_pool, inferred, cfg.inference_moves, deal)
    keys = jax.random.split(rollout_key, count)
    return rollout_values(
        worlds,
        candidates,
        rollout_policy,
        keys,
        cfg.depth,
        cfg.start_value,
        cfg.scales,
        leaf,
        opponent_model,
        next_move,
    )


def search_decision(
    cfg,
    base_policy,
    scores,
    state,
    rng,
    rollout_policy=None,
    leaf=None,
    opponent_model=None,
    next_move=None,
    deal=None,
):
    """``(action, info)`` for the seat to move; ``info`` holds the candidates and values.

    ``rollout_policy`` plays the rollouts (``None``: the base policy); ``leaf`` values a
    rollout cut at ``cfg.depth`` (``None``: the board as it stands); ``opponent_model``
    plays the other seat in the rollouts and is the model the inference asks (``None``:
    the rollout policy plays both seats and the base policy is asked); ``next_move`` makes
    the searching seat's next decision in each rollout (``None``: the rollout policy);
    ``deal(rng, state)`` samples a world (``None``: uniform worlds)."""
    base_key, world_key, rollout_key = jax.random.split(rng, 3)
    base = base_policy(state, base_key).astype(jnp.int32)
    proposal = scores(state)
    actions, valid = top_candidates(proposal, legal_mask_of(state), base, cfg.candidates)
    roll = (base_policy, rollout_policy, leaf, opponent_model, next_move, deal)

    def values_of(candidates, world_key, rollout_key, count):
        return candidate_values(cfg, state, candidates, world_key, rollout_key, count, *roll)

    values = values_of(actions, world_key, rollout_key, cfg.worlds)
    unit = point_utility(state, cfg.scales)
    bonus = prior_bonus(proposal, actions, cfg.prior_points, unit)
    info = {"actions": actions, "valid": valid, "values": values, "bonus": bonus}
    if cfg.confirm_worlds:
        best, _ = best_challenger(values, valid, bonus)
        pair = jnp.stack([actions[0], actions[best]])
        confirm_world_key, confirm_rollout_key = jax.random.split(jax.random.fold_in(rng, 1))
        confirm = values_of(pair, confirm_world_key, confirm_rollout_key, cfg.confirm_worlds)
        clears, gain = clears_gate(confirm[:, 1] - confirm[:, 0] + bonus[best], cfg, unit)
        index = jnp.where(clears, best, 0)
        info["confirm_values"] = confirm
    else:
        index, gain = select(values, valid, cfg, unit, bonus)
    action = jnp.sum(jnp.where(jnp.arange(cfg.candidates) == index, actions, 0)).astype(jnp.int32)
    return action, {**info, "index": index, "gain": gain}


@functools.lru_cache(maxsize=64)
def _policy_fn(cfg):
    def policy(base_policy, scores, rollout_policy, leaf, opponent_model, next_move, deal, state, rng):
        if cfg.candidates == 1:
            return base_policy(state, rng).astype(jnp.int32)
        return search_decision(
            cfg, base_policy, scores, state, rng, rollout_policy, leaf, opponent_model, next_move, deal
        )[0]

    policy.__name__ = f"search_{cfg.worlds}x{cfg.candidates}"
    return policy


def _as_partial(f):
    return f if isinstance(f, Partial) else Partial(f)


def search_policy(
    base_policy,
    scores,
    cfg: SearchConfig,
    rollout_policy=None,
    leaf=None,
    opponent_model=None,
    next_move=None,
    deal=None,
):
    """``policy(env_state, rng) -> action`` searching on top of ``base_policy``; the rollouts
    are played by ``rollout_policy`` (``None``: the base), the other seat's moves in them by
    ``opponent_model`` (``None``: the rollout policy), the searching seat's next decision in
    them by ``next_move`` (``None``: the rollout policy) and cut ones valued by ``leaf``, in
    worlds dealt by ``deal`` (``None``: uniform; a belief's: ``belief.world_sampler``). With
    ``cfg.endgame``, an :class:`EndgamePolicy` of two such searches."""
    parts = [_as_partial(base_policy), _as_partial(scores)]
    parts += [
        None if f is None else _as_partial(f) for f in (rollout_policy, leaf, opponent_model, next_move, deal)
    ]
    if cfg.endgame is None:
        return Partial(_policy_fn(cfg), *parts)
    opening = Partial(_policy_fn(dataclasses.replace(cfg, endgame=None)), *parts)
    endgame = Partial(_policy_fn(cfg.endgame_config()), *parts)
    return EndgamePolicy(opening, endgame, cfg.endgame_deck_left)
