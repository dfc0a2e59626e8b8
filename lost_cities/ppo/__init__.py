"""PPO for Lost Cities (SPEC §6): components in sub-packages mirroring ``conf/``."""
