"""Two agents against one opponent on the same deals, compared deal by deal.

Both agents play :func:`~lost_cities.evaluation.duplicate.play_duplicate` with the same
deals, seats and key, so a deal's luck is shared; the per-deal difference of their scores
and margins then has a far tighter interval than two separate Wilson intervals
(experiments/expert-iteration/: a step worth a point a match showed only in the paired
interval). ``python -m lost_cities.evaluate agent=A baseline=B`` reports it.
"""

import inspect
from typing import TypedDict

import numpy as np

from lost_cities.evaluation.stats import game_scores, paired_interval


class Comparison(TypedDict):
    """A minus its baseline B on the same games (``versus_baseline`` of ``lost_cities.evaluate``).

    - ``deals`` int: the deals both played (two games each, seats swapped).
    - ``score_diff`` float: A's mean game score (win 1, draw 1/2, loss 0) minus B's, the
      difference of their win rates, with ``score_diff_lower`` / ``score_diff_upper``: a
      normal 95% interval over the per-deal differences (the deals are the independent
      units); ``None`` with fewer than two deals.
    - ``margin_diff`` float: A's mean final margin minus B's, in points, with
      ``margin_diff_lower`` / ``margin_diff_upper`` as above.
    """

    deals: int
    score_diff: float
    score_diff_lower: float | None
    score_diff_upper: float | None
    margin_diff: float
    margin_diff_lower: float | None
    margin_diff_upper: float | None


COMPARISON_SCHEMA = inspect.cleandoc(Comparison.__doc__)


def compare(games_a, games_b) -> Comparison:
    """A's games against B's, from two :func:`play_duplicate` results on the same deals and key."""
    margin_a = np.asarray(games_a["margin_a"], np.float64)
    margin_b = np.asarray(games_b["margin_a"], np.float64)
    if margin_a.shape != margin_b.shape:
        raise ValueError(
            f"the two evaluations played {margin_a.size} and {margin_b.size} games: "
            "a comparison needs the same deals"
        )
    score = paired_interval(game_scores(margin_a) - game_scores(margin_b))
    return comparison(margin_a.size // 2, score, paired_interval(margin_a - margin_b))


def comparison(deals, score, margin) -> Comparison:
    """A :class:`Comparison` of ``deals`` from its score and margin ``(mean, lower, upper)``."""
    (score, score_lower, score_upper), (margin, margin_lower, margin_upper) = score, margin
    return {
        "deals": deals,
        "score_diff": score,
        "score_diff_lower": score_lower,
        "score_diff_upper": score_upper,
        "margin_diff": margin,
        "margin_diff_lower": margin_lower,
        "margin_diff_upper": margin_upper,
    }
