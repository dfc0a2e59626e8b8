"""One row of the search experiments' tables: a search preset (plus knob overrides) on top of
a base policy (default ``heuristic_expert``) against the same policy (or ``opponent``),
duplicate match3 on deal bank v1.

    python experiments/search-vs-net/run.py DEALS OUT.json [base=SPEC] [opponent=SPEC] [preset=NAME]
        [first_deal=N] [knob=value ...]

The same evaluation as ``python -m lost_cities.evaluate agent=search/NAME:SPEC opponent=SPEC
deals=DEALS first_deal=N +search.knob=value ... out=OUT.json`` (it calls
:func:`lost_cities.evaluation.matchup.run` with that config, progress bar off), run in this
process so that oracle.py and value_leaf.py can replace a function of the search first. The
results are this script's as before, so that they pool with its earlier parts
(``python -m lost_cities.pool_results``): the evaluation's, without ``bank``, ``seed`` and
``search``, plus ``overrides`` (the knobs; ``{}`` for none), ``load_average`` (1, 5 and 15
minutes, at the end) and ``provenance`` (the command as typed, oracle.py's when it runs this).
"""

import json
import os
import sys
from pathlib import Path

from omegaconf import OmegaConf

from lost_cities.evaluation.matchup import run
from lost_cities.evaluation.provenance import provenance
from lost_cities.search.config import knob_overrides


def evaluate_config(deals, base, opponent, preset, first_deal, knobs):
    """The config of ``python -m lost_cities.evaluate`` (conf/cli/evaluate.yaml) for this row."""
    return OmegaConf.create(
        {
            "agent": f"search/{preset}:{base}",
            "opponent": opponent,
            "baseline": None,
            "env": "match3",
            "deals": deals,
            "bank": "v1",
            "first_deal": first_deal,
            "seed": 0,
            "search": knobs,
            "batch_size": 1000,
            "progress": False,
        }
    )


def main():
    deals, out, *knobs = sys.argv[1:]
    overrides = knob_overrides(knobs)
    base = str(overrides.pop("base", "heuristic_expert"))
    opponent = str(overrides.pop("opponent", base))
    preset = overrides.pop("preset", "default")
    first_deal = int(overrides.pop("first_deal", 0))  # > 0: deals apart from those settings were chosen on
    cfg = evaluate_config(int(deals), base, opponent, preset, first_deal, overrides)
    results = run(cfg)
    # The keys of this script's earlier rows, so that a new part pools with the parts on disk
    # (lost_cities.pool_results compares bank, seed and search where a part has them): the
    # bank (v1) and seed (0) are fixed here, and the knobs are under overrides.
    row = {key: value for key, value in results.items() if key not in ("bank", "seed", "search")}
    row.update(overrides=overrides, load_average=os.getloadavg())
    # sys.orig_argv: the command as typed, also when oracle.py or value_leaf.py runs this
    row["provenance"] = provenance(["python", *sys.orig_argv[1:]])
    Path(out).write_text(json.dumps(row, indent=2) + "\n")
    print(
        f"{overrides}: win {row['win_rate']:.3f} [{row['win_rate_lower']:.3f}, {row['win_rate_upper']:.3f}], "
        f"margin {row['margin_mean']:+.1f} [{row['margin_lower']:+.1f}, {row['margin_upper']:+.1f}], "
        f"max-steps {row['max_steps_rate']}, {row['seconds']:.0f} s"
    )


if __name__ == "__main__":
    main()
