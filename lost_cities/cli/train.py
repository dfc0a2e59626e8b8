"""``python -m lost_cities.train``: the main job (conf/config.yaml), :func:`lost_cities.training.loop.run`."""

import logging

import hydra
from hydra.core.hydra_config import HydraConfig

from lost_cities.cli import CONF, reporting_input_errors
from lost_cities.training.loop import run


@hydra.main(config_path=CONF, config_name="config", version_base=None)
@reporting_input_errors
def main(cfg):
    logging.getLogger("absl").setLevel(logging.WARNING)  # orbax logs every manager operation at INFO
    return run(cfg, HydraConfig.get().runtime.output_dir)


if __name__ == "__main__":
    main()
