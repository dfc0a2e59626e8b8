"""Training runs compared (``python -m lost_cities.report``) and a run's learning curve.

Compares runs for people without W&B: learning curves from each run's ``metrics.jsonl``
(one JSON object per line with ``update``, ``env_steps`` and metric keys), or from an
improvement loop's ``iterations.jsonl`` (one row per ``iteration``), and gate results from
``gates.json`` (gate name -> ``run_gates`` result; a loop's are its last anchors), written as
``report.png`` and ``report.md`` next to the runs. A sweep over two knobs on a grid also gets
a heatmap per gate of its final win rate over the two knobs.
"""

import fnmatch
import math
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display on servers
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from lost_cities.training.run_dir import (  # noqa: E402
    GATES_FILE,
    LEARNING_CURVE_FILE,
    METRICS_FILE,
    read_gates,
    read_jsonl,
    read_metrics,
)

# An improvement loop's run dir (``python -m lost_cities.improve``): one row per iteration.
ITERATIONS_FILE = "iterations.jsonl"
X_KEYS = ("env_steps", "learner/env_steps", "update", "iteration")  # the x axis: the first present
X_LABELS = {"env_steps": "env steps", "learner/env_steps": "env steps"}
MAX_PANELS = 9
# An episode mean is drawn over at least this many episodes (episode_weighted).
MIN_EPISODES = 64
# Plotted by default, in this order (glob patterns); the first-seen keys when none match.
DEFAULT_PATTERNS = (
    "gates/*/win_rate",
    "eval*/*/win_rate",
    "gate/win_rate",
    "anchors/*/win_rate",
    "anchors/first/margin_mean",
    "gate/margin_mean",
    "episode/win*",
    "episode/margin*",
    "episode/return*",
    "episode/length*",
    "episode/max_steps*",
    "learner/entropy",
    "learner/value_loss",
    "learner/approx_kl",
)
# A loop's anchors shown as its gates (bars, table, heatmap): the last row's values.
ANCHOR_METRICS = (
    "win_rate",
    "win_rate_lower",
    "win_rate_upper",
    "margin_mean",
    "margin_lower",
    "margin_upper",
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
    """Run dirs (holding metrics.jsonl, gates.json or iterations.jsonl) at or below ``paths``, in
    a stable order; nothing below a loop's run dir (its students are checkpoints, not runs)."""
    runs = []
    for path in map(Path, paths):
        if not path.is_dir():
            raise FileNotFoundError(f"{path} is not a directory; pass run dirs or a multirun dir")
        loops = {p.parent for p in path.rglob(ITERATIONS_FILE)}
        found = {p.parent for name in (METRICS_FILE, GATES_FILE) for p in path.rglob(name)}
        found = {run for run in found if not any(run.is_relative_to(loop) for loop in loops)} | loops
        if not found:
            raise FileNotFoundError(f"no metrics.jsonl, gates.json or iterations.jsonl under {path}")
        runs.extend(sorted(found - set(runs)))
    return runs


def is_loop(run):
    return (Path(run) / ITERATIONS_FILE).exists()


def read_iterations(run_dir):
    """A loop's rows of ``iterations.jsonl`` (:func:`~lost_cities.training.run_dir.read_jsonl`)."""
    return read_jsonl(Path(run_dir) / ITERATIONS_FILE)


def anchors_as_gates(rows):
    """A loop's last anchors, ``{opponent: {win_rate, ..._lower, ..._upper, margin_*}}``."""
    last = next((row for row in reversed(rows) if any(k.startswith("anchors/") for k in row)), {})
    gates = {}
    for key, value in last.items():
        parts = key.split("/")
        if len(parts) == 3 and parts[0] == "anchors" and parts[2] in ANCHOR_METRICS:
            gates.setdefault(parts[1], {})[parts[2]] = value
    return {name: gate for name, gate in gates.items() if gate.get("win_rate") is not None}


def read_run(run):
    """``(rows, gates)`` of a training run or a loop."""
    if is_loop(run):
        rows = read_iterations(run)
        return rows, anchors_as_gates(rows)
    return read_metrics(run), read_gates(run)


def _overrides(run):
    path = run / ".hydra" / "overrides.yaml"
    if not path.exists():
        return []
    return [line.strip()[2:] for line in path.read_text().splitlines() if line.strip().startswith("- ")]


def _varied(runs):
    """Each run's Hydra overrides that not all runs share (what a sweep varies)."""
    overrides = [_overrides(run) for run in runs]
    shared = set.intersection(*map(set, overrides)) if len(runs) > 1 else set()
    return [[item for item in items if item not in shared] for items in overrides]


def run_labels(runs, root):
    """Each run's Hydra overrides that not all runs share (what a sweep varies), else its path."""
    labels = []
    for run, varied in zip(runs, _varied(runs), strict=True):
        labels.append(" ".join(varied) if varied else str(run.relative_to(root)) if run != root else run.name)
    return labels


def varied_knobs(runs):
    """Each run's varied overrides as ``{knob: value}`` (``+``/``++`` prefixes dropped)."""
    knobs = []
    for varied in _varied(runs):
        pairs = (item.lstrip("+").split("=", 1) for item in varied if "=" in item)
        knobs.append(dict(pairs))
    return knobs


def _sorted_values(values):
    try:
        return sorted(values, key=float)
    except ValueError:
        return sorted(values)


def sweep_grid(runs):
    """``(knob_a, values_a, knob_b, values_b, {(a, b): run index})`` when the runs vary exactly
    two knobs and fill their grid (each pair of values once), else None."""
    knobs = varied_knobs(runs)
    if len(runs) < 2 or any(set(k) != set(knobs[0]) for k in knobs) or len(knobs[0]) != 2:
        return None
    a, b = knobs[0]
    cells = {(k[a], k[b]): i for i, k in enumerate(knobs)}
    values_a = _sorted_values({k[a] for k in knobs})
    values_b = _sorted_values({k[b] for k in knobs})
    if len(cells) != len(runs) or len(cells) != len(values_a) * len(values_b):
        return None
    return a, values_a, b, values_b, cells


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


def interval_keys(key):
    """The keys of ``key``'s 95% interval: ``win_rate`` -> ``win_rate_lower/_upper``,
    ``margin_mean`` -> ``margin_lower/_upper``; None for other keys."""
    for end, stem in (("/win_rate", "/win_rate"), ("/margin_mean", "/margin")):
        if key.endswith(end):
            base = key[: -len(end)] + stem
            return f"{base}_lower", f"{base}_upper"
    return None


def count_key(key):
    """The episode count an ``episode/...`` mean is over (``episode/<opponent>/count`` for a
    per-opponent mean, ``episode/count`` for an overall one); None for other keys."""
    if not key.startswith("episode/"):
        return None
    return key.rsplit("/", 1)[0] + "/count"


def episode_weighted(values, counts, min_episodes=MIN_EPISODES):
    """Each update's mean over the episodes of it and the updates just before it, back until
    ``min_episodes`` finished: an update that finished one episode against an opponent would
    draw its 0 or 1 as a spike. Updates with no episode (``None`` or NaN) stay gaps."""
    out = []
    for i, value in enumerate(values):
        if value is None or not math.isfinite(value):
            out.append(None)
            continue
        total = weighted = 0.0
        for j in range(i, -1, -1):
            if counts[j] and values[j] is not None and math.isfinite(values[j]):
                total += counts[j]
                weighted += counts[j] * values[j]
            if total >= min_episodes:
                break
        out.append(weighted / total if total else value)
    return out


def _series(rows, key):
    x_key = _x_key(rows)
    counted = count_key(key)
    if counted is not None and any(counted in row for row in rows):
        kept = [row for row in rows if key in row]
        ys = episode_weighted([row[key] for row in kept], [row.get(counted) or 0 for row in kept])
        points = [(row.get(x_key), y) for row, y in zip(kept, ys, strict=True) if y is not None]
    else:
        points = [(row.get(x_key), row[key]) for row in rows if row.get(key) is not None]
    return [x for x, _ in points], [y for _, y in points]


def _interval(rows, key):
    """``(xs, ys, [below, above])`` of the rows holding ``key`` and both its bounds, else None."""
    bounds = interval_keys(key)
    if bounds is None:
        return None
    low, high = bounds
    x_key = _x_key(rows)
    points = [
        (row.get(x_key), row[key], row[low], row[high])
        for row in rows
        if all(row.get(k) is not None for k in (key, low, high))
    ]
    if not points:
        return None
    # Clamped: older files may hold a bound a rounding error past the estimate.
    errors = [[max(y - lo, 0.0) for _, y, lo, _ in points], [max(hi - y, 0.0) for _, y, _, hi in points]]
    return [p[0] for p in points], [p[1] for p in points], errors


def _plot_curve(ax, label, rows, key, color):
    """A run's ``key`` with markers (a run gated once is one point), and its interval's
    error bars where the rows hold one."""
    xs, ys = _series(rows, key)
    if not xs:
        return False
    ax.plot(xs, ys, label=label, color=color, linewidth=1.2, marker="o", markersize=3)
    interval = _interval(rows, key)
    if interval is not None:
        ax.errorbar(
            interval[0], interval[1], yerr=interval[2], fmt="none", ecolor=color, capsize=2, linewidth=0.8
        )
    return True


def _gate_bars(ax, labels, all_gates, gate_names):
    width = 0.8 / len(labels)
    for i, (label, gates) in enumerate(zip(labels, all_gates, strict=True)):
        for g, name in enumerate(gate_names):
            gate = gates.get(name)
            if gate is None:
                continue
            x = g + (i - (len(labels) - 1) / 2) * width
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


def _grid_cells(grid, all_gates, name):
    """The gate's results by grid cell: ``[[result or None per value of b] per value of a]``."""
    _, values_a, _, values_b, cells = grid
    return [[all_gates[cells[(va, vb)]].get(name) for vb in values_b] for va in values_a]


def _heatmap(fig, ax, grid, all_gates, name):
    knob_a, values_a, knob_b, values_b, _ = grid
    results = _grid_cells(grid, all_gates, name)
    matrix = [[math.nan if r is None else r["win_rate"] for r in row] for row in results]
    image = ax.imshow(matrix, cmap="RdYlGn", vmin=0.0, vmax=1.0, aspect="auto")
    for i, row in enumerate(results):
        for j, r in enumerate(row):
            text = (
                "no gate"
                if r is None
                else f"{r['win_rate']:.2f}\n[{r['win_rate_lower']:.2f}, {r['win_rate_upper']:.2f}]"
            )
            ax.text(j, i, text, ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(values_b)), values_b, fontsize=7)
    ax.set_yticks(range(len(values_a)), values_a, fontsize=7)
    ax.set_xlabel(knob_b, fontsize=8)
    ax.set_ylabel(knob_a, fontsize=8)
    ax.set_title(f"vs {name}: final win rate [95%]", fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.046)


