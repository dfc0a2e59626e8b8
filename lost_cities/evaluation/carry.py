"""Carry probe (match3): does a policy react to the match score before round 3?

Each deal of the bank is started at round 3 (its third deck order) with policy A ahead
by ``carry`` points, for each carry in ``CARRIES``, and played in duplicate against B.
A match-aware policy should take more risk when behind (open more expeditions, play
more handshakes) and less when ahead; a policy blind to the carry behaves the same at
every carry, so only its win rate moves.

Who starts round 3 is set by ``starter``. Under the match's rule (``"rule"``) the seat
with more points starts, so the carry's sign also decides the start, and starting
changes what a player does whatever the score. Measured (1,000 deals against the
expert): ``heuristic_expert``, whose opening bars move by only 0.05 points per carried
point, opens 3.57 expeditions at carry -1 and 3.69 at +1 under the rule, but 3.65 and
3.62 when both carries see the same starts. ``"both"`` (the default) plays every deal
once with A starting and once with B starting, so only the carry differs between
carries; ``"agent"`` and ``"opponent"`` fix one.
"""

import functools

import jax.numpy as jnp
import numpy as np
from jax.tree_util import Partial

from lost_cities.evaluation.duplicate import play_duplicate
from lost_cities.evaluation.stats import game_scores, paired_interval, wilson_interval
from lost_cities.game.match import match_reset_from, starting_seat

CARRIES = (-60, -25, -1, 1, 25, 60)
BEHAVIOURS = ("expeditions", "handshakes", "pile_draws")
# Who starts round 3: the match's rule, or a fixed player (A, the probed agent, or B).
RULE, AGENT, OPPONENT = -1, 0, 1
STARTERS = {"rule": (RULE,), "agent": (AGENT,), "opponent": (OPPONENT,), "both": (AGENT, OPPONENT)}
SCHEMA_VERSION = 2  # 2: the starter setting; "both" plays 4 games a deal


def round3_start(carry_a, starter, deck_orders, coins, seat_a):
    """A match at the start of round 3 with seat ``seat_a`` ahead by ``carry_a`` points.

    A holds ``carry_a`` points and B none. ``starter`` is ``RULE`` (the seat with more
    points starts, and on a tie ``coins[2]`` decides, as in a real match), ``AGENT``
    (A starts) or ``OPPONENT`` (B starts).
    """
    ms = match_reset_from(deck_orders, coins)
    carry = jnp.where(jnp.arange(2) == seat_a, carry_a, 0.0).astype(jnp.float32)
    fixed = jnp.where(starter == AGENT, seat_a, 1 - seat_a)
    first = jnp.where(starter == RULE, starting_seat(carry, ms.coins[2]), fixed)
    round3 = ms.round.replace(loc=ms.deal_loc[2], hands=ms.deal_hands[2], to_move=first.astype(jnp.int32))
    return ms.replace(round=round3, round_idx=jnp.int32(2), carry=carry, starter=first.astype(jnp.int32))


def _paired(per_game, games_per_deal):
    mean, low, high = paired_interval(per_game, games_per_deal)
    return {"mean": mean, "lower": low, "upper": high}


def _overlap(a, b):
    return None in (a["lower"], b["lower"]) or not (a["upper"] < b["lower"] or b["upper"] < a["lower"])


def trend(points):
    """How a behaviour's mean moves with the carry (``points`` in ascending carry order).

    ``direction`` is the sign of the change from the lowest to the highest carry;
    ``monotonic`` holds when every step between neighbouring carries moves that way
    (or not at all) by its means, ``monotonic_within_noise`` when every step against
    it is within noise (the two intervals overlap); ``extremes_separated`` when the
    intervals at the lowest and the highest carry do not overlap.
    """
    means = np.array([p["mean"] for p in points])
    change = means[-1] - means[0]
    direction = "flat" if change == 0 else "increasing" if change > 0 else "decreasing"
    against = np.diff(means) * np.sign(change) < 0
    return {
        "direction": direction,
        "monotonic": not against.any(),
        "monotonic_within_noise": all(
            _overlap(a, b) for a, b, back in zip(points, points[1:], against, strict=False) if back
        ),
        "extremes_separated": not _overlap(points[0], points[-1]),
    }


def _per_deal_games(runs, name):
    """One run's games are ordered ``[deal, seat of A]``; ``[deal, run, seat of A]`` over runs."""
    return np.stack([np.asarray(run[name]).reshape(-1, 2) for run in runs], axis=1).reshape(-1)


def carry_probe(
    env, policy_a, policy_b, deck_orders, coins, key, carries=CARRIES, batch_size=1000, starter="both"
):
    """Round-3 win rate and A's behaviour at each injected carry, with intervals and trends.

    Returns ``{"schema_version", "env", "deals", "starter", "carries": [per carry: carry,
    win_rate (+ _lower/_upper, Wilson), round3_margin, expeditions, handshakes, pile_draws
    (each {"mean", "lower", "upper"}, over per-deal means)], "trends": {behaviour:
    trend}}``. Expeditions and handshakes are A's on its round-3 board at the end, pile
    draws A's discard-pile draws in round 3. ``starter`` is a key of ``STARTERS``.
    """
    if env.name != "match3":
        raise ValueError(f"the carry probe needs env match3 (a carry exists only in a match), got {env.name}")
    if starter not in STARTERS:
        raise ValueError(f"starter={starter!r}: who starts round 3 must be one of {sorted(STARTERS)}")
    starts = STARTERS[starter]
    games_per_deal = 2 * len(starts)
    play = functools.partial(play_duplicate, env, policy_a, policy_b, deck_orders, coins, key, batch_size)
    rows = []
    for carry in sorted(carries):
        # The carry and the starter are traced: one compile for all.
        runs = [play(start=Partial(round3_start, jnp.float32(carry), jnp.int32(who))) for who in starts]
        games = {
            name: _per_deal_games(runs, name)
            for name in ("margin_a", "last_round_expeditions_a", "last_round_handshakes_a", "pile_draws_a")
        }
        margin = games["margin_a"]
        score = game_scores(margin)
        low, high = wilson_interval(float(score.sum()), margin.size)
        rows.append(
            {
                "carry": int(carry),
                "win_rate": float(score.mean()),
                "win_rate_lower": low,
                "win_rate_upper": high,
                "round3_margin": _paired(margin - carry, games_per_deal),
                "expeditions": _paired(games["last_round_expeditions_a"], games_per_deal),
                "handshakes": _paired(games["last_round_handshakes_a"], games_per_deal),
                "pile_draws": _paired(games["pile_draws_a"], games_per_deal),
            }
        )
    return {
        "schema_version": SCHEMA_VERSION,
        "env": env.name,
        "deals": int(np.asarray(deck_orders).shape[0]),
        "starter": starter,
        "carries": rows,
        "trends": {name: trend([row[name] for row in rows]) for name in (*BEHAVIOURS, "round3_margin")},
    }
