"""Gates: duplicate evaluations against fixed opponents with pass thresholds.

A gates config (``conf/gates/*.yaml``) holds the deal bank version, a batch size and
a mapping ``gates: {name: {opponent, deals, min: {metric: bound}, max: {metric: bound}}}``
where each metric is a key of the duplicate results (``RESULTS_SCHEMA``), e.g.
``min: {win_rate_lower: 0.55}`` (the Wilson lower bound must reach 0.55) or
``max: {max_steps_rate: 0.0}``. Training calls :func:`run_gates` every N updates and
writes what it returns; this module only computes.
"""

import zlib

import jax

from lost_cities.evaluation.deals import deal_bank
from lost_cities.evaluation.duplicate import duplicate_evaluate
from lost_cities.evaluation.policies import resolve_policy

_NUMERIC_KEYS = (
    "win_rate",
    "win_rate_lower",
    "win_rate_upper",
    "draw_rate",
    "margin_mean",
    "margin_lower",
    "margin_upper",
    "plies_per_round",
    "max_steps_rate",
    "natural_win_rate",
    "natural_win_rate_lower",
    "natural_win_rate_upper",
    "seat0_win_rate",
    "seat1_win_rate",
)


def check_gates_config(gates_cfg):
    """Fail before any game is played when a gate names an unknown metric or lacks a field."""
    if not gates_cfg.get("gates"):
        raise ValueError(
            "gates config needs a non-empty `gates:` mapping of name -> {opponent, deals, min/max}"
        )
    for name, gate in gates_cfg["gates"].items():
        for field in ("opponent", "deals"):
            if gate.get(field) is None:
                raise ValueError(f"gate {name!r} needs `{field}`")
        for bound in ("min", "max"):
            for metric in gate.get(bound) or {}:
                if metric not in _NUMERIC_KEYS:
                    raise ValueError(
                        f"gate {name!r}: unknown metric {metric!r} in `{bound}`; use one of {_NUMERIC_KEYS}"
                    )


def _passes(results, gate):
    checks = {}
    for bound, ok in (("min", lambda v, b: v >= b), ("max", lambda v, b: v <= b)):
        for metric, threshold in (gate.get(bound) or {}).items():
            value = results[metric]
            checks[f"{metric} {'>=' if bound == 'min' else '<='} {threshold}"] = value is not None and ok(
                value, threshold
            )
    return checks


def run_gates(env, policy, gates_cfg, key):
    """Evaluate ``policy`` against every gate; ``{gate name: results + opponent, checks, passed}``.

    Each gate's results are :func:`duplicate_evaluate`'s dict (policy as A) plus
    ``opponent`` (str), ``checks`` ({"metric >= bound": bool}) and ``passed`` (bool, all
    checks hold). The key for a gate depends only on ``key`` and the gate's name.
    """
    check_gates_config(gates_cfg)
    bank = gates_cfg.get("bank", "v1")
    batch_size = gates_cfg.get("batch_size", 500)
    out = {}
    for name, gate in gates_cfg["gates"].items():
        deck_orders, coins = deal_bank(gate["deals"], bank)
        opponent = resolve_policy(gate["opponent"], env)
        gate_key = jax.random.fold_in(key, zlib.crc32(name.encode()) & 0x7FFFFFFF)
        results = duplicate_evaluate(env, policy, opponent, deck_orders, coins, gate_key, batch_size)
        checks = _passes(results, gate)
        out[name] = {
            **results,
            "opponent": getattr(gate["opponent"], "__name__", str(gate["opponent"])),
            "checks": checks,
            "passed": all(checks.values()),
        }
    return out


def gate_metrics(gates, prefix="gates"):
    """Flat scalars of :func:`run_gates`'s result for metrics.jsonl and W&B summaries.

    ``{f"{prefix}/{gate}/{metric}": float}`` for every numeric metric (``None`` ones
    skipped) plus ``.../passed`` as 0/1 and ``f"{prefix}/passed"``, the fraction passed.
    A best-checkpoint rule names one of these keys, e.g. ``gates/heuristic_expert/win_rate_lower``.
    """
    flat = {}
    for name, result in gates.items():
        for metric in _NUMERIC_KEYS:
            if result.get(metric) is not None:
                flat[f"{prefix}/{name}/{metric}"] = float(result[metric])
        flat[f"{prefix}/{name}/passed"] = float(result["passed"])
    flat[f"{prefix}/passed"] = sum(float(r["passed"]) for r in gates.values()) / max(len(gates), 1)
    return flat
