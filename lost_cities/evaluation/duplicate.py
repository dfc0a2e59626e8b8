"""Duplicate evaluation: every deal played twice, A in seat 0 and then in seat 1.

One loop serves tournaments, ``lost_cities.evaluate``, training gates and training-time
evaluation. A chunk of deals is played as one jitted ``lax.while_loop`` over plies
with every game of the chunk in a ``vmap``. Each ply a policy is computed only for the
games where it is to move: those games are gathered into a batch a little over half the
chunk (a per-game branch would be a select under ``vmap`` that computes both policies
for every game, which doubles the cost of an expensive policy such as the search).

Randomness is common between the two games of a deal: at ply ``t`` of deal ``i`` policy
A gets the key ``split(fold_in(fold_in(key, i), t))[0]`` and policy B the ``[1]``,
in both seat assignments. Mirrored identical deterministic policies therefore give
exactly 0.5, and the pairing removes deal luck from the comparison.

Policies are ``policy(env_state, rng) -> action``. They enter the jitted loop as
``jax.tree_util.Partial`` pytrees: compiled loops are cached by the policy's function,
and any arrays bound in a ``Partial`` (network parameters) are traced, so evaluating
new parameters of the same network does not recompile.
"""

import functools
import inspect
import math
from typing import TypedDict, get_type_hints

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec
from jax.tree_util import Partial

from lost_cities.evaluation.stats import (
    deal_intervals,
    deal_score_counts,
    game_scores,
    paired_interval,
    wilson_interval,
)
from lost_cities.game.cards import MAX_STEPS, N_DRAW_SOURCES
from lost_cities.parallel import place

SCHEMA_VERSION = 1


class RoundResults(TypedDict):
    """One round of :class:`Results` ``rounds``."""

    round: int
    margin_mean: float
    margin_lower: float | None
    margin_upper: float | None
    plies_mean: float
    max_steps_rate: float


class Results(TypedDict):
    """Results of :func:`duplicate_evaluate` (schema_version 1); all from policy A's side.

    - ``schema_version`` int; ``env`` str; ``deals`` int; ``games`` int (= 2 * deals).
    - ``wins``, ``draws``, ``losses`` int: games by the sign of A's final margin.
    - ``win_rate`` float: ``(wins + draws / 2) / games`` (a draw is half a win), with
      ``win_rate_lower`` / ``win_rate_upper``: its Wilson 95% interval over the games,
      which takes the two games of a deal as independent; they share the deal.
    - ``win_rate_deal_lower`` / ``win_rate_deal_upper`` (``None`` with fewer than two
      deals): the win rate's normal 95% interval over the deals, each deal's score the
      mean of its two games (0, 1/4, ..., 1): the deals are the independent units, so
      this is the interval a claim uses (experiments/duplicate-intervals/).
    - ``win_rate_bootstrap_lower`` / ``win_rate_bootstrap_upper``: a 95% percentile
      bootstrap over the deals (numpy, fixed seed: ``stats.bootstrap_interval``), the
      check that needs no normal approximation.
    - ``game_correlation`` float or ``None`` (games that do not vary): the correlation
      of a deal's two game scores (``stats.game_correlation``); the deal interval is about
      ``sqrt(1 + game_correlation)`` times the Wilson's width.
    - ``deal_scores`` list of 5 ints: the deals whose two games scored 0, 1/4, 1/2, 3/4
      and 1 on average (what the deal intervals are computed from; parts pool by adding them).
    - ``draw_rate`` float: ``draws / games``.
    - ``margin_mean`` float: A's mean final margin in points, with ``margin_lower`` /
      ``margin_upper``: a normal 95% interval over the per-deal means of the two games
      (the deals are the independent units); ``None`` with fewer than two deals.
    - ``plies_per_round`` float: mean placements per round over all rounds played.
    - ``max_steps_rate`` float: fraction of rounds that ended by hitting ``MAX_STEPS``.
    - ``pile_draws_per_round_a`` / ``pile_draws_per_round_b`` float: discard-pile
      draws per round by A / by B (stalling shows up here first).
    - ``max_steps_games`` int: games with at least one such round.
    - ``natural_games`` int: games in which no round hit ``MAX_STEPS``;
      ``natural_win_rate`` (``None`` when there are none) with ``natural_win_rate_lower``
      / ``natural_win_rate_upper`` (Wilson) over those games only.
    - ``seat0_win_rate``, ``seat1_win_rate`` float: A's win rate in each seat.
    - ``rounds`` list, one dict per round of the env (1 for single_round, 3 for match3):
      ``round`` int (1-based), ``margin_mean`` / ``margin_lower`` / ``margin_upper``
      (A's points margin of that round alone, interval as above), ``plies_mean`` float,
      ``max_steps_rate`` float.

    ``lost_cities.evaluate`` / ``tournament`` add ``agent``, ``opponent``, ``bank`` (str),
    ``seed`` (int) and ``seconds`` (float, wall time of the games); ``run_gates`` adds
    ``opponent``, ``checks`` and ``passed``.
    """

    schema_version: int
    env: str
    deals: int
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float
    win_rate_lower: float
    win_rate_upper: float
    win_rate_deal_lower: float | None
    win_rate_deal_upper: float | None
    win_rate_bootstrap_lower: float | None
    win_rate_bootstrap_upper: float | None
    game_correlation: float | None
    deal_scores: list[int]
    draw_rate: float
    margin_mean: float
    margin_lower: float | None
    margin_upper: float | None
    plies_per_round: float
    max_steps_rate: float
    pile_draws_per_round_a: float
    pile_draws_per_round_b: float
    max_steps_games: int
    natural_games: int
    natural_win_rate: float | None
    natural_win_rate_lower: float
    natural_win_rate_upper: float
    seat0_win_rate: float
    seat1_win_rate: float
    rounds: list[RoundResults]


