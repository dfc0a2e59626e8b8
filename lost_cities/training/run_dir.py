"""A training run's dir (written by ``lost_cities.train``) and the readers of it.

| path                               | content                                                    |
| ---------------------------------- | ---------------------------------------------------------- |
| ``config.yaml``                    | the resolved config the run started with (``resume`` reads it) |
| ``metrics.jsonl``                  | one JSON object per update: ``update``, ``learner/env_steps``,  |
|                                    | episode and learner metrics, ``gates/<gate>/<metric>``     |
| ``gates.json``                     | the latest gate results: gate name -> ``run_gates`` result |
| ``gates.jsonl``                    | every gate run: ``{"update": n, "gates": <as gates.json>}`` |
| ``evaluation.json``                | the closing duplicate evaluation: opponent -> results      |
| ``checkpoints/latest``, ``/best``  | orbax checkpoints with their metadata and ``sha256.json``  |
| ``checkpoints/corrupt/``           | steps a resume found corrupt, moved aside (never deleted)  |
| ``.hydra/overrides.yaml``          | the command line's overrides (``report`` labels runs by it) |
| ``learning_curve.png``             | this run's curves (``lost_cities.cli.report.plot_run``)    |
| ``wandb_id.txt``, ``wandb/``       | the W&B run id and the offline W&B run                     |
| ``.lock``                          | while a run writes here: its lock, holder's pid and host   |
|                                    | (:mod:`lost_cities.training.lock`; removed at the end)     |

``lost_cities.report`` compares run dirs, ``lost_cities.export`` reads one's checkpoint
and gates, ``lost_cities.models.load`` its checkpoint.
"""

import contextlib
import json
from pathlib import Path

CONFIG_FILE = "config.yaml"
METRICS_FILE = "metrics.jsonl"
GATES_FILE = "gates.json"
GATES_HISTORY_FILE = "gates.jsonl"
EVALUATION_FILE = "evaluation.json"
LEARNING_CURVE_FILE = "learning_curve.png"


def read_jsonl(path):
    """The rows of a JSON-lines file ([] without one); a cut-off last line (a run still
    writing, or killed mid-line) is ignored, a bad line before it is an error."""
    path = Path(path)
    if not path.exists():
        return []
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    rows = []
    for number, line in enumerate(lines, 1):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if number < len(lines):
                raise ValueError(f"{path}:{number} is not a JSON object") from None
    return rows


def read_metrics(run_dir):
    """The rows of ``metrics.jsonl`` (:func:`read_jsonl`)."""
    return read_jsonl(Path(run_dir) / METRICS_FILE)


def read_gates(run_dir):
    """``gates.json`` (name -> run_gates result); a run without one shows its final
    ``evaluation.json`` (name -> duplicate results, no pass marks) instead; {} without either."""
    for name in (GATES_FILE, EVALUATION_FILE):
        path = Path(run_dir) / name
        if path.exists():
            return json.loads(path.read_text())
    return {}


def read_gates_history(run_dir):
    """Every gate run of a run, ``[{"update": n, "gates": ...}]`` ([] without ``gates.jsonl``)."""
    path = Path(run_dir) / GATES_HISTORY_FILE
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        with contextlib.suppress(json.JSONDecodeError):  # a line cut off by a kill: not recorded
            rows.append(json.loads(line))
    return rows


def gates_at(run_dir, update):
    """The gate results of ``update`` (None when no gate ran at that update)."""
    found = [row["gates"] for row in read_gates_history(run_dir) if row["update"] == update]
    return found[-1] if found else None


def remove_if_empty(run_dir):
    """A failed command leaves no empty dir behind (Hydra makes the run dir before the app
    runs, and its parents, e.g. ``outputs/evaluate``): the run dir if empty, then each parent
    below the working dir that it leaves empty."""
    run_dir, here = Path(run_dir).absolute(), Path.cwd().absolute()
    if not run_dir.is_dir() or any(run_dir.iterdir()):
        return
    run_dir.rmdir()
    parent = run_dir.parent
    while parent != here and parent.is_relative_to(here) and not any(parent.iterdir()):
        parent.rmdir()
        parent = parent.parent
