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


# A deal's score: the mean of its two games' scores (win 1, draw 1/2, loss 0), one of these.
DEAL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 0


def deal_score_counts(per_game_scores):
    """How many deals scored each of :data:`DEAL_SCORES` (games ordered ``[deal, seat]``).
    The counts are all a deal-level statistic of the win rate needs, so parts pool exactly."""
    per_deal = np.asarray(per_game_scores, np.float64).reshape(-1, 2).mean(axis=1)
    return [int(c) for c in np.bincount(np.rint(per_deal * 4).astype(int), minlength=DEAL_SCORES.size)]


def deal_interval(counts, z=Z95):
    """``(low, high)``: the normal interval of the win rate over the deals (each deal's score
    the mean of its two games: the deals are the independent units); ``(None, None)``
    with fewer than two deals."""
    counts = np.asarray(counts, np.float64)
    n = counts.sum()
    if n < 2:
        return None, None
    mean = counts @ DEAL_SCORES / n
    sd = math.sqrt(max(counts @ (DEAL_SCORES - mean) ** 2 / (n - 1), 0.0))
    half = z * sd / math.sqrt(n)
    return float(mean - half), float(mean + half)


def bootstrap_interval(counts, resamples=BOOTSTRAP_RESAMPLES, seed=BOOTSTRAP_SEED):
    """``(low, high)``: the 95% percentile bootstrap of the win rate over the deals. Resampling
    ``n`` deals with replacement draws how many of each deal score it takes: a multinomial
    over :data:`DEAL_SCORES` (the same distribution, a few microseconds a resample).
    Fixed seed: the same counts give the same interval, pooled or not."""
    counts = np.asarray(counts, np.int64)
    n = int(counts.sum())
    if n < 2:
        return None, None
    drawn = np.random.default_rng(seed).multinomial(n, counts / n, size=resamples)
    means = drawn @ DEAL_SCORES / n
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def game_correlation(counts, wins, draws, seat0_rate, seat1_rate):
    """The correlation of a deal's two game scores, ``2 cov / (var_0 + var_1)`` over the deals
    (Pearson's, with the two seats' variances pooled), or None where the games do not vary.

    It sets how far the Wilson interval (games independent) is off: the deal score's
    variance is ``(var_0 + var_1) / 4 * (1 + correlation)``, so the interval over deals is
    about ``sqrt(1 + correlation)`` times the Wilson's width (exactly so without draws and
    with equal seats). From summaries only: the games' variance from wins and draws, the
    seats' means, the deals' from ``counts``."""
    counts = np.asarray(counts, np.float64)
    n = counts.sum()
    if n < 1:
        return None
    deal_mean = counts @ DEAL_SCORES / n
    deal_var = counts @ (DEAL_SCORES - deal_mean) ** 2 / n
    game_var = (wins + draws / 4) / (2 * n) - ((wins + draws / 2) / (2 * n)) ** 2
    seats_var = 2 * game_var - (seat0_rate - seat1_rate) ** 2 / 2  # var_0 + var_1
    if seats_var <= 1e-12:
        return None
    return float(4 * deal_var / seats_var - 1)


def deal_intervals(counts, wins, draws, seat0_rate, seat1_rate):
    """The deal-level fields of a result (``Results``' ``win_rate_deal_*``,
    ``win_rate_bootstrap_*``, ``game_correlation``, ``deal_scores``) from its summaries:
    one function for an evaluation and for pooled parts, so the two agree exactly."""
    deal_lower, deal_upper = deal_interval(counts)
    boot_lower, boot_upper = bootstrap_interval(counts)
    return {
        "win_rate_deal_lower": deal_lower,
        "win_rate_deal_upper": deal_upper,
        "win_rate_bootstrap_lower": boot_lower,
        "win_rate_bootstrap_upper": boot_upper,
        "game_correlation": game_correlation(counts, wins, draws, seat0_rate, seat1_rate),
        "deal_scores": [int(c) for c in counts],
    }
