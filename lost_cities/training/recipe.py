"""A recipe (``python -m lost_cities.recipe``): a chain of runs, each started from the one before it
(conf/cli/recipe.yaml; the strong recipe that makes the page's agent).

A stage is exactly the run a user would start by hand: a subprocess of the package's own
entry point (``python -m lost_cities.<entry>``) with ``hydra.run.dir`` set to
``stages/<name>`` of the recipe dir and the previous stage's run dir passed as the
stage's ``start_key`` override (the first stage's: ``start``, a run dir or an exported
model, e.g. a shipped agent to improve). So a stage's run dir is an ordinary run dir (evaluate,
export, report it), and a crash in one stage loses none of the finished ones. Written
by hand because Hydra has no pipelines, and a launcher's parallel jobs are not a chain.

The recipe dir holds ``recipe.yaml`` (the resolved recipe), ``attempts.jsonl`` (a row per
stage attempt: its exit code and seconds, or the signal that stopped it), ``recipe.jsonl``
(a row per finished stage: its run dir, its seconds over all attempts and its gates),
``gates/`` (the gates' ``results.json``) and ``learning_curve.png`` (the gates over the
recipe's hours).
``resume=<recipe dir>`` skips the finished stages, continues an interrupted training
stage with ``resume=`` and restarts an interrupted cloning stage (pretrain runs have no
resume), keeping its partial dir as ``stages/<name>.interrupted-<n>``.
"""

import json
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from omegaconf import OmegaConf

from lost_cities.training.resume import override_key
from lost_cities.training.run_dir import remove_if_empty

ENTRIES = ("train", "pretrain")  # the entry points a stage may run
RECIPE_CONFIG = "recipe.yaml"
ATTEMPTS_FILE = "attempts.jsonl"
STAGES_FILE = "recipe.jsonl"
LEARNING_CURVE_FILE = "learning_curve.png"
FINISHED_MARKER = "evaluation.json"  # both entry points write it last, after the final checkpoint
RESUME_ALLOWED = ("resume", "progress", "xi_steps")  # xi_steps: add (or keep) steps at the end


@dataclass(frozen=True)
class Stage:
    name: str
    entry: str
    overrides: tuple[str, ...]
    start_key: str | None  # the override that receives the previous stage's run dir


def expand_stages(cfg):
    """The recipe's stages in order, a ``repeat: n`` stage as ``<name>1`` ... ``<name>n``;
    a ValueError naming the stage for anything that could not run."""
    stages = []
    for i, spec in enumerate(cfg.stages):
        name, entry = spec.get("name"), spec.get("entry")
        if not name or entry not in ENTRIES:
            raise ValueError(f"stages[{i}]: needs a name and an entry in {ENTRIES}, got {dict(spec)}")
        repeat = spec.get("repeat", None)
        if repeat is not None and (isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 0):
            raise ValueError(f"stage {name}: repeat={repeat!r} must be a whole number >= 0")
        names = [name] if repeat is None else [f"{name}{k}" for k in range(1, repeat + 1)]
        start_key = spec.get("start_key", None)
        for each in names:
            stages.append(Stage(each, entry, tuple(spec.get("overrides", ())), start_key))
    if not stages:
        raise ValueError("the recipe has no stages")
    if stages[0].start_key is not None and cfg.start is None:
        raise ValueError(
            f"stage {stages[0].name} starts from a previous stage ({stages[0].start_key}); it is the first: "
            "name what it starts from with start=<run dir or .onnx>"
        )
    if cfg.start is not None:
        if stages[0].start_key is None:
            raise ValueError(
                f"start={cfg.start}: the first stage ({stages[0].name}) has no start_key to take it"
            )
        if not Path(cfg.start).exists():
            raise FileNotFoundError(f"start={cfg.start} does not exist (a run dir or an exported .onnx)")
    names = [s.name for s in stages]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"stage names must be unique; repeated: {repeated}")
    return stages


def entry_module(entry):
    return f"lost_cities.{entry}"


def stage_command(stage, stage_dir, previous_dir, cfg):
    """The stage's command line: a new run, or ``train resume=`` of an interrupted one."""
    python = [sys.executable, "-m", entry_module(stage.entry)]
    progress = f"progress={str(cfg.progress).lower()}"
    if _has_checkpoint(stage_dir) and stage.entry == "train":
        return [*python, f"resume={stage_dir}", progress]
    start = [] if stage.start_key is None else [f"{stage.start_key}={previous_dir}"]
    return [*python, f"hydra.run.dir={stage_dir}", f"seed={cfg.seed}", progress, *stage.overrides, *start]


def gate_command(stage_dir, opponent, gate_dir, cfg):
    return [
        sys.executable,
        "-m",
        entry_module("evaluate"),
        f"agent={stage_dir}",
        f"opponent={opponent}",
        f"deals={cfg.gates.deals}",
        f"first_deal={cfg.gates.first_deal}",
        "progress=false",
        f"hydra.run.dir={gate_dir}",
    ]


