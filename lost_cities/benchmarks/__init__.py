"""Benchmarks (``python -m lost_cities.bench``): the engine's and the observations' throughput
(``engine``), the action features' (``features``), a PPO update's (``training``), a cloning
update's (``learning``), what a search decision costs (``search``), and where the time goes
(``profile``)."""