def plot(runs, labels, all_rows, all_gates, keys, path, grid=None):
    """Curves of ``keys``, the gate bars, and (``grid``: :func:`sweep_grid`) a heatmap per gate."""
    gate_names = sorted({name for gates in all_gates for name in gates})
    heatmaps = gate_names if grid is not None else []
    panels = len(keys) + (1 if gate_names else 0) + len(heatmaps)
    if panels == 0:
        raise ValueError("nothing to plot: no numeric metrics and no gates")
    cols = min(3, panels)
    rows_n = math.ceil(panels / cols)
    fig, axes = plt.subplots(rows_n, cols, figsize=(5.2 * cols, 3.6 * rows_n), squeeze=False)
    flat = list(axes.flat)
    for ax, key in zip(flat, keys, strict=False):
        x_labels = set()
        for i, (label, rows) in enumerate(zip(labels, all_rows, strict=True)):
            if _plot_curve(ax, label, rows, key, f"C{i}"):
                x_labels.add(X_LABELS.get(_x_key(rows), _x_key(rows)))
        ax.set_title(key, fontsize=9)
        ax.set_xlabel(" / ".join(sorted(x_labels)), fontsize=8)
        if x_labels <= {"update", "iteration"}:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.tick_params(labelsize=7)
    if gate_names:
        _gate_bars(flat[len(keys)], labels, all_gates, gate_names)
    for ax, name in zip(flat[len(keys) + 1 :], heatmaps, strict=False):
        _heatmap(fig, ax, grid, all_gates, name)
    for ax in flat[panels:]:
        ax.axis("off")
    handles, legend_labels = [], []
    for ax in flat[: len(keys) + (1 if gate_names else 0)]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            if label not in legend_labels:
                handles.append(handle)
                legend_labels.append(label)
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