RESULTS_SCHEMA = inspect.cleandoc(Results.__doc__)
# The rates, means and bounds of a result (its float fields; counts are not): what a gate
# may bound and what training logs of each gate.
RESULT_METRICS = tuple(key for key, kind in get_type_hints(Results).items() if kind in (float, float | None))


def _as_partial(policy):
    """A policy as a jitted function's argument: a pytree (a ``Partial``, or a policy that
    computes its batches itself, see :func:`batched_actions`) as it is, a function wrapped."""
    return policy if isinstance(policy, Partial) or hasattr(policy, "batched") else Partial(policy)


def _ply_keys(deal_key, t):
    """Policy A's and policy B's keys at ply ``t`` of a deal."""
    return jax.random.split(jax.random.fold_in(deal_key, t))


def _play_game_ply(env, game, seat_a, action_a, action_b):
    """One ply of one game, given each policy's action; ``game`` is the per-game tracking dict."""
    state = game["state"]
    a_moves = env.to_move(state) == seat_a
    action = jnp.where(a_moves, action_a, action_b)
    next_state, _, next_done = env.step(state, action)
    from_pile = action % N_DRAW_SOURCES != 0

    was_done = env.done(state)
    plies = env.round_state(state).plies
    next_plies = env.round_state(next_state).plies
    # A legal ply advances the round's ply counter, or ends the round (a new round
    # starts at ply 0); an illegal action is a no-op that leaves it unchanged.
    moved = ~was_done & (next_plies != plies)
    round_end = moved & (next_done | (next_plies != plies + 1))
    margin_now = env.final_margin(next_state)[0]
    this_round = (jnp.arange(env.rounds) == game["round_idx"]) & round_end
    return {
        "state": next_state,
        "round_idx": game["round_idx"] + round_end.astype(jnp.int32),
        "round_margin": jnp.where(
            this_round, margin_now - game["margin_at_round_start"], game["round_margin"]
        ),
        "round_plies": jnp.where(this_round, plies + 1, game["round_plies"]),
        "margin_at_round_start": jnp.where(round_end, margin_now, game["margin_at_round_start"]),
        "pile_draws_a": game["pile_draws_a"] + (moved & a_moves & from_pile),
        "pile_draws_b": game["pile_draws_b"] + (moved & ~a_moves & from_pile),
        "illegal_a": game["illegal_a"] | (~was_done & ~moved & a_moves),
        "illegal_b": game["illegal_b"] | (~was_done & ~moved & ~a_moves),
    }


def mover_capacity(n_games):
    """Games a policy is computed on per ply: a little over the half of the games it
    moves in on a typical ply (exactly half in round 1, where the two games of a deal
    alternate in step), so that one pass (or one round of :func:`mover_actions`'s
    progress passes) nearly always suffices."""
    return min(n_games, int(np.ceil(0.55 * n_games + 2 * np.sqrt(n_games))))


