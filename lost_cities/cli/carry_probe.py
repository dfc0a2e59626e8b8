"""``python -m lost_cities.carry_probe agent=... opponent=... deals=1000``: the match3 carry probe.

See lost_cities.evaluation.carry; prints a table per carry and writes
``carry_probe.json`` to the run dir (and to ``out`` when set).
"""

import hydra

from lost_cities.cli import CLI_CONF
from lost_cities.cli.evaluate import check_out, quiet_libraries, removing_empty_run_dir, write_results
from lost_cities.evaluation.carry import carry_probe
from lost_cities.evaluation.matchup import settings, setup
from lost_cities.evaluation.report import format_probe


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="carry_probe")
@removing_empty_run_dir
def main(cfg):
    quiet_libraries()
    check_out(cfg)
    env, policy_a, policy_b, deck_orders, coins, key = setup(cfg)
    probe = carry_probe(
        env, policy_a, policy_b, deck_orders, coins, key, tuple(cfg.carries), cfg.batch_size, cfg.starter
    )
    probe = {**probe, **settings(cfg)}
    print(format_probe(probe))
    for path in write_results(probe, cfg, "carry_probe.json"):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