def _has_checkpoint(stage_dir):
    latest = Path(stage_dir) / "checkpoints" / "latest"
    return latest.is_dir() and any(p.name.isdigit() for p in latest.iterdir())


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line] if path.exists() else []


def _append(path, row):
    with path.open("a") as f:
        f.write(json.dumps(row) + "\n")


def _set_aside(stage_dir):
    """An interrupted stage that cannot be continued: keep its files, free its name."""
    n = 1
    while stage_dir.with_name(f"{stage_dir.name}.interrupted-{n}").exists():
        n += 1
    moved = stage_dir.with_name(f"{stage_dir.name}.interrupted-{n}")
    stage_dir.rename(moved)
    print(f"recipe: {stage_dir.name} was interrupted and cannot be resumed; kept as {moved}", flush=True)


class StageFailed(RuntimeError):
    """A stage's command exited non-zero; the finished stages are kept."""


class Interrupted(KeyboardInterrupt):
    """The recipe was stopped by a signal (Ctrl-C, or SIGTERM from ``kill`` or a scheduler)."""


def _interrupt_on_sigterm():
    """SIGTERM unwinds like Ctrl-C, so the running attempt's seconds are recorded before
    the recipe stops (``subprocess.run`` then kills the stage's process)."""

    def stop(signum, frame):
        raise Interrupted(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stop)


def _signal_name(stop):
    return str(stop) if isinstance(stop, Interrupted) else "SIGINT"  # a bare KeyboardInterrupt is Ctrl-C


def _run(command, stage_name, recipe_dir, what):
    print(f"recipe: {what}: {' '.join(command)}", flush=True)
    attempt = {"stage": stage_name, "what": what}
    start = time.monotonic()
    try:
        code = subprocess.run(command).returncode
    except KeyboardInterrupt as stop:  # the attempt's seconds count towards the recipe's budget
        seconds = time.monotonic() - start
        _append(
            recipe_dir / ATTEMPTS_FILE,
            {**attempt, "exit_code": None, "seconds": seconds, "interrupted": _signal_name(stop)},
        )
        raise
    seconds = time.monotonic() - start
    _append(recipe_dir / ATTEMPTS_FILE, {**attempt, "exit_code": code, "seconds": seconds})
    if code != 0:
        raise StageFailed(
            f"stage {stage_name}: {what} failed (exit code {code}); the finished stages are kept. "
            f"Fix the cause and continue with resume={recipe_dir}"
        )


def run_stage(stage, previous_dir, cfg, recipe_dir):
    """Run (or continue) one stage and its gates; returns its row for ``recipe.jsonl``."""
    stage_dir = recipe_dir / "stages" / stage.name
    finished = (stage_dir / FINISHED_MARKER).exists()
    continuable = stage.entry == "train" and _has_checkpoint(stage_dir)
    if stage_dir.exists() and not finished and not continuable:
        _set_aside(stage_dir)
    if not (stage_dir / FINISHED_MARKER).exists():
        _run(stage_command(stage, stage_dir, previous_dir, cfg), stage.name, recipe_dir, stage.entry)
    gates = {}
    for opponent in cfg.gates.opponents:
        gate_dir = recipe_dir / "gates" / f"{stage.name}-{opponent}"
        if not (gate_dir / "results.json").exists():
            _run(
                gate_command(stage_dir, opponent, gate_dir, cfg),
                stage.name,
                recipe_dir,
                f"gate vs {opponent}",
            )
        result = json.loads((gate_dir / "results.json").read_text())
        gates[opponent] = {
            k: result[k] for k in ("win_rate", "win_rate_lower", "win_rate_upper", "margin_mean", "deals")
        }
    attempts = [a for a in _rows(recipe_dir / ATTEMPTS_FILE) if a["stage"] == stage.name]
    return {
        "stage": stage.name,
        "entry": stage.entry,
        "run_dir": str(stage_dir.relative_to(recipe_dir)),
        "seconds": sum(a["seconds"] for a in attempts if not a["what"].startswith("gate")),
        "attempts": sum(1 for a in attempts if not a["what"].startswith("gate")),
        "gates": gates,
    }


def run_recipe(cfg, recipe_dir):
    """Every stage not yet finished, in order; returns the rows of all finished stages."""
    recipe_dir = Path(recipe_dir)
    stages = expand_stages(cfg)
    rows = _rows(recipe_dir / STAGES_FILE)
    done = {row["stage"] for row in rows}
    previous = None if cfg.start is None else Path(cfg.start).absolute()
    for stage in stages:
        if stage.name not in done:
            row = run_stage(stage, previous, cfg, recipe_dir)
            _append(recipe_dir / STAGES_FILE, row)
            rows.append(row)
            print(f"recipe: finished {stage.name} {_gates_text(row)}", flush=True)
        previous = recipe_dir / "stages" / stage.name
    return [row for row in rows if row["stage"] in {s.name for s in stages}]


def _gates_text(row):
    return ", ".join(
        f"vs {name} {g['win_rate']:.3f} [{g['win_rate_lower']:.3f}, {g['win_rate_upper']:.3f}] "
        f"{g['margin_mean']:+.1f}"
        for name, g in row["gates"].items()
    )


