"""``python -m lost_cities.search_bench base=<policy> search=<preset> [search.<knob>=...]``:
the cost of a search decision (conf/cli/search_bench.yaml, :mod:`lost_cities.benchmarks.search`)."""

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import OmegaConf

from lost_cities.benchmarks.search import search_cost
from lost_cities.cli import CLI_CONF


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="search_bench")
def main(cfg):
    preset = HydraConfig.get().runtime.choices["search"]
    knobs = OmegaConf.to_container(cfg.search, resolve=True)
    for name, value in search_cost(cfg.base, preset, knobs, cfg.env, cfg.games, cfg.single).items():
        print(f"{name}={value}")


if __name__ == "__main__":
    main()
