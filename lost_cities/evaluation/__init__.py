"""Duplicate evaluation on fixed deal banks, gates, and the policy resolver shared by the CLIs."""

from lost_cities.evaluation.deals import bank_versions, deal_bank
from lost_cities.evaluation.duplicate import (
    RESULTS_SCHEMA,
    SCHEMA_VERSION,
    duplicate_evaluate,
    play_duplicate,
    summarise,
)
from lost_cities.evaluation.stats import mean_interval, wilson_interval

__all__ = [
    "RESULTS_SCHEMA",
    "SCHEMA_VERSION",
    "bank_versions",
    "deal_bank",
    "duplicate_evaluate",
    "mean_interval",
    "play_duplicate",
    "summarise",
    "wilson_interval",
]
