"""One row of the search experiments' tables: a search preset (plus knob overrides) on top of
a base policy (default ``heuristic_expert``) against the same policy (or ``opponent``),
duplicate match3 on deal bank v1.

    python experiments/search-vs-net/run.py DEALS OUT.json [base=SPEC] [opponent=SPEC] [preset=NAME]
        [first_deal=N] [knob=value ...]

The same as ``python -m lost_cities.evaluate agent=search[/NAME]:SPEC opponent=SPEC
env=match3 deals=DEALS first_deal=N``, but it reads the presets from this checkout's
conf/search and takes knob overrides (worlds=24 ...).
"""

import json
import os
import sys
import time
from pathlib import Path

import jax

from lost_cities import envs
from lost_cities.evaluation import deal_bank, duplicate_evaluate, resolve_policy
from lost_cities.search.config import knob_overrides
from lost_cities.search.spec import resolve_search

PRESETS = Path(__file__).resolve().parents[2] / "conf" / "search"


def main():
    deals, out, *knobs = sys.argv[1:]
    overrides = knob_overrides(knobs)
    base = str(overrides.pop("base", "heuristic_expert"))
    opponent_spec = str(overrides.pop("opponent", base))
    spec = f"search/{overrides.pop('preset', 'default')}:{base}"
    first_deal = int(overrides.pop("first_deal", 0))  # > 0: deals apart from those settings were chosen on
    env = envs.make("match3")
    agent = resolve_search(spec, env, PRESETS, **overrides)
    opponent = resolve_policy(opponent_spec, env)
    deck_orders, coins = deal_bank(int(deals), first=first_deal)
    start = time.perf_counter()
    results = duplicate_evaluate(env, agent, opponent, deck_orders, coins, jax.random.key(0))
    seconds = time.perf_counter() - start
    row = {
        **results,
        "agent": spec,
        "opponent": opponent_spec,
        "first_deal": first_deal,
        "overrides": overrides,
        "seconds": seconds,
    }
    row["load_average"] = os.getloadavg()  # at the end: 1, 5 and 15 minutes
    Path(out).write_text(json.dumps(row, indent=2) + "\n")
    print(
        f"{overrides}: win {row['win_rate']:.3f} [{row['win_rate_lower']:.3f}, {row['win_rate_upper']:.3f}], "
        f"margin {row['margin_mean']:+.1f} [{row['margin_lower']:+.1f}, {row['margin_upper']:+.1f}], "
        f"max-steps {row['max_steps_rate']}, {seconds:.0f} s"
    )


if __name__ == "__main__":
    main()