def plot_recipe(rows, path, title):
    """The gates' win rates (Wilson intervals) against the recipe's cumulative hours."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    hours, elapsed = [], 0.0
    for row in rows:
        elapsed += row["seconds"] / 3600
        hours.append(elapsed)
    fig, ax = plt.subplots(figsize=(7, 4))
    for opponent in sorted({o for row in rows for o in row["gates"]}):
        points = [
            (h, r["gates"][opponent]) for h, r in zip(hours, rows, strict=True) if opponent in r["gates"]
        ]
        x = [h for h, _ in points]
        y = [g["win_rate"] for _, g in points]
        err = [
            [g["win_rate"] - g["win_rate_lower"] for _, g in points],
            [g["win_rate_upper"] - g["win_rate"] for _, g in points],
        ]
        ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=f"vs {opponent}")
    for h, row in zip(hours, rows, strict=True):
        ax.annotate(
            row["stage"],
            (h, 0),
            xycoords=("data", "axes fraction"),
            textcoords="offset points",
            xytext=(0, 4),
            ha="center",
            fontsize=7,
        )
    ax.axhline(0.5, color="grey", lw=0.5)
    ax.set(xlabel="hours of the idle machine (stages, cumulative)", ylabel="duplicate win rate", title=title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _check_finished_first(stages, recipe_dir):
    """A resume runs the stages left after the finished ones: more ``xi_steps`` after a later
    stage has finished would put a step behind a stage that did not start from it."""
    finished = {row["stage"] for row in _rows(recipe_dir / STAGES_FILE)}
    pending = [i for i, stage in enumerate(stages) if stage.name not in finished]
    later = [stage.name for stage in stages[pending[0] :] if stage.name in finished] if pending else []
    if later:
        raise ValueError(
            f"resume={recipe_dir}: stage {stages[pending[0]].name} would run before {later}, which "
            "finished from another stage. Start a new recipe from its last stage instead "
            f"(start={recipe_dir / 'stages' / stages[-1].name}, e.g. --config-name recipe_continue)"
        )


def prepare_recipe_dir(cfg, output_dir, overrides):
    """The recipe to run and its dir; everything checked before anything is written."""
    if cfg.resume is None:
        expand_stages(cfg)
        recipe_dir = Path(output_dir).absolute()
        if recipe_dir.exists() and any(recipe_dir.iterdir()):
            raise FileExistsError(f"{recipe_dir} holds files; continue it with resume={recipe_dir}")
        recipe_dir.mkdir(parents=True, exist_ok=True)
        (recipe_dir / RECIPE_CONFIG).write_text(OmegaConf.to_yaml(cfg))  # unresolved: keeps ${xi_steps}
        return cfg, recipe_dir
    recipe_dir = Path(cfg.resume).absolute()
    if not (recipe_dir / RECIPE_CONFIG).exists():
        raise FileNotFoundError(f"resume={cfg.resume}: no {RECIPE_CONFIG} there; pass a recipe dir")
    refused = sorted({override_key(o) for o in overrides} - set(RESUME_ALLOWED))
    if refused:
        raise ValueError(
            f"resume={cfg.resume} continues the recipe it started with; it would ignore {refused}. "
            f"Only {', '.join(RESUME_ALLOWED[1:])} may change on resume"
        )
    saved = OmegaConf.load(recipe_dir / RECIPE_CONFIG)
    saved.resume, saved.progress = str(recipe_dir), cfg.progress
    if any(o.split("=")[0] == "xi_steps" for o in overrides):
        saved.xi_steps = cfg.xi_steps  # the saved stages say repeat: ${xi_steps}
    _check_finished_first(expand_stages(saved), recipe_dir)
    (recipe_dir / RECIPE_CONFIG).write_text(OmegaConf.to_yaml(saved))
    return saved, recipe_dir


def run(cfg, output_dir, overrides):
    """``python -m lost_cities.recipe``: run (or resume) the recipe in ``output_dir``;
    ``overrides``: the command line, which a resume checks."""
    try:
        cfg, recipe_dir = prepare_recipe_dir(cfg, output_dir, overrides)
    finally:
        remove_if_empty(output_dir)
    _interrupt_on_sigterm()
    try:
        rows = run_recipe(cfg, recipe_dir)
    except StageFailed as failure:
        sys.exit(f"recipe: {failure}")
    except KeyboardInterrupt as stop:
        name = _signal_name(stop)
        print(f"recipe: stopped ({name}); continue with resume={recipe_dir}", file=sys.stderr)
        sys.exit(128 + signal.Signals[name])  # the shell's code for death by that signal
    plot = plot_recipe(rows, recipe_dir / LEARNING_CURVE_FILE, f"recipe {cfg.experiment_name}")
    print(f"\nrecipe dir: {recipe_dir}\n  stages: {recipe_dir / STAGES_FILE}\n  plot: {plot}")
    for row in rows:
        print(f"  {row['stage']:>8} ({row['seconds'] / 60:5.1f} min): {_gates_text(row)}")
    print(f"  the recipe's agent: {recipe_dir / rows[-1]['run_dir']}")
