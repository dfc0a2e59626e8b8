"""One agent's evaluations on disjoint ranges of the deal bank, pooled into one result.

A strength claim is 10,000 deals; a search agent plays 500 in half an hour on a 2-core CPU,
so its claim is made in parts (``first_deal=0, 500, ...``) over several runs. Pooling
the parts' results by hand (averaging their win rates, guessing a margin interval) is where
such a claim goes wrong, so :func:`pool_results` does it from the summaries alone and
exactly: every field is what :func:`~lost_cities.evaluation.duplicate.summarise` gives for
the union of the parts' games. Counts add; rates and means are weighted by their games;
the Wilson interval is recomputed from the pooled counts; a mean's interval is rebuilt from
each part's deal count, mean and interval (the interval's half-width gives the part's
standard deviation, and the law of total variance the pooled one). The win rate's deal
interval, bootstrap and the games' correlation are recomputed from the added
``deal_scores`` counts (``stats.deal_intervals``, as the evaluation computes them); parts
written before those fields existed pool with them ``None``.

A part is checked before anything is pooled, and an error names its file: a number that
is not finite (NaN, inf), counts that do not add up (wins, draws and losses to the games,
the games to twice the deals, ``deal_scores`` to the deals), another claim's settings or
an overlapping deal range.

Each part plays its deals with keys derived from its own deal index (``first_deal=2500``
gives deal 2500 the key deal 0 gets in a run from 0), so a stochastic agent's games in a
pooled claim are not those of one run over all the deals: the same agent, other dice.
"""

import itertools
import math
import numbers

from lost_cities.evaluation.comparison import comparison
from lost_cities.evaluation.duplicate import SCHEMA_VERSION, Results
from lost_cities.evaluation.stats import Z95, deal_intervals, wilson_interval

# Rates over each part's games (or rounds), all parts with as many games (rounds) a deal.
PER_GAME_RATES = (
    "plies_per_round",
    "max_steps_rate",
    "pile_draws_per_round_a",
    "pile_draws_per_round_b",
    "seat0_win_rate",
    "seat1_win_rate",
)
# What makes parts one claim: they must agree on each of these they carry (run.py's
# results have ``overrides`` and no ``bank`` or ``seed``; the CLIs' the other way round).
IDENTITY_KEYS = ("schema_version", "env", "agent", "opponent", "bank", "seed", "search", "overrides")
# The fields computed from ``deal_scores``: None in a pool of parts written without them.
DEAL_KEYS = (
    "win_rate_deal_lower",
    "win_rate_deal_upper",
    "win_rate_bootstrap_lower",
    "win_rate_bootstrap_upper",
    "game_correlation",
    "deal_scores",
)


def pool_results(parts, names=None) -> Results:
    """The result of all ``parts`` (results dicts of ``lost_cities.evaluate``, each with
    ``first_deal``) as one evaluation of their deals; ``names`` (their files) name a bad
    part in the error.

    The parts must be one agent against one opponent (``IDENTITY_KEYS``) on disjoint deal
    ranges; a ``baseline`` and ``versus_baseline`` pool too when every part has them. The
    result adds ``parts`` (each part's ``first_deal`` and ``deals``, in bank order) and the
    sum of the parts' ``seconds``; keys it does not know are left out.
    """
    if not parts:
        raise ValueError("nothing to pool: give at least one results file")
    names = [f"part {i + 1}" for i in range(len(parts))] if names is None else [str(n) for n in names]
    for part, name in zip(parts, names, strict=True):
        check_part(part, name)
    order = sorted(range(len(parts)), key=lambda i: _first_deal(parts[i]))
    parts, names = [parts[i] for i in order], [names[i] for i in order]
    _check_one_claim(parts, names)
    pooled = {key: parts[0][key] for key in IDENTITY_KEYS if key in parts[0]}
    pooled.update(_pool_summaries(parts))
    pooled["first_deal"] = _first_deal(parts[0])
    pooled["parts"] = [{"first_deal": _first_deal(part), "deals": part["deals"]} for part in parts]
    if any("seconds" in part for part in parts):
        pooled["seconds"] = sum(part.get("seconds", 0.0) for part in parts)
    with_baseline = ["baseline" in part for part in parts]
    if any(with_baseline):
        if not all(with_baseline):
            raise ValueError("some parts compare against a baseline and others do not: pool them apart")
        baselines = [part["baseline"] for part in parts]
        pooled["baseline"] = _pool_summaries(baselines)
        agents = [baseline.get("agent") for baseline in baselines]
        pooled["baseline"]["agent"] = _same(agents, "baseline agent", names)
        pooled["versus_baseline"] = _pool_comparisons([part["versus_baseline"] for part in parts])
    return pooled


