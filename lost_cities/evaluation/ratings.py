"""Bradley-Terry ratings from pairwise duplicate results, on the Elo scale.

Each pair (a, b) contributes its games and a's score in them (wins + draws / 2). Player i has
a strength theta_i with P(i beats j) = 1 / (1 + exp(theta_j - theta_i)); the strengths are
the maximum of the likelihood over all pairs, with the anchor held at 0, and are reported as
``anchor_rating + theta * 400 / ln 10`` (Elo points: 200 points apart is a 0.76 expected score).

A player that wins (or loses) every game of every pair has no finite maximum, so each pair
also holds ``prior_games`` virtual games split evenly (a weak pull towards equal strength:
one virtual game against 100 real ones moves an unbeaten record from 1.0 to 0.995).

Intervals are the fit's: standard errors from the inverse of the likelihood's curvature
(observed Fisher information) at the maximum, relative to the anchor, and a normal 95%
interval from them. Games are treated as independent; the two games of a duplicate deal are
negatively correlated (each seat once), so the intervals err on the wide side.
"""

import math
from dataclasses import dataclass

import numpy as np

ELO_PER_NATURAL = 400.0 / math.log(10.0)  # Elo points per unit of log-odds
Z95 = 1.959963984540054


@dataclass(frozen=True)
class PairResult:
    """``games`` between ``a`` and ``b``, in which ``a`` scored ``score`` (wins + draws / 2)."""

    a: str
    b: str
    games: float
    score: float


def expected_score(rating_a, rating_b):
    """a's expected share of the points against b, from their Elo ratings."""
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / 400.0))


def _check(players, pairs, anchor, prior_games):
    if len(set(players)) != len(players):
        raise ValueError(f"players must be distinct: {list(players)}")
    if len(players) < 2:
        raise ValueError(f"ratings need at least two players, got {list(players)}")
    if anchor not in players:
        raise ValueError(f"anchor {anchor!r} is not one of the players {list(players)}")
    if not (prior_games >= 0 and math.isfinite(prior_games)):
        raise ValueError(f"prior_games={prior_games!r} must be a number >= 0")
    for pair in pairs:
        if pair.a not in players or pair.b not in players or pair.a == pair.b:
            raise ValueError(f"pair {pair.a!r} vs {pair.b!r}: both must be players, and different")
        if not (pair.games > 0 and 0 <= pair.score <= pair.games):
            raise ValueError(
                f"pair {pair.a!r} vs {pair.b!r}: score {pair.score} of {pair.games} games "
                "(games must be > 0 and 0 <= score <= games)"
            )
    # every player must be linked to the anchor by pairs, else its rating is not defined
    linked, frontier = {anchor}, [anchor]
    while frontier:
        player = frontier.pop()
        for pair in pairs:
            for x, y in ((pair.a, pair.b), (pair.b, pair.a)):
                if x == player and y not in linked:
                    linked.add(y)
                    frontier.append(y)
    unlinked = [p for p in players if p not in linked]
    if unlinked:
        raise ValueError(f"no chain of pairs links {unlinked} to the anchor {anchor!r}")


def _check_finite(players, scores, games):
    """The maximum is finite only if every player took points from, and gave points to, a
    chain reaching every other (the graph of "i scored against j" is strongly connected)."""
    took = scores > 0
    gave = (games - scores) > 0
    for graph in (took, gave):
        reached, frontier = {0}, [0]
        while frontier:
            i = frontier.pop()
            for j in np.flatnonzero(graph[i]):
                if int(j) not in reached:
                    reached.add(int(j))
                    frontier.append(int(j))
        if len(reached) < len(players):
            cut = [players[i] for i in range(len(players)) if i not in reached]
            raise ValueError(
                f"a rating is infinite: an unbeaten or winless record splits {cut} from the "
                "other players; set prior_games > 0"
            )


def fit(players, pairs, anchor, anchor_rating=1500.0, prior_games=1.0, max_steps=100):
    """``{player: {"rating", "se", "lower", "upper"}}`` (Elo points; see the module doc).

    ``pairs`` is a list of :class:`PairResult`; the same two players may appear in several
    (their games add up). Raises ValueError for bad input or a rating the results leave
    infinite (an unbeaten or winless player with ``prior_games=0``).
    """
    players = list(players)
    _check(players, pairs, anchor, prior_games)
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    games = np.zeros((n, n))  # games[i, j]: games between i and j (symmetric)
    scores = np.zeros((n, n))  # scores[i, j]: i's score against j
    for pair in pairs:
        i, j = index[pair.a], index[pair.b]
        games[i, j] += pair.games
        games[j, i] += pair.games
        scores[i, j] += pair.score
        scores[j, i] += pair.games - pair.score
    played = games > 0
    games = games + prior_games * played
    scores = scores + 0.5 * prior_games * played
    _check_finite(players, scores, games)
    free = np.array([p != anchor for p in players])

    theta = np.zeros(n)
    for _ in range(max_steps):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))  # p[i, j] = P(i beats j)
        gradient = np.sum(scores - games * p, axis=1)
        weight = games * p * (1.0 - p)
        hessian = np.diag(np.sum(weight, axis=1)) - weight  # the negative Hessian
        h = hessian[np.ix_(free, free)]
        step = np.linalg.solve(h, gradient[free])
        theta[free] += step
        if np.max(np.abs(step)) < 1e-10:
            break
    else:
        raise ValueError(f"the fit did not converge in {max_steps} Newton steps")

    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    weight = games * p * (1.0 - p)
    hessian = np.diag(np.sum(weight, axis=1)) - weight
    covariance = np.zeros((n, n))
    covariance[np.ix_(free, free)] = np.linalg.inv(hessian[np.ix_(free, free)])
    se = np.sqrt(np.diag(covariance)) * ELO_PER_NATURAL
    rating = anchor_rating + theta * ELO_PER_NATURAL
    return {
        player: {
            "rating": float(rating[i]),
            "se": float(se[i]),
            "lower": float(rating[i] - Z95 * se[i]),
            "upper": float(rating[i] + Z95 * se[i]),
        }
        for player, i in index.items()
    }


def pair_from_results(results):
    """A :class:`PairResult` from an evaluation's results (``agent`` is a, ``opponent`` b)."""
    return PairResult(
        a=str(results["agent"]),
        b=str(results["opponent"]),
        games=float(results["games"]),
        score=float(results["wins"]) + 0.5 * float(results["draws"]),
    )
