"""The win rate's intervals over deals (lost_cities/evaluation/stats.py): the deal interval,
the bootstrap over deals and the correlation of a deal's two games, computed from the deal
score counts alone, so that an evaluation and its pooled parts agree exactly."""

import itertools

import numpy as np
import pytest

from lost_cities.evaluation import summarise
from lost_cities.evaluation.pooling import DEAL_KEYS, pool_results
from lost_cities.evaluation.stats import (
    DEAL_SCORES,
    bootstrap_interval,
    deal_interval,
    deal_score_counts,
    game_correlation,
    paired_interval,
    wilson_interval,
)
from lost_cities.game.cards import MAX_STEPS


def seat_scores(rng, deals, together):
    """Per deal, the scores (0, 1/2, 1) of A's two games: with probability ``together`` the
    second game repeats the first's result, else both are drawn apart (seat 1 a little weaker)."""
    first = rng.choice([0.0, 0.5, 1.0], deals, p=[0.35, 0.05, 0.6])
    apart = rng.choice([0.0, 0.5, 1.0], deals, p=[0.45, 0.05, 0.5])
    second = np.where(rng.random(deals) < together, first, apart)
    return first, second


def games_of(first, second):
    """The per-game scores ordered ``[deal, seat]`` as play_duplicate orders them."""
    return np.stack([first, second], axis=1).ravel()


def summaries(first, second):
    scores = games_of(first, second)
    return {
        "counts": deal_score_counts(scores),
        "wins": int((scores == 1).sum()),
        "draws": int((scores == 0.5).sum()),
        "seat0": float(first.mean()),
        "seat1": float(second.mean()),
    }


@pytest.mark.parametrize("together", [0.0, 0.4, 0.9])
def test_the_correlation_from_summaries_is_the_seats_pooled_correlation(together):
    first, second = seat_scores(np.random.default_rng(1), 4000, together)
    s = summaries(first, second)
    direct = 2 * np.mean((first - first.mean()) * (second - second.mean())) / (first.var() + second.var())
    found = game_correlation(s["counts"], s["wins"], s["draws"], s["seat0"], s["seat1"])
    assert found == pytest.approx(direct, abs=1e-12)
    assert found == pytest.approx(
        np.corrcoef(first, second)[0, 1], abs=0.02
    )  # the seats' variances are close


def test_the_correlation_is_one_for_equal_games_minus_one_for_opposite_and_none_without_variation():
    rng = np.random.default_rng(2)
    first = rng.choice([0.0, 1.0], 500)
    for second, expected in ((first, 1.0), (1 - first, -1.0)):
        s = summaries(first, second)
        assert game_correlation(s["counts"], s["wins"], s["draws"], s["seat0"], s["seat1"]) == pytest.approx(
            expected
        )
    s = summaries(np.ones(10), np.ones(10))
    assert game_correlation(s["counts"], s["wins"], s["draws"], s["seat0"], s["seat1"]) is None


@pytest.mark.parametrize("together", [0.0, 0.9])
def test_the_deal_interval_is_the_normal_interval_over_deal_scores_and_scales_with_the_correlation(together):
    first, second = seat_scores(np.random.default_rng(3), 20000, together)
    scores = games_of(first, second)
    s = summaries(first, second)
    low, high = deal_interval(s["counts"])
    _, paired_low, paired_high = paired_interval(scores)
    assert (low, high) == pytest.approx((paired_low, paired_high), abs=1e-12)
    wilson_low, wilson_high = wilson_interval(scores.sum(), scores.size)
    rho = game_correlation(s["counts"], s["wins"], s["draws"], s["seat0"], s["seat1"])
    # The deal score's variance is the seats' (var_0 + var_1) / 4 * (1 + correlation); Wilson's
    # takes p (1 - p) / 2 a game, which is var_0 + var_1 over 2 without draws or a seat gap:
    # the deal interval is wider when the games go together, about Wilson's when apart.
    p = scores.mean()
    expected = np.sqrt((first.var() + second.var()) * (1 + rho) / (2 * p * (1 - p)))
    ratio = (high - low) / (wilson_high - wilson_low)
    assert ratio == pytest.approx(expected, rel=0.01)
    assert ratio > 1.3 if together == 0.9 else abs(ratio - 1) < 0.05


def test_the_bootstrap_resamples_deals_and_is_fixed_by_its_seed():
    first, second = seat_scores(np.random.default_rng(4), 3000, 0.5)
    counts = deal_score_counts(games_of(first, second))
    assert bootstrap_interval(counts) == bootstrap_interval(counts)  # the same counts, the same interval
    # The multinomial over the five deal scores is resampling the deals: the intervals agree
    # with a bootstrap that resamples the deals themselves, to the resampling noise.
    per_deal = (first + second) / 2
    rng = np.random.default_rng(5)
    means = per_deal[rng.integers(0, per_deal.size, (4000, per_deal.size))].mean(axis=1)
    assert bootstrap_interval(counts) == pytest.approx(tuple(np.percentile(means, [2.5, 97.5])), abs=0.002)
    assert bootstrap_interval(counts) == pytest.approx(deal_interval(counts), abs=0.002)  # 3000 deals: normal
    assert bootstrap_interval([0, 0, 1, 0, 0]) == (None, None) == deal_interval([0, 0, 1, 0, 0])


def test_deal_scores_count_each_deals_mean():
    scores = np.array([1, 1, 1, 0.5, 0, 0.5, 0, 0, 0.5, 0.5, 1, 0])
    assert deal_score_counts(scores) == [1, 1, 2, 1, 1]  # deals 1, 0.75, 0.25, 0, 0.5, 0.5
    assert float(np.dot(deal_score_counts(scores), DEAL_SCORES) / 6) == pytest.approx(scores.mean())


def fake_games(rng, deals):
    rounds = rng.integers(-30, 31, (2 * deals, 3))
    return {
        "margin_a": rounds.sum(axis=1) * rng.integers(0, 2, 2 * deals),  # zeros: draws
        "round_margin_a": rounds,
        "round_plies": np.full((2 * deals, 3), MAX_STEPS // 2),
        "pile_draws_a": rng.integers(0, 3, (2 * deals, 3)),
        "pile_draws_b": rng.integers(0, 3, (2 * deals, 3)),
    }


def test_results_carry_the_deal_intervals_and_parts_pool_to_the_wholes():
    games = fake_games(np.random.default_rng(6), 90)
    whole = summarise(games, "match3")
    scores = (games["margin_a"] > 0) + 0.5 * (games["margin_a"] == 0)
    assert whole["deal_scores"] == deal_score_counts(scores) and sum(whole["deal_scores"]) == 90
    assert (whole["win_rate_deal_lower"], whole["win_rate_deal_upper"]) == deal_interval(whole["deal_scores"])
    assert whole["win_rate_deal_lower"] < whole["win_rate"] < whole["win_rate_deal_upper"]
    splits = (0, 13, 14, 60, 90)
    parts = []
    for a, b in itertools.pairwise(splits):
        sliced = {name: value[2 * a : 2 * b] for name, value in games.items()}
        parts.append({**summarise(sliced, "match3"), "agent": "a", "opponent": "b", "first_deal": a})
    pooled = pool_results(parts)
    for key in DEAL_KEYS:
        assert pooled[key] == pytest.approx(whole[key], rel=1e-12), key
    # Parts written before the deal intervals existed pool without them, not with a guess.
    old = [{k: v for k, v in part.items() if k not in DEAL_KEYS} for part in parts]
    assert all(pool_results(old)[key] is None for key in DEAL_KEYS)
