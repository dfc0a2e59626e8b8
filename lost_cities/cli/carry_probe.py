"""``python -m lost_cities.carry_probe agent=... opponent=... deals=1000``: the match3 carry probe.

See lost_cities.evaluation.carry; prints a table per carry and writes
``carry_probe.json`` to the run dir (and to ``out`` when set).
"""

import json
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig

from lost_cities.cli import CLI_CONF
from lost_cities.cli.evaluate import quiet_libraries, removing_empty_run_dir, settings, setup
from lost_cities.evaluation.carry import carry_probe


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


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="carry_probe")
@removing_empty_run_dir
def main(cfg):
    quiet_libraries()
    env, policy_a, policy_b, deck_orders, coins, key = setup(cfg)
    probe = carry_probe(
        env, policy_a, policy_b, deck_orders, coins, key, tuple(cfg.carries), cfg.batch_size, cfg.starter
    )
    probe = {**probe, **settings(cfg)}
    print(format_probe(probe))
    paths = [
        Path(HydraConfig.get().runtime.output_dir) / "carry_probe.json",
        *([Path(cfg.out)] if cfg.out else []),
    ]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(probe, indent=2, allow_nan=False) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