def _first_deal(part):
    if "first_deal" not in part:
        raise ValueError("a part without first_deal: its deals are unknown, so it cannot be pooled")
    return int(part["first_deal"])


def _non_finite(value, where=""):
    """The first key path under ``value`` holding a number that is not finite, or None."""
    if isinstance(value, dict):
        found = (_non_finite(v, f"{where}.{k}" if where else str(k)) for k, v in value.items())
    elif isinstance(value, list):
        found = (_non_finite(v, f"{where}[{i}]") for i, v in enumerate(value))
    else:
        is_bad = isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isfinite(value)
        return f"{where}={value}" if is_bad else None
    return next((bad for bad in found if bad is not None), None)


def check_part(part, name):
    """``part`` is one evaluation's finite, self-consistent results; else a ValueError naming ``name``."""
    if not isinstance(part, dict):
        raise ValueError(f"{name}: not an evaluation's results (a JSON object)")
    missing = [key for key in ("schema_version", "env", "deals", "agent", "opponent") if key not in part]
    if missing:
        raise ValueError(f"{name}: not an evaluation's results (no {', '.join(missing)})")
    bad = _non_finite(part)
    if bad is not None:
        raise ValueError(f"{name}: {bad} is not a finite number; a result with it cannot be pooled")
    _first_deal(part, name)
    for summary, where in ((part, ""), (part.get("baseline"), "baseline.")):
        if summary is None:
            continue
        deals, games = summary.get("deals"), summary.get("games")
        counts = [summary.get(key) for key in ("wins", "draws", "losses")]
        if not all(isinstance(c, int) and c >= 0 for c in (deals, games, *counts)):
            raise ValueError(f"{name}: {where}deals, games, wins, draws and losses must be counts >= 0")
        if games != 2 * deals or sum(counts) != games:
            raise ValueError(
                f"{name}: {where}{deals} deals, {games} games and {'/'.join(map(str, counts))} W/D/L do not "
                "add up (two games a deal; every game a win, draw or loss)"
            )
        scores = summary.get("deal_scores")
        if scores is not None and sum(scores) != deals:
            raise ValueError(f"{name}: {where}deal_scores counts {sum(scores)} deals, not its {deals}")


def _first_deal(part, name="a part"):
    first = part.get("first_deal")
    if first is None:
        raise ValueError(f"{name}: no first_deal: its deals are unknown, so it cannot be pooled")
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise ValueError(f"{name}: first_deal={first!r} is not a deal bank index (a whole number >= 0)")
    return first


def _check_one_claim(parts, names):
    if parts[0]["schema_version"] != SCHEMA_VERSION:
        version = parts[0]["schema_version"]
        raise ValueError(f"{names[0]}: results schema_version {version}: this code pools {SCHEMA_VERSION}")
    for key in IDENTITY_KEYS:
        _same([part.get(key) for part in parts], key, names)
    for (before, name_before), (after, name_after) in itertools.pairwise(zip(parts, names, strict=True)):
        end = _first_deal(before) + before["deals"]
        if _first_deal(after) < end:
            raise ValueError(
                f"deals {_first_deal(before)}-{end - 1} ({name_before}) and {_first_deal(after)}-"
                f"{_first_deal(after) + after['deals'] - 1} ({name_after}) overlap: a deal may count once"
            )


def _same(values, key, names):
    if any(value != values[0] for value in values):
        shown = ", ".join(f"{value!r} ({name})" for value, name in zip(values, names, strict=True))
        raise ValueError(f"the parts differ in {key}: {shown}; they are not one claim")
    return values[0]


