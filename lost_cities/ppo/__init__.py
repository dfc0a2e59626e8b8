"""PPO for Lost Cities (SPEC §6): components in sub-packages mirroring ``conf/``."""

from lost_cities.ppo.throughput import measure_throughput

__all__ = ["measure_throughput"]
