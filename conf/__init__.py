"""The Hydra configs, shipped in the wheel as the package ``lost_cities.conf`` (see pyproject.toml).

``config.yaml`` and the group dirs beside it are the training job's; ``cli/`` holds the
other Hydra CLIs' configs. Hydra finds them as ``pkg://lost_cities.conf``.
"""
