"""Duplicate evaluation on fixed deal banks, its intervals and pooling, gates, the carry probe."""

from lost_cities.evaluation.comparison import COMPARISON_SCHEMA, compare
from lost_cities.evaluation.deals import bank_versions, deal_bank
from lost_cities.evaluation.duplicate import (
    RESULTS_SCHEMA,
    SCHEMA_VERSION,
    duplicate_evaluate,
    play_duplicate,
    summarise,
)
from lost_cities.evaluation.gates import check_gates_config, gate_metrics, run_gates
from lost_cities.evaluation.stats import mean_interval, wilson_interval

__all__ = [
    "COMPARISON_SCHEMA",
    "RESULTS_SCHEMA",
    "SCHEMA_VERSION",
    "bank_versions",
    "check_gates_config",
    "compare",
    "deal_bank",
    "duplicate_evaluate",
    "gate_metrics",
    "mean_interval",
    "play_duplicate",
    "run_gates",
    "summarise",
    "wilson_interval",
]
