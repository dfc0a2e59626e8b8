"""PPO for Lost Cities (docs/design.md): components in sub-packages mirroring ``conf/``.

Importing the package registers the config schemas with Hydra's ConfigStore, so
``hydra.compose("config")`` works after ``import lost_cities.ppo``.
"""

from lost_cities.ppo import config

__all__ = ["config"]
