"""An evaluation's results as text: the summary line, the full report, a paired comparison."""


def _interval(low, high, digits):
    return "n/a" if low is None else f"[{low:.{digits}f}, {high:.{digits}f}]"


def format_summary(results):
    """One line: the numbers a tournament table needs."""
    r = results
    return (
        f"{r['agent']} vs {r['opponent']} ({r['env']}, {r['deals']} deals x 2 seats): "
        f"win rate {r['win_rate']:.3f} {_interval(r['win_rate_lower'], r['win_rate_upper'], 3)}, "
        f"margin {r['margin_mean']:+.2f} {_interval(r['margin_lower'], r['margin_upper'], 2)}, "
        f"{r['plies_per_round']:.1f} plies/round, max-steps rate {r['max_steps_rate']:.4f}"
    )


def format_deal_intervals(results):
    """The win rate's intervals over deals (the ones a claim uses) and the games' correlation;
    results pooled from parts written before these fields have none of them."""
    r = results
    if r.get("win_rate_deal_lower") is None and r.get("game_correlation") is None:
        return "  win rate over deals: n/a (no deal_scores in these results)"
    rho = "n/a" if r["game_correlation"] is None else f"{r['game_correlation']:+.3f}"
    return (
        f"  win rate over deals {_interval(r['win_rate_deal_lower'], r['win_rate_deal_upper'], 3)}, "
        f"bootstrap {_interval(r['win_rate_bootstrap_lower'], r['win_rate_bootstrap_upper'], 3)} "
        f"(the interval to claim; above: Wilson over games), a deal's two games correlate {rho}"
    )


def format_report(results):
    """The summary line followed by the rest of the results, per round last."""
    r = results
    natural = "n/a" if r["natural_win_rate"] is None else f"{r['natural_win_rate']:.3f}"
    lines = [
        format_summary(r),
        format_deal_intervals(r),
        f"  W/D/L {r['wins']}/{r['draws']}/{r['losses']}, draw rate {r['draw_rate']:.4f}",
        f"  as seat 0 {r['seat0_win_rate']:.3f}, as seat 1 {r['seat1_win_rate']:.3f}",
        f"  natural-end games {r['natural_games']}: win rate {natural} "
        f"{_interval(r['natural_win_rate_lower'], r['natural_win_rate_upper'], 3)}",
    ]
    for round_ in r["rounds"]:
        lines.append(
            f"  round {round_['round']}: margin {round_['margin_mean']:+.2f} "
            f"{_interval(round_['margin_lower'], round_['margin_upper'], 2)}, "
            f"{round_['plies_mean']:.1f} plies, max-steps rate {round_['max_steps_rate']:.4f}"
        )
    lines.append(f"  {r['seconds']:.1f} s")
    return "\n".join(lines)


def format_comparison(results):
    """The baseline's summary line and A's paired difference from it."""
    c = results["versus_baseline"]
    return (
        f"baseline: {format_summary(results['baseline'])}\n"
        f"{results['agent']} - {results['baseline']['agent']} over the same {c['deals']} deals: "
        f"score {c['score_diff']:+.4f} {_interval(c['score_diff_lower'], c['score_diff_upper'], 4)}, "
        f"margin {c['margin_diff']:+.2f} {_interval(c['margin_diff_lower'], c['margin_diff_upper'], 2)}"
    )


def _cell(stat):
    return f"{stat['mean']:.2f} [{stat['lower']:.2f}, {stat['upper']:.2f}]"


def format_probe(probe):
    lines = [
        f"{probe['agent']} vs {probe['opponent']}, round 3 from an injected carry, "
        f"started by {probe['starter']} ({probe['deals']} deals x 2 seats"
        f"{' x 2 starters' if probe['starter'] == 'both' else ''})",
        f"{'carry':>6}  {'win rate':<22}{'round-3 margin':<24}{'expeditions':<20}"
        f"{'handshakes':<20}pile draws",
    ]
    for row in probe["carries"]:
        win = f"{row['win_rate']:.3f} [{row['win_rate_lower']:.3f}, {row['win_rate_upper']:.3f}]"
        lines.append(
            f"{row['carry']:>+6}  {win:<22}{_cell(row['round3_margin']):<24}{_cell(row['expeditions']):<20}"
            f"{_cell(row['handshakes']):<20}{_cell(row['pile_draws'])}"
        )
    for name, t in probe["trends"].items():
        lines.append(
            f"{name}: {t['direction']}; monotonic {t['monotonic']}, within noise "
            f"{t['monotonic_within_noise']}; extremes separated {t['extremes_separated']}"
        )
    return "\n".join(lines)