def _pool_summaries(parts):
    """``summarise``'s fields for the union of the parts' games."""
    games = sum(part["games"] for part in parts)
    wins, draws, losses = (sum(part[key] for part in parts) for key in ("wins", "draws", "losses"))
    natural_games = sum(part["natural_games"] for part in parts)
    # a rate's successes (wins plus half the draws) back from the rate
    natural_score = sum(
        part["natural_win_rate"] * part["natural_games"] for part in parts if part["natural_games"]
    )
    deals = [part["deals"] for part in parts]
    n_rounds = len(parts[0]["rounds"])
    if any(len(part["rounds"]) != n_rounds for part in parts):
        raise ValueError("the parts play different numbers of rounds: they are not one env")
    rounds = []
    for r in range(n_rounds):
        per_round = [part["rounds"][r] for part in parts]
        mean, lower, upper = _pool_mean(deals, per_round, "margin")
        rounds.append(
            {
                "round": r + 1,
                "margin_mean": mean,
                "margin_lower": lower,
                "margin_upper": upper,
                "plies_mean": _weighted([p["plies_mean"] for p in per_round], deals),
                "max_steps_rate": _weighted([p["max_steps_rate"] for p in per_round], deals),
            }
        )
    win_lower, win_upper = wilson_interval(wins + draws / 2, games)
    natural_lower, natural_upper = wilson_interval(natural_score, natural_games)
    margin_mean, margin_lower, margin_upper = _pool_mean(deals, parts, "margin")
    seat0, seat1 = (
        _weighted([part[key] for part in parts], deals) for key in ("seat0_win_rate", "seat1_win_rate")
    )
    if all(part.get("deal_scores") is not None for part in parts):
        counts = [sum(column) for column in zip(*(part["deal_scores"] for part in parts), strict=True)]
        deal = deal_intervals(counts, wins, draws, seat0, seat1)
    else:  # parts written before the deal intervals existed
        deal = dict.fromkeys(DEAL_KEYS)
    pooled = {
        "schema_version": parts[0]["schema_version"],
        "env": parts[0]["env"],
        "deals": sum(deals),
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": (wins + draws / 2) / games,
        "win_rate_lower": win_lower,
        "win_rate_upper": win_upper,
        **deal,
        "draw_rate": draws / games,
        "margin_mean": margin_mean,
        "margin_lower": margin_lower,
        "margin_upper": margin_upper,
        **{key: _weighted([part[key] for part in parts], deals) for key in PER_GAME_RATES},
        "max_steps_games": sum(part["max_steps_games"] for part in parts),
        "natural_games": natural_games,
        "natural_win_rate": natural_score / natural_games if natural_games else None,
        "natural_win_rate_lower": natural_lower,
        "natural_win_rate_upper": natural_upper,
        "rounds": rounds,
    }
    return {key: pooled[key] for key in Results.__annotations__}  # in summarise's order


def _pool_comparisons(parts):
    deals = [part["deals"] for part in parts]
    score = _pool_mean(deals, parts, "score_diff", mean_suffix="")
    return comparison(sum(deals), score, _pool_mean(deals, parts, "margin_diff", mean_suffix=""))


def _weighted(values, weights):
    return sum(value * weight for value, weight in zip(values, weights, strict=True)) / sum(weights)


def _pool_mean(counts, parts, name, mean_suffix="_mean"):
    """``mean_interval`` over the union of per-deal values, from each part's deal count, mean
    and interval (``None`` for a part of one deal, whose spread is then zero)."""
    means = [part[name + mean_suffix] for part in parts]
    total = sum(counts)
    mean = _weighted(means, counts)
    if total < 2:
        return mean, None, None
    squares = 0.0  # sum of squared deviations from the pooled mean
    for count, part_mean, part in zip(counts, means, parts, strict=True):
        lower, upper = part[name + "_lower"], part[name + "_upper"]
        if count > 1:
            if lower is None:
                raise ValueError(f"a part of {count} deals has no {name} interval: not summarise's output")
            part_sd = (upper - lower) / 2 / Z95 * math.sqrt(count)
            squares += (count - 1) * part_sd**2
        squares += count * (part_mean - mean) ** 2
    half = Z95 * math.sqrt(squares / (total - 1)) / math.sqrt(total)
    return mean, mean - half, mean + half
