"""``python -m lost_cities.pretrain``: a behaviour-cloned policy as a checkpoint
(conf/pretrain.yaml), :func:`lost_cities.training.pretrain.pretrain`."""

import logging

import hydra
from hydra.core.hydra_config import HydraConfig

from lost_cities.cli import CONF, reporting_input_errors
from lost_cities.training.pretrain import pretrain


@hydra.main(config_path=CONF, config_name="pretrain", version_base=None)
@reporting_input_errors
def main(cfg):
    logging.getLogger("absl").setLevel(logging.WARNING)  # orbax logs every checkpoint operation at INFO
    pretrain(cfg, HydraConfig.get().runtime.output_dir)


if __name__ == "__main__":
    main()
