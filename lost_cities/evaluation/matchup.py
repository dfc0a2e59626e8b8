"""One evaluation between named players (``python -m lost_cities.evaluate``,
``tournament``, ``carry_probe``): the specs resolved for the env, the deals drawn from
the bank, the games played, the results with the settings that reproduce them."""

import time

import jax
from omegaconf import OmegaConf
from tqdm import tqdm

from lost_cities import envs
from lost_cities.evaluation.comparison import compare
from lost_cities.evaluation.deals import check_bank, deal_bank
from lost_cities.evaluation.duplicate import play_duplicate, summarise
from lost_cities.evaluation.provenance import relative
from lost_cities.policies import make_policy


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
    check_bank(cfg.deals, cfg.bank, cfg.first_deal)  # before any agent is loaded (a search's takes minutes)
    env = envs.make(cfg.env)
    policy_a = make_policy(cfg.agent, env, **search_knobs(cfg))
    policy_b = make_policy(cfg.opponent, env)
    deck_orders, coins = deal_bank(cfg.deals, cfg.bank, cfg.first_deal)
    return env, policy_a, policy_b, deck_orders, coins, jax.random.key(cfg.seed)


def search_knobs(cfg):
    """``cfg.search``: knob overrides for the agent's search (``agent=search...``)."""
    knobs = OmegaConf.select(cfg, "search", default=None)
    return {} if knobs is None else OmegaConf.to_container(knobs, resolve=True)


def settings(cfg):
    """What, besides the deals, makes these results: a pooled claim's parts must agree on it."""
    knobs = search_knobs(cfg)
    return {
        "agent": relative(cfg.agent),
        "opponent": relative(cfg.opponent),
        "bank": cfg.bank,
        "first_deal": cfg.first_deal,
        "seed": cfg.seed,
        **({"search": knobs} if knobs else {}),
    }


def run(cfg):
    """Evaluate ``cfg.agent`` against ``cfg.opponent``; the results dict plus the settings
    used. A ``cfg.baseline`` agent plays the same games: its results go under ``baseline``
    and the deal-by-deal difference under ``versus_baseline``."""
    env, policy_a, policy_b, deck_orders, coins, key = setup(cfg)
    players = {"agent": policy_a}
    if cfg.baseline is not None:
        players["baseline"] = make_policy(cfg.baseline, env)  # before any game: a bad name fails early
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
