"""Training runs compared (``python -m lost_cities.report``) and a run's learning curve.

Compares training runs for people without W&B: learning curves from each run's
``metrics.jsonl`` (one JSON object per line with ``update``, ``env_steps`` and metric
keys) and gate results from its ``gates.json`` (gate name -> ``run_gates`` result),
written as ``report.png`` and ``report.md`` next to the runs.
"""

import fnmatch
import math
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display on servers
import matplotlib.pyplot as plt  # noqa: E402

from lost_cities.training.run_dir import (  # noqa: E402
    GATES_FILE,
    LEARNING_CURVE_FILE,
    METRICS_FILE,
    read_gates,
    read_metrics,
)

X_KEYS = ("env_steps", "learner/env_steps", "update")  # the x axis: the first present, in this order
MAX_PANELS = 9
# Plotted by default, in this order (glob patterns); the first-seen keys when none match.
DEFAULT_PATTERNS = (
    "gates/*/win_rate",
    "eval*/*/win_rate",
    "episode/win*",
    "episode/margin*",
    "episode/return*",
    "episode/length*",
    "episode/max_steps*",
    "learner/entropy",
    "learner/value_loss",
    "learner/approx_kl",
)


# A single run's learning curve (``plot_run``): win rates, margin and losses.
LEARNING_CURVE_PATTERNS = (
    "episode/win_vs_fixed",
    "episode/*/win",
    "episode/margin",
    "learner/entropy",
    "learner/value_loss",
    "learner/policy_loss",
)


def find_runs(paths):
    """Run dirs (holding metrics.jsonl or gates.json) at or below ``paths``, in a stable order."""
    runs = []
    for path in map(Path, paths):
        if not path.is_dir():
            raise FileNotFoundError(f"{path} is not a directory; pass run dirs or a multirun dir")
        found = {p.parent for name in (METRICS_FILE, GATES_FILE) for p in path.rglob(name)}
        if not found:
            raise FileNotFoundError(f"no metrics.jsonl or gates.json under {path}")
        runs.extend(sorted(found - set(runs)))
    return runs


def _overrides(run):
    path = run / ".hydra" / "overrides.yaml"
    if not path.exists():
        return []
    return [line.strip()[2:] for line in path.read_text().splitlines() if line.strip().startswith("- ")]


def run_labels(runs, root):
    """Each run's Hydra overrides that not all runs share (what a sweep varies), else its path."""
    overrides = [_overrides(run) for run in runs]
    shared = set.intersection(*map(set, overrides)) if len(runs) > 1 else set()
    labels = []
    for run, items in zip(runs, overrides, strict=True):
        varied = [item for item in items if item not in shared]
        labels.append(" ".join(varied) if varied else str(run.relative_to(root)) if run != root else run.name)
    return labels


def curve_keys(all_rows, patterns):
    """Numeric metric keys to plot: those matching ``patterns`` in pattern order (the defaults
    when none are given, falling back to all keys in first-seen order)."""
    keys = []
    for rows in all_rows:
        for row in rows:
            for key, value in row.items():
                numeric = isinstance(value, int | float) and not isinstance(value, bool)
                if numeric and key not in X_KEYS and key not in keys:
                    keys.append(key)
    chosen = [key for p in (patterns or DEFAULT_PATTERNS) for key in keys if fnmatch.fnmatch(key, p)]
    chosen = list(dict.fromkeys(chosen))
    return (chosen if chosen or patterns else keys)[:MAX_PANELS]


def _x_key(rows):
    return next((k for k in X_KEYS if any(k in row for row in rows)), "update")


def _series(rows, key):
    x_key = _x_key(rows)
    points = [(row.get(x_key), row[key]) for row in rows if key in row]
    return [x for x, _ in points], [y for _, y in points]