def _env_steps(rows):
    x_key = _x_key(rows)
    return rows[-1].get(x_key) if rows and x_key in X_LABELS else None


def markdown(labels, all_rows, all_gates, keys, grid=None):
    """The runs' table (final gates with their intervals, final metrics), and with ``grid``
    a table per gate of its final win rate and interval over the two knobs."""
    gate_names = sorted({name for gates in all_gates for name in gates})
    loops = any("iteration" in row for rows in all_rows for row in rows)
    header = [
        "run",
        "updates",
        *(["iterations"] if loops else []),
        "env steps",
        *(f"vs {name}" for name in gate_names),
        *keys,
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for label, rows, gates in zip(labels, all_rows, all_gates, strict=True):
        last = rows[-1] if rows else {}
        finals = {
            key: next((row[key] for row in reversed(rows) if row.get(key) is not None), None) for key in keys
        }
        cells = [
            label,
            str(last.get("update", "")),
            *([str(last.get("iteration", ""))] if loops else []),
            _format(_env_steps(rows)),
            *(_cell(gates[name]) if name in gates else "" for name in gate_names),
            *(_format(finals[key]) for key in keys),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    if grid is not None:
        knob_a, values_a, knob_b, values_b, _ = grid
        for name in gate_names:
            rows = [
                f"| {knob_a} \\ {knob_b} | " + " | ".join(values_b) + " |",
                "|" + " --- |" * (len(values_b) + 1),
            ]
            for value, results in zip(values_a, _grid_cells(grid, all_gates, name), strict=True):
                rows.append(
                    f"| {value} | " + " | ".join("" if r is None else _cell(r) for r in results) + " |"
                )
            text += (
                f"\n## vs {name}: final win rate [95% interval] by {knob_a} and {knob_b}\n\n"
                + "\n".join(rows)
                + "\n"
            )
    return text


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
    all_rows, all_gates = zip(*(read_run(run) for run in runs), strict=True)
    keys = curve_keys(all_rows, patterns)
    grid = sweep_grid(runs)
    out.mkdir(parents=True, exist_ok=True)
    png, md = out / "report.png", out / "report.md"
    plot(runs, labels, all_rows, all_gates, keys, png, grid)
    table = markdown(labels, all_rows, all_gates, keys, grid)
    md.write_text(f"# Runs compared\n\n![learning curves and gates]({png.name})\n\n{table}")
    return png, md
