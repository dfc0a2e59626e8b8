"""``python -m lost_cities.improve``: the self-improvement loop (conf/improve.yaml),
:func:`lost_cities.improvement.loop.run`."""

import logging

import hydra

from lost_cities.cli import CONF, reporting_input_errors
from lost_cities.improvement.loop import run


@hydra.main(config_path=CONF, config_name="improve", version_base=None)
@reporting_input_errors
def main(cfg):
    logging.getLogger("absl").setLevel(logging.WARNING)  # orbax logs every checkpoint operation at INFO
    run(cfg)


if __name__ == "__main__":
    main()
