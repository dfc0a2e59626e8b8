"""``python -m lost_cities.search_bench base=<policy> search=<preset> [search.<knob>=...]``:
the cost of a search decision (conf/cli/search_bench.yaml, :mod:`lost_cities.benchmarks.search`)."""

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import OmegaConf

from lost_cities.benchmarks.search import search_cost
from lost_cities.cli import CLI_CONF, reporting_input_errors


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="search_bench")
@reporting_input_errors
def main(cfg):
    for key, least in (("games", 1), ("single", 0)):
        value = cfg[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{key}={value!r} must be a whole number >= {least}")
    preset = HydraConfig.get().runtime.choices["search"]
    knobs = OmegaConf.to_container(cfg.search, resolve=True)
    for name, value in search_cost(cfg.base, preset, knobs, cfg.env, cfg.games, cfg.single).items():
        print(f"{name}={value}")


if __name__ == "__main__":
    main()
