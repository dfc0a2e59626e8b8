"""Two agents against one opponent on the same deals, compared deal by deal.

    python experiments/strength/paired.py A B [opponent=heuristic_expert] [deals=10000] [first_deal=0] [...]

Each agent plays the duplicate evaluation of ``python -m lost_cities.evaluate``, set up by
its own code from its own defaults (the same deals, seats and policy key, so each side's
numbers are its evaluate result; the other settings are evaluate's). The per-deal
difference of A's and B's score (win 1, draw 1/2, loss 0) and margin gives paired
intervals. When the agents are close these are much tighter than two overlapping Wilson
intervals: the deal's luck is the same for both (session 10: one strong-teacher step against
the shipped xi6).
"""

import sys
from importlib import resources
from pathlib import Path

from omegaconf import OmegaConf

from lost_cities.cli.evaluate import setup
from lost_cities.evaluation.duplicate import play_duplicate, summarise
from lost_cities.evaluation.stats import game_scores, paired_interval


def main():
    a, b, *rest = sys.argv[1:]  # rest: evaluate's settings (opponent=, deals=, first_deal=, ...)
    defaults = OmegaConf.load(Path(str(resources.files("lost_cities.conf.cli"))) / "evaluate.yaml")
    games = {}
    for name in (a, b):
        cfg = OmegaConf.merge(defaults, OmegaConf.from_dotlist([f"agent={name}", *rest]))
        env, policy, opponent, deck_orders, coins, key = setup(cfg)
        games[name] = play_duplicate(env, policy, opponent, deck_orders, coins, key, cfg.batch_size)
        row = summarise(games[name], env.name)
        print(
            f"{name}: win {row['win_rate']:.3f} [{row['win_rate_lower']:.3f}, {row['win_rate_upper']:.3f}], "
            f"margin {row['margin_mean']:+.2f} [{row['margin_lower']:+.2f}, {row['margin_upper']:+.2f}]"
        )
    margin_a, margin_b = games[a]["margin_a"], games[b]["margin_a"]
    score = paired_interval(game_scores(margin_a) - game_scores(margin_b))
    margin = paired_interval(margin_a - margin_b)
    print(
        f"A - B against {cfg.opponent} over {len(deck_orders)} deals: score {score[0]:+.4f} "
        f"[{score[1]:+.4f}, {score[2]:+.4f}], margin {margin[0]:+.2f} [{margin[1]:+.2f}, {margin[2]:+.2f}]"
    )


if __name__ == "__main__":
    main()
