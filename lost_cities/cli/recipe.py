"""``python -m lost_cities.recipe``: a chain of runs (conf/cli/recipe.yaml),
:func:`lost_cities.training.recipe.run`."""

import hydra
from hydra.core.hydra_config import HydraConfig

from lost_cities.cli import CLI_CONF, reporting_input_errors
from lost_cities.training.recipe import run


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="recipe")
@reporting_input_errors
def main(cfg):
    run(cfg, HydraConfig.get().runtime.output_dir, list(HydraConfig.get().overrides.task))


if __name__ == "__main__":
    main()
