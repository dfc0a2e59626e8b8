"""``python -m lost_cities.tournament a=... b=... env=match3 deals=10000``.

The same run as ``lost_cities.evaluate`` (a is the agent, b the opponent), printed as one line.
"""

import hydra

from lost_cities.cli import CLI_CONF
from lost_cities.cli.evaluate import check_out, quiet_libraries, removing_empty_run_dir, write_results
from lost_cities.evaluation.matchup import run
from lost_cities.evaluation.report import format_summary


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="tournament")
@removing_empty_run_dir
def main(cfg):
    quiet_libraries()
    check_out(cfg)
    results = run(cfg)
    print(format_summary(results))
    write_results(results, cfg)


if __name__ == "__main__":
    main()
