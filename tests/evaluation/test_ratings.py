"""The Bradley-Terry fit (lost_cities/evaluation/ratings.py): it recovers known strengths from
synthetic results, its 95% intervals cover them about 95% of the time, the anchor holds, and bad
input is refused."""

import numpy as np
import pytest

from lost_cities.evaluation.ratings import (
    ELO_PER_NATURAL,
    PairResult,
    expected_score,
    fit,
    pair_from_results,
)

TRUE = {"weak": 900.0, "low": 1250.0, "mid": 1500.0, "good": 1620.0, "best": 1700.0}


def synthetic(rng, games, true=TRUE):
    """Every pair once, a's score drawn from the true expected score (draws count half)."""
    players = list(true)
    pairs = []
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            wins = rng.binomial(games, expected_score(true[a], true[b]))
            pairs.append(PairResult(a, b, games, float(wins)))
    return players, pairs


def test_a_fit_recovers_known_strengths():
    players, pairs = synthetic(np.random.default_rng(0), 20_000)
    ratings = fit(players, pairs, anchor="mid", prior_games=0)
    for player, rating in TRUE.items():
        got = ratings[player]
        assert got["lower"] <= rating <= got["upper"], (player, got)
        assert abs(got["rating"] - rating) < 15, (player, got)
    assert ratings["best"]["rating"] > ratings["good"]["rating"] > ratings["mid"]["rating"]


def test_the_intervals_cover_the_true_ratings_about_95_percent_of_the_time():
    rng = np.random.default_rng(1)
    covered = total = 0
    for _ in range(300):
        players, pairs = synthetic(rng, 300)
        ratings = fit(players, pairs, anchor="mid", prior_games=0)
        for player in players:
            if player == "mid":
                continue
            total += 1
            covered += ratings[player]["lower"] <= TRUE[player] <= ratings[player]["upper"]
    assert 0.92 <= covered / total <= 0.98, covered / total


def test_the_anchor_is_fixed_and_swapping_a_pair_changes_nothing():
    players, pairs = synthetic(np.random.default_rng(2), 500)
    ratings = fit(players, pairs, anchor="mid", anchor_rating=1500)
    assert ratings["mid"] == {"rating": 1500.0, "se": 0.0, "lower": 1500.0, "upper": 1500.0}
    swapped = [PairResult(p.b, p.a, p.games, p.games - p.score) for p in pairs]
    again = fit(players, swapped, anchor="mid", anchor_rating=1500)
    for player in players:
        assert again[player]["rating"] == pytest.approx(ratings[player]["rating"], abs=1e-6)
        assert again[player]["se"] == pytest.approx(ratings[player]["se"], abs=1e-6)
    moved = fit(players, pairs, anchor="mid", anchor_rating=2000)
    assert moved["best"]["rating"] - ratings["best"]["rating"] == pytest.approx(500)


def test_two_players_give_the_logit_of_the_score():
    ratings = fit(["a", "b"], [PairResult("a", "b", 400, 300)], anchor="b", prior_games=0)
    assert ratings["a"]["rating"] - 1500 == pytest.approx(np.log(3) * ELO_PER_NATURAL)
    # the binomial standard error of the log-odds: 1 / sqrt(n p (1 - p))
    assert ratings["a"]["se"] == pytest.approx(ELO_PER_NATURAL / np.sqrt(400 * 0.75 * 0.25))


def test_an_unbeaten_player_is_finite_only_with_the_prior():
    pairs = [PairResult("a", "b", 100, 100), PairResult("b", "c", 100, 60), PairResult("a", "c", 100, 100)]
    with pytest.raises(ValueError, match="infinite"):
        fit(["a", "b", "c"], pairs, anchor="b", prior_games=0)
    ratings = fit(["a", "b", "c"], pairs, anchor="b", prior_games=1)
    assert np.isfinite(ratings["a"]["rating"]) and ratings["a"]["rating"] > 1800


@pytest.mark.parametrize(
    ("players", "pairs", "anchor", "message"),
    [
        (["a", "b"], [PairResult("a", "b", 10, 5)], "z", "anchor 'z'"),
        (["a", "b"], [PairResult("a", "x", 10, 5)], "a", "both must be players"),
        (["a", "b"], [PairResult("a", "b", 10, 11)], "a", "score 11"),
        (["a", "b"], [PairResult("a", "b", 0, 0)], "a", "games must be > 0"),
        (["a", "b", "c"], [PairResult("a", "b", 10, 5)], "a", r"links \['c'\]"),
        (["a", "a"], [], "a", "distinct"),
    ],
)
def test_bad_input_is_refused_naming_it(players, pairs, anchor, message):
    with pytest.raises(ValueError, match=message):
        fit(players, pairs, anchor=anchor)


def test_a_pair_from_an_evaluations_results_counts_draws_as_half():
    results = {"agent": "x", "opponent": "y", "games": 10, "wins": 6, "draws": 2, "losses": 2}
    assert pair_from_results(results) == PairResult("x", "y", 10.0, 7.0)
