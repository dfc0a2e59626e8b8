"""Confidence intervals for evaluation results (plain numpy: a few lines, no statsmodels dependency)."""

import math

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes, n, z=Z95):
    """Wilson score interval for a binomial proportion; ``successes`` may be fractional (draws count half).

    Returns ``(low, high)``; ``(0.0, 1.0)`` when ``n == 0`` (nothing is known).
    """
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0))
    return max(min(centre - half, p), 0.0), min(max(centre + half, p), 1.0)  # exact at p = 0 or 1


def mean_interval(values, z=Z95):
    """Mean and its normal-approximation interval ``(mean, low, high)`` over iid ``values``.

    With fewer than two values the spread is unknown and the interval is ``None``.
    """
    values = np.asarray(values, np.float64)
    mean = float(values.mean())
    if values.size < 2:
        return mean, None, None
    half = z * float(values.std(ddof=1)) / math.sqrt(values.size)
    return mean, mean - half, mean + half


def game_scores(margin):
    """Per game, A's score from its final ``margin``: 1 a win, 0.5 a draw, 0 a loss."""
    return (margin > 0) + 0.5 * (margin == 0)


def paired_interval(per_game, games_per_deal=2):
    """``mean_interval`` over per-deal means of games ordered ``[deal, ...]``: the games of
    a deal (its two seats, by default) are not independent, the deals are the iid units."""
    per_deal = np.asarray(per_game, np.float64).reshape(-1, games_per_deal).mean(axis=1)
    return mean_interval(per_deal)
