"""PPO for Lost Cities (SPEC §6): components in sub-packages mirroring ``conf/``.

Importing the package registers the config schemas with Hydra's ConfigStore, so
``hydra.compose("config")`` works after ``import lost_cities.ppo``.
"""

from lost_cities.ppo import config
from lost_cities.ppo.throughput import measure_throughput

__all__ = ["config", "measure_throughput"]
