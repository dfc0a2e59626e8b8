"""Run loggers (``conf/logger/``): ``wandb`` (offline by default) or ``none``."""
