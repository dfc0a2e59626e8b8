"""Training rewards (``conf/reward/``): terminal ``tanh`` and PBRS ``shaped``."""