def plot(runs, labels, all_rows, all_gates, keys, path):
    gate_names = sorted({name for gates in all_gates for name in gates})
    panels = len(keys) + (1 if gate_names else 0)
    if panels == 0:
        raise ValueError("nothing to plot: no numeric metrics and no gates")
    cols = min(3, panels)
    rows_n = math.ceil(panels / cols)
    fig, axes = plt.subplots(rows_n, cols, figsize=(5.2 * cols, 3.6 * rows_n), squeeze=False)
    flat = list(axes.flat)
    for ax, key in zip(flat, keys, strict=False):
        for label, rows in zip(labels, all_rows, strict=True):
            xs, ys = _series(rows, key)
            ax.plot(xs, ys, label=label, linewidth=1.2)
        ax.set_title(key, fontsize=9)
        ax.set_xlabel("env steps", fontsize=8)
        ax.tick_params(labelsize=7)
    if gate_names:
        ax = flat[len(keys)]
        width = 0.8 / len(runs)
        for i, (label, gates) in enumerate(zip(labels, all_gates, strict=True)):
            for g, name in enumerate(gate_names):
                gate = gates.get(name)
                if gate is None:
                    continue
                x = g + (i - (len(runs) - 1) / 2) * width
                # Clamped: older files may hold a bound a rounding error past the estimate.
                err = [
                    [max(gate["win_rate"] - gate["win_rate_lower"], 0.0)],
                    [max(gate["win_rate_upper"] - gate["win_rate"], 0.0)],
                ]
                ax.bar(
                    x,
                    gate["win_rate"],
                    width,
                    yerr=err,
                    capsize=2,
                    color=f"C{i}",
                    hatch="//" if gate.get("passed") is False else None,
                    edgecolor="black",
                    linewidth=0.5,
                    label=label if g == 0 else None,
                )
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        ax.set_xticks(range(len(gate_names)), gate_names, rotation=20, fontsize=7)
        ax.set_ylim(0, 1)
        ax.set_title("win rate vs opponent, Wilson 95% (hatched: gate failed)", fontsize=9)
    for ax in flat[panels:]:
        ax.axis("off")
    handles, legend_labels = flat[0].get_legend_handles_labels()
    fig.legend(handles, legend_labels, loc="lower center", ncol=min(len(runs), 3), fontsize=8, frameon=False)
    legend_inches = 0.3 + 0.22 * math.ceil(len(runs) / 3)
    fig.tight_layout(rect=(0, legend_inches / fig.get_figheight(), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _cell(gate):
    mark = {True: " pass", False: " FAIL"}.get(gate.get("passed"), "")
    return f"{gate['win_rate']:.3f} [{gate['win_rate_lower']:.3f}, {gate['win_rate_upper']:.3f}]{mark}"


def _format(value):
    if value is None:
        return ""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.4g}"
    return str(int(value))


def markdown(labels, all_rows, all_gates, keys):
    gate_names = sorted({name for gates in all_gates for name in gates})
    header = ["run", "updates", "env steps", *(f"vs {name}" for name in gate_names), *keys]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for label, rows, gates in zip(labels, all_rows, all_gates, strict=True):
        last = rows[-1] if rows else {}
        finals = {key: next((row[key] for row in reversed(rows) if key in row), None) for key in keys}
        cells = [
            label,
            str(last.get("update", "")),
            _format(last.get(_x_key(rows)) if _x_key(rows) != "update" else None),
            *(_cell(gates[name]) if name in gates else "" for name in gate_names),
            *(_format(finals[key]) for key in keys),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_run(run_dir):
    """One run's ``learning_curve.png`` (``LEARNING_CURVE_PATTERNS``, and its gates when it has any)."""
    run_dir = Path(run_dir)
    rows, gates = read_metrics(run_dir), read_gates(run_dir)
    path = run_dir / LEARNING_CURVE_FILE
    plot([run_dir], [run_dir.name], [rows], [gates], curve_keys([rows], LEARNING_CURVE_PATTERNS), path)
    return path


def write_report(paths, out=None, patterns=()):
    """Write report.png and report.md comparing the runs under ``paths``; returns their paths."""
    runs = find_runs(paths)
    root = Path(os.path.commonpath([str(p) for p in paths]))
    out = Path(out) if out else root
    labels = run_labels(runs, root)
    all_rows = [read_metrics(run) for run in runs]
    all_gates = [read_gates(run) for run in runs]
    keys = curve_keys(all_rows, patterns)
    out.mkdir(parents=True, exist_ok=True)
    png, md = out / "report.png", out / "report.md"
    plot(runs, labels, all_rows, all_gates, keys, png)
    table = markdown(labels, all_rows, all_gates, keys)
    md.write_text(f"# Runs compared\n\n![learning curves and gates]({png.name})\n\n{table}")
    return png, md
