"""Benchmarks: the engine's and the observations' throughput (``engine``), a PPO update's
(``training``), and what a search decision costs (``search``)."""