PROGRESS_PASSES = 8


def batched_actions(policy, states, keys, need):
    """int32[B]: ``policy``'s actions over a batch of games (leading axis), by the policy's
    own ``batched(states, keys, need)`` where it has one (a policy that decides per batch
    which of its parts to run, ``search.endgame.EndgamePolicy``), else vmapped. Only the
    games where ``need`` holds are read."""
    batched = getattr(policy, "batched", None)
    if batched is not None:
        return batched(states, keys, need)
    return jax.vmap(policy)(states, keys).astype(jnp.int32)


def mover_actions(policy, states, keys, need, capacity, progress=None):
    """int32[games]: ``policy``'s actions in the games where ``need`` holds (0 elsewhere).

    Under ``vmap`` a policy costs the same for every game it is given, so it is given only
    the games it moves in: gathered ``capacity`` at a time (one pass unless more games
    need it), its actions scattered back. Each game gets the action it would get from
    ``policy(state, key)`` alone (up to float rounding, which may differ with the batch).

    ``progress`` (int[games]: how far each game's round has gone, e.g. its deck pointer)
    gathers the games in that order and computes them in ``PROGRESS_PASSES`` passes of
    ``capacity / PROGRESS_PASSES``: a search runs its rollouts under ``vmap`` until the
    longest one ends, so a pass of games at the same point of their rounds pays only for
    their own rest of the round, not for the game furthest from its round's end
    (search/default against the expert, 100 deals: 128 s against 165 s, medians of 3; a
    network's evaluation is not slower; experiments/search-cost/).
    """
    if progress is None:
        order = jnp.argsort(~need, stable=True)  # the games that need the policy first
    else:
        order = jnp.lexsort((progress, ~need))  # those first, by their rounds' progress
        capacity = -(-capacity // PROGRESS_PASSES)
    order = jnp.concatenate([order, order[:capacity]])  # a last pass may read past the end
    passes = (jnp.sum(need, dtype=jnp.int32) + capacity - 1) // capacity

    def one_pass(p, actions):
        index = jax.lax.dynamic_slice(order, (p * capacity,), (capacity,))
        acted = batched_actions(policy, jax.tree.map(lambda x: x[index], states), keys[index], need[index])
        return actions.at[index].set(jnp.where(need[index], acted, actions[index]))

    return jax.lax.fori_loop(0, passes, one_pass, jnp.zeros(need.shape[0], jnp.int32))


def _play_chunk(env, start, policy_a, policy_b, deck_orders, coins, deal_keys, seat_a, compact=True):
    """Play games to the end; the arrays carry a leading games axis.

    Games start from ``env.init_from_deal`` or, when given, ``start(deck_orders,
    coins, seat_a)`` per game (a ``Partial``, for probes that start mid-match). With
    ``compact`` each policy is computed only on the games where it is to move
    (:func:`mover_actions`); without, on every game each ply (the same actions).
    """
    n_games = seat_a.shape[0]
    init = env.init_from_deal if start is None else start
    states = jax.vmap(init)(deck_orders, coins, *(() if start is None else (seat_a,)))
    games = {
        "state": states,
        "round_idx": jnp.zeros(n_games, jnp.int32),
        "round_margin": jnp.zeros((n_games, env.rounds), jnp.float32),
        "round_plies": jnp.zeros((n_games, env.rounds), jnp.int32),
        "margin_at_round_start": jax.vmap(env.final_margin)(states)[:, 0],
        "pile_draws_a": jnp.zeros(n_games, jnp.int32),
        "pile_draws_b": jnp.zeros(n_games, jnp.int32),
        "illegal_a": jnp.zeros(n_games, bool),
        "illegal_b": jnp.zeros(n_games, bool),
    }
    ply = jax.vmap(_play_game_ply, in_axes=(None, 0, 0, 0, 0))
    capacity = mover_capacity(n_games) if compact else n_games
    max_plies = env.rounds * MAX_STEPS  # every legal ply advances a round that ends by MAX_STEPS

    def running(carry):
        t, games = carry
        stuck = games["illegal_a"] | games["illegal_b"]
        return (t < max_plies) & jnp.any(~jax.vmap(env.done)(games["state"]) & ~stuck)

    def advance(carry):
        t, games = carry
        keys = jax.vmap(_ply_keys, in_axes=(0, None))(deal_keys, t)
        states = games["state"]
        live = ~jax.vmap(env.done)(states)
        a_moves = jax.vmap(env.to_move)(states) == seat_a
        progress = jax.vmap(env.round_state)(states).deck_ptr
        action_a = mover_actions(policy_a, states, keys[:, 0], live & a_moves, capacity, progress)
        action_b = mover_actions(policy_b, states, keys[:, 1], live & ~a_moves, capacity, progress)
        return t + 1, ply(env, games, seat_a, action_a, action_b)

    _, games = jax.lax.while_loop(running, advance, (jnp.int32(0), games))
    final_margin = jax.vmap(env.final_margin)(games["state"])[:, 0]
    sign = jnp.where(seat_a == 0, 1.0, -1.0)
    last_round = jax.vmap(env.round_state)(games["state"])
    a_column = (jnp.arange(2) == seat_a[:, None])[:, :, None]  # [games, seat, 1]
    return {
        "done": jax.vmap(env.done)(games["state"]),
        "pile_draws_a": games["pile_draws_a"],
        "pile_draws_b": games["pile_draws_b"],
        "last_round_expeditions_a": jnp.sum(a_column & (last_round.exp_count > 0), axis=(1, 2)),
        "last_round_handshakes_a": jnp.sum(jnp.where(a_column, last_round.exp_handshakes, 0), axis=(1, 2)),
        "margin_a": sign * final_margin,
        "round_margin_a": sign[:, None] * games["round_margin"],
        "round_plies": games["round_plies"],
        "illegal_a": games["illegal_a"],
        "illegal_b": games["illegal_b"],
    }


_play_chunk_jit = jax.jit(_play_chunk, static_argnums=0, static_argnames="compact")


@functools.cache
def _play_chunk_sharded(sharding):
    """``_play_chunk`` for games split by ``sharding`` (a ``NamedSharding`` of the games axis);
    the per-game results come back replicated, readable in every process."""
    everywhere = NamedSharding(sharding.mesh, PartitionSpec())
    return jax.jit(_play_chunk, static_argnums=0, static_argnames="compact", out_shardings=everywhere)


def _deal_keys(key, first, count):
    return jax.vmap(jax.random.fold_in, in_axes=(None, 0))(key, jnp.arange(first, first + count))


def play_duplicate(
    env,
    policy_a,
    policy_b,
    deck_orders,
    coins,
    key,
    batch_size=1000,
    progress=None,
    start=None,
    compact=True,
    sharding=None,
):
    """Raw per-game arrays of a duplicate evaluation, games ordered ``[deal, seat of A]``.

    ``progress``, if given, is called with the number of deals finished after each chunk;
    ``start`` replaces ``env.init_from_deal`` and ``compact`` is as in ``_play_chunk``.
    ``sharding`` (:func:`lost_cities.parallel.batch_sharding`) splits each chunk's games over
    the mesh's devices (and processes); a chunk is padded to a multiple of the device count.
    Every deal's games and keys are the same either way, so the results are too.
    """
    deck_orders = np.asarray(deck_orders, np.int32)
    coins = np.asarray(coins, np.int32)
    n_deals = deck_orders.shape[0]
    if deck_orders.shape[1:] != (3, 60) or coins.shape != (n_deals, 3):
        raise ValueError(
            f"expected deck_orders int32[n, 3, 60] and coins int32[n, 3] (see deal_bank), "
            f"got {deck_orders.shape} and {coins.shape}"
        )
    policy_a, policy_b = _as_partial(policy_a), _as_partial(policy_b)
    start = None if start is None else _as_partial(start)
    if isinstance(batch_size, bool) or int(batch_size) != batch_size or batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r}: deals per compiled chunk must be a whole number >= 1")
    batch_size = min(int(batch_size), n_deals)
    play = _play_chunk_jit
    if sharding is not None:
        devices = sharding.mesh.devices.size
        per_deal = devices // math.gcd(devices, 2)  # deals per chunk: a multiple of this (2 games each)
        batch_size = -(-batch_size // per_deal) * per_deal
        play = _play_chunk_sharded(sharding)
    chunks = []
    for first in range(0, n_deals, batch_size):
        index = np.minimum(np.arange(first, first + batch_size), n_deals - 1)  # pad with the last deal
        games_deals = np.repeat(index, 2)
        seat_a = jnp.tile(jnp.array([0, 1], jnp.int32), batch_size)
        deal_keys = jnp.repeat(_deal_keys(key, first, batch_size), 2, axis=0)
        games_in = (deck_orders[games_deals], coins[games_deals], deal_keys, seat_a)
        if sharding is not None:
            games_in = place(games_in, (sharding,) * len(games_in))
        out = play(env, start, policy_a, policy_b, *games_in, compact=compact)
        kept = 2 * min(batch_size, n_deals - first)
        chunks.append({name: np.asarray(value)[:kept] for name, value in out.items()})
        if progress is not None:
            progress(kept // 2)
    games = {name: np.concatenate([chunk[name] for chunk in chunks]) for name in chunks[0]}
    for name, who in (("illegal_a", "A"), ("illegal_b", "B")):
        if games[name].any():
            raise ValueError(
                f"policy {who} chose an illegal action in {int(games[name].sum())} games; "
                "policies must pick from env.legal_mask(state)"
            )
    if not games["done"].all():
        raise RuntimeError("some games did not finish within rounds * MAX_STEPS plies")
    return games


def _rate(successes, n):
    low, high = wilson_interval(successes, n)
    return successes / n if n else None, low, high


def summarise(games, env_name) -> Results:
    """The documented results dict (``RESULTS_SCHEMA``) from :func:`play_duplicate`'s arrays."""
    margin = games["margin_a"]
    n_games = margin.size
    wins, draws, losses = int((margin > 0).sum()), int((margin == 0).sum()), int((margin < 0).sum())
    score = game_scores(margin)
    win_rate, win_lower, win_upper = _rate(float(score.sum()), n_games)
    seat0, seat1 = float(score[0::2].mean()), float(score[1::2].mean())
    margin_mean, margin_lower, margin_upper = paired_interval(margin)
    plies = games["round_plies"]
    hit_max = plies >= MAX_STEPS
    natural = ~hit_max.any(axis=1)
    natural_rate, natural_lower, natural_upper = _rate(float(score[natural].sum()), int(natural.sum()))
    rounds = []
    for r in range(plies.shape[1]):
        round_mean, round_lower, round_upper = paired_interval(games["round_margin_a"][:, r])
        rounds.append(
            {
                "round": r + 1,
                "margin_mean": round_mean,
                "margin_lower": round_lower,
                "margin_upper": round_upper,
                "plies_mean": float(plies[:, r].mean()),
                "max_steps_rate": float(hit_max[:, r].mean()),
            }
        )
    return {
        "schema_version": SCHEMA_VERSION,
        "env": env_name,
        "deals": n_games // 2,
        "games": n_games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": win_rate,
        "win_rate_lower": win_lower,
        "win_rate_upper": win_upper,
        **deal_intervals(deal_score_counts(score), wins, draws, seat0, seat1),
        "draw_rate": draws / n_games,
        "margin_mean": margin_mean,
        "margin_lower": margin_lower,
        "margin_upper": margin_upper,
        "plies_per_round": float(plies.mean()),
        "max_steps_rate": float(hit_max.mean()),
        "pile_draws_per_round_a": float(games["pile_draws_a"].sum() / plies.size),
        "pile_draws_per_round_b": float(games["pile_draws_b"].sum() / plies.size),
        "max_steps_games": int((~natural).sum()),
        "natural_games": int(natural.sum()),
        "natural_win_rate": natural_rate,
        "natural_win_rate_lower": natural_lower,
        "natural_win_rate_upper": natural_upper,
        "seat0_win_rate": seat0,
        "seat1_win_rate": seat1,
        "rounds": rounds,
    }


def duplicate_evaluate(
    env, policy_a, policy_b, deck_orders, coins, key, batch_size=1000, progress=None, sharding=None
) -> Results:
    """Play every deal twice with seats swapped and summarise from A's side (see ``RESULTS_SCHEMA``).

    ``deck_orders int32[n, 3, 60]`` and ``coins int32[n, 3]`` usually come from
    :func:`lost_cities.evaluation.deal_bank`; ``batch_size`` deals (twice as many
    games) are played per compiled chunk; ``sharding`` splits them over devices
    (:func:`play_duplicate`).
    """
    games = play_duplicate(
        env, policy_a, policy_b, deck_orders, coins, key, batch_size, progress, sharding=sharding
    )
    return summarise(games, env.name)
