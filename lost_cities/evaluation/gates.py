"""Gates: duplicate evaluations against fixed opponents with pass thresholds.

A gates config (``conf/gates/*.yaml``, schema :class:`GatesConfig`) holds the deal bank
version, a batch size, how often training gates, and a mapping ``gates: {name:
{opponent, deals, min: {metric: bound}, max: {metric: bound}}}`` where each metric is
one of ``RESULT_METRICS`` (the float fields of the duplicate results, ``Results``), e.g.
``min: {win_rate_lower: 0.55}`` (the Wilson lower bound must reach 0.55) or
``max: {max_steps_rate: 0.0}``. Training calls :func:`run_gates` every
``every_updates`` updates and writes what it returns; this module only computes.

A gate's fields can be overridden on the command line (``gates.gates.random.deals=400``);
a new gate goes in a yaml (a ``conf/gates/`` option or an experiment), since OmegaConf
builds no typed :class:`GateConfig` from a command-line dict.
"""

import zlib
from dataclasses import dataclass, field

import jax
from omegaconf import MISSING, DictConfig, OmegaConf

from lost_cities.evaluation.deals import bank_versions, deal_bank
from lost_cities.evaluation.duplicate import RESULT_METRICS, duplicate_evaluate
from lost_cities.policies import make_policy


def _require(condition, message):
    if not condition:
        raise ValueError(message)


def _set(value):
    return value is not None and value != MISSING


@dataclass
class GateConfig:
    """One gate: ``opponent`` (a bot name, checkpoint dir or ``.onnx``; a policy when called
    from Python) on the first ``deals`` deals; every bound in ``min`` / ``max`` must hold.
    Checked by :class:`GatesConfig`, which knows the gate's name."""

    opponent: str = MISSING
    deals: int = MISSING
    min: dict[str, float] = field(default_factory=dict)  # no bounds unless given
    max: dict[str, float] = field(default_factory=dict)


@dataclass
class GatesConfig:
    """The ``gates`` group. ``every_updates`` (0: only at the last update) is training's;
    :func:`run_gates` does not need it."""

    every_updates: int = MISSING
    bank: str = MISSING
    batch_size: int = MISSING
    gates: dict[str, GateConfig] = MISSING

    def __post_init__(self):
        _require(
            _set(self.gates) and len(self.gates) > 0,
            "gates config needs a non-empty `gates:` mapping of name -> {opponent, deals, min/max}",
        )
        for name, gate in self.gates.items():
            for key in ("opponent", "deals"):
                _require(_set(getattr(gate, key)), f"gate {name!r} needs `{key}`")
            _require(gate.deals > 0, f"gate {name!r}: deals must be > 0 (got {gate.deals})")
            for bound in ("min", "max"):
                for metric in getattr(gate, bound):
                    _require(
                        metric in RESULT_METRICS,
                        f"gate {name!r}: unknown metric {metric!r} in `{bound}`; use one of {RESULT_METRICS}",
                    )
        _require(
            _set(self.bank) and self.bank in bank_versions(),
            f"gates.bank={self.bank!r}; choose one of {bank_versions()}",
        )
        _require(_set(self.batch_size) and self.batch_size > 0, "gates.batch_size must be > 0")
        _require(
            not _set(self.every_updates) or self.every_updates >= 0,
            f"gates.every_updates must be >= 0 (0: gate only at the last update), got {self.every_updates}",
        )


def check_gates_config(gates_cfg) -> GatesConfig:
    """The validated :class:`GatesConfig` of a config node, a YAML loaded without the schema,
    or a plain dict (whose gate opponents may be policies); raises ValueError before any game."""
    if isinstance(gates_cfg, GatesConfig):
        return gates_cfg
    if isinstance(gates_cfg, DictConfig):
        return OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(GatesConfig), gates_cfg))
    plain = dict(gates_cfg)
    gates = {name: GateConfig(**gate) for name, gate in (plain.pop("gates", None) or {}).items()}
    return GatesConfig(**plain, gates=gates)


def _passes(results, gate):
    checks = {}
    for bound, ok in (("min", lambda v, b: v >= b), ("max", lambda v, b: v <= b)):
        for metric, threshold in getattr(gate, bound).items():
            value = results[metric]
            checks[f"{metric} {'>=' if bound == 'min' else '<='} {threshold}"] = value is not None and ok(
                value, threshold
            )
    return checks


def run_gates(env, policy, gates_cfg, key, sharding=None):
    """Evaluate ``policy`` against every gate; ``{gate name: results + opponent, checks, passed}``.

    Each gate's results are :func:`duplicate_evaluate`'s dict (policy as A) plus
    ``opponent`` (str), ``checks`` ({"metric >= bound": bool}) and ``passed`` (bool, all
    checks hold). The key for a gate depends only on ``key`` and the gate's name.
    ``sharding`` splits the games over devices (:func:`~lost_cities.evaluation.play_duplicate`).
    """
    cfg = check_gates_config(gates_cfg)
    out = {}
    for name, gate in cfg.gates.items():
        deck_orders, coins = deal_bank(gate.deals, cfg.bank)
        opponent = make_policy(gate.opponent, env)
        gate_key = jax.random.fold_in(key, zlib.crc32(name.encode()) & 0x7FFFFFFF)
        results = duplicate_evaluate(
            env, policy, opponent, deck_orders, coins, gate_key, cfg.batch_size, sharding=sharding
        )
        checks = _passes(results, gate)
        out[name] = {
            **results,
            "opponent": getattr(gate.opponent, "__name__", str(gate.opponent)),
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
        for metric in RESULT_METRICS:
            if result.get(metric) is not None:
                flat[f"{prefix}/{name}/{metric}"] = float(result[metric])
        flat[f"{prefix}/{name}/passed"] = float(result["passed"])
    flat[f"{prefix}/passed"] = sum(float(r["passed"]) for r in gates.values()) / max(len(gates), 1)
    return flat
