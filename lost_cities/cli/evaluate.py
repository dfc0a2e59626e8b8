"""``python -m lost_cities.evaluate agent=... opponent=... env=match3 deals=10000 [baseline=...]``.

Duplicate evaluation on the fixed deal bank (see lost_cities.evaluation); prints the
results and writes them as JSON (``RESULTS_SCHEMA`` plus the run's settings). With a
``baseline`` agent, it plays the same games too and the two are compared deal by deal
(``COMPARISON_SCHEMA``).
"""

import json
import logging
import time
from pathlib import Path

import hydra
import jax
from hydra.core.hydra_config import HydraConfig
from tqdm import tqdm

from lost_cities import envs
from lost_cities.cli import CLI_CONF, remove_if_empty
from lost_cities.evaluation import compare, deal_bank, play_duplicate, resolve_policy, summarise


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


def format_report(results):
    """The summary line followed by the rest of the results, per round last."""
    r = results
    natural = "n/a" if r["natural_win_rate"] is None else f"{r['natural_win_rate']:.3f}"
    lines = [
        format_summary(r),
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


def quiet_libraries():
    """orbax logs every checkpoint operation at INFO through absl; loading an agent needs none of it."""
    logging.getLogger("absl").setLevel(logging.WARNING)


def whole_number(cfg, key, minimum=1):
    """``cfg[key]`` as an int >= ``minimum``, else a ValueError naming the key."""
    value = cfg[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        bound = "> 0" if minimum == 1 else f">= {minimum}"
        raise ValueError(f"{key}={value!r} must be a whole number {bound}")
    return value


def setup(cfg):
    """``(env, policy_a, policy_b, deck_orders, coins, key)`` from an evaluate-style config."""
    for key in ("deals", "batch_size"):
        whole_number(cfg, key)
    whole_number(cfg, "first_deal", minimum=0)  # a bank index
    env = envs.make(cfg.env)
    policy_a = resolve_policy(cfg.agent, env)
    policy_b = resolve_policy(cfg.opponent, env)
    deck_orders, coins = deal_bank(cfg.deals, cfg.bank, cfg.first_deal)
    return env, policy_a, policy_b, deck_orders, coins, jax.random.key(cfg.seed)


def settings(cfg):
    return {
        "agent": str(cfg.agent),
        "opponent": str(cfg.opponent),
        "bank": cfg.bank,
        "first_deal": cfg.first_deal,
        "seed": cfg.seed,
    }


def run(cfg):
    """Evaluate ``cfg.agent`` against ``cfg.opponent``; the results dict plus the settings
    used. A ``cfg.baseline`` agent plays the same games: its results go under ``baseline``
    and the deal-by-deal difference under ``versus_baseline``."""
    env, policy_a, policy_b, deck_orders, coins, key = setup(cfg)
    players = {"agent": policy_a}
    if cfg.baseline is not None:
        players["baseline"] = resolve_policy(cfg.baseline, env)  # before any game: a bad name fails early
    games, seconds = {}, {}
    with tqdm(total=cfg.deals * len(players), unit="deal", disable=not cfg.progress, leave=False) as bar:
        for name, policy in players.items():
            start = time.perf_counter()
            games[name] = play_duplicate(
                env, policy, policy_b, deck_orders, coins, key, cfg.batch_size, bar.update
            )
            seconds[name] = time.perf_counter() - start

    def entry(name, agent):
        summary = summarise(games[name], env.name)
        return {**summary, **settings(cfg), "agent": str(agent), "seconds": seconds[name]}

    results = entry("agent", cfg.agent)
    if "baseline" in games:
        results["baseline"] = entry("baseline", cfg.baseline)
        results["versus_baseline"] = compare(games["agent"], games["baseline"])
    return results


def write_results(results, cfg):
    """results.json in the Hydra run dir, and at ``cfg.out`` when given; returns the paths."""
    paths = [Path(HydraConfig.get().runtime.output_dir) / "results.json"]
    if cfg.out:
        paths.append(Path(cfg.out))
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=2, allow_nan=False) + "\n")
    return paths


def removing_empty_run_dir(app):
    """Run ``app(cfg)``; on failure remove the run dir Hydra made if the app left it empty."""
    import functools

    @functools.wraps(app)
    def wrapped(cfg):
        try:
            return app(cfg)
        except BaseException:
            remove_if_empty(HydraConfig.get().runtime.output_dir)
            raise

    return wrapped


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="evaluate")
@removing_empty_run_dir
def main(cfg):
    quiet_libraries()
    results = run(cfg)
    print(format_report(results))
    if "versus_baseline" in results:
        print(format_comparison(results))
    for path in write_results(results, cfg):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
