"""Duplicate evaluation on fixed deal banks, gates, and the policy resolver shared by the CLIs."""

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
from lost_cities.evaluation.policies import current_round_only, resolve_policy
from lost_cities.evaluation.stats import mean_interval, wilson_interval

__all__ = [
    "COMPARISON_SCHEMA",
    "RESULTS_SCHEMA",
    "SCHEMA_VERSION",
    "bank_versions",
    "check_gates_config",
    "compare",
    "current_round_only",
    "deal_bank",
    "duplicate_evaluate",
    "gate_metrics",
    "mean_interval",
    "play_duplicate",
    "resolve_policy",
    "run_gates",
    "summarise",
    "wilson_interval",
]
