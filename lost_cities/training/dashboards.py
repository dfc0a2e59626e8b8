"""The gate comparison as a W&B workspace, built as code with ``wandb-workspaces``
(``pip install 'lost-cities-rl[dashboards]'``): the W&B side of ``lost_cities.report``.

A sweep's workspace (:func:`sweep_workspace`) shows each gate's final win rate by every swept
config column, each run's interval, and the gates over training; a loop's
(:func:`loop_workspace`) shows its gate and its anchors by iteration. Runs are picked by W&B
group or by run ids (each run dir's ``wandb_id.txt``). Building needs no network; only
:func:`save` talks to W&B.
"""

import os
from pathlib import Path

from omegaconf import OmegaConf

from lost_cities.training.report import find_runs, is_loop, read_run, varied_knobs
from lost_cities.training.run_dir import GATES_FILE

INSTALL_HINT = "pip install 'lost-cities-rl[dashboards]' (or pip install wandb-workspaces)"


def _modules():
    """``(workspaces, reports)`` of wandb-workspaces: an optional extra, imported only here."""
    try:
        import wandb_workspaces.reports.v2 as reports
        import wandb_workspaces.workspaces as workspaces
    except ImportError as error:
        raise ImportError(f"a W&B workspace needs the wandb-workspaces library: {INSTALL_HINT}") from error
    return workspaces, reports


def config_column(knob):
    """A nested config knob's column in the W&B runs table (``ppo.ent_coef`` ->
    ``config:ppo.value.ent_coef``: W&B keeps each top-level config value under ``value``)."""
    first, *rest = knob.split(".")
    return "config:" + ".".join([first, "value", *rest])


def _series(prefix, metric="win_rate"):
    """``(mean, lower, upper)`` keys of a prefix's win rate (or margin: ``metric="margin"``)."""
    mean = f"{prefix}/{metric}" if metric == "win_rate" else f"{prefix}/{metric}_mean"
    return mean, f"{prefix}/{metric}_lower", f"{prefix}/{metric}_upper"


def _filters(ws, group, run_ids):
    if group:
        return ws.And(ws.Metric("Group") == group)
    if run_ids:
        return ws.And(ws.Metric("ID").isin(list(run_ids)))
    raise ValueError("a W&B workspace needs the runs' group or their run ids (wandb_id.txt)")


def _entity_project(entity, project):
    if not entity or not project:
        raise ValueError(f"a W&B workspace needs an entity and a project, got {entity!r} / {project!r}")


def _workspace(entity, project, name, series, columns, group, run_ids, x_title):
    """``series``: ``[(title, (mean, lower, upper), win rate?)]``; columns: config knobs."""
    ws, wr = _modules()
    _entity_project(entity, project)
    filters = _filters(ws, group, run_ids)
    sections = []
    for column in columns:
        panels = [
            wr.ScatterPlot(
                title=f"{title} by {column}",
                x=wr.Config(column),
                y=wr.SummaryMetric(keys[0]),
                range_y=(0.0, 1.0) if rate else (None, None),
            )
            for title, keys, rate in series
        ]
        sections.append(ws.Section(name=f"gates by {column}", panels=panels, is_open=True))
    if columns:
        parallel = wr.ParallelCoordinatesPlot(
            title="gates by config",
            columns=[wr.ParallelCoordinatesPlotColumn(metric=wr.Config(c)) for c in columns]
            + [
                wr.ParallelCoordinatesPlotColumn(metric=wr.SummaryMetric(keys[0]))
                for _, keys, rate in series
                if rate
            ],
        )
        bars = [
            wr.BarPlot(title=f"{title}: final [lower, mean, upper]", metrics=list(keys), orientation="h")
            for title, keys, _ in series
        ]
        sections.append(ws.Section(name="gates: each run's interval", panels=[parallel, *bars], is_open=True))
    curves = [
        wr.LinePlot(
            title=f"{title} by {x_title} [95%]",
            x="Step",
            y=list(keys),
            title_x=x_title,
            range_y=(0.0, 1.0) if rate else (None, None),
        )
        for title, keys, rate in series
    ]
    sections.append(ws.Section(name=f"gates by {x_title}", panels=curves, is_open=True))
    pinned = [config_column(c) for c in columns] + [f"summary:{key}" for _, keys, _ in series for key in keys]
    return ws.Workspace(
        entity=entity,
        project=project,
        name=name,
        sections=sections,
        runset_settings=ws.RunsetSettings(filters=filters, pinned_columns=pinned),
    )


def sweep_workspace(entity, project, gates, columns=(), group=None, run_ids=(), name=None):
    """A sweep's workspace: each gate's (``gates/<gate>/win_rate``) final win rate by each
    config column in ``columns`` (e.g. ``ppo.ent_coef``), each run's interval, and the gates
    over training (W&B's step is the update); the runs table pins the columns and intervals."""
    if not gates:
        raise ValueError("a sweep's workspace needs at least one gate name")
    series = [(f"vs {gate}", _series(f"gates/{gate}"), True) for gate in gates]
    name = name or f"gates: {group or 'runs ' + ', '.join(run_ids)}"
    return _workspace(entity, project, name, series, list(columns), group, run_ids, "update")


def loop_workspace(entity, project, anchors, columns=(), group=None, run_ids=(), name=None):
    """A loop's workspace: its gate (the student against the champion: ``gate/win_rate`` and
    ``gate/margin``) and the champion against each anchor (``anchors/<anchor>/win_rate``, and
    the margin against the first champion) by iteration (W&B's step); by config column too
    when several loops are compared."""
    series = [
        ("gate: student vs champion", _series("gate"), True),
        ("gate margin: student vs champion", _series("gate", "margin"), False),
        *((f"vs {anchor}", _series(f"anchors/{anchor}"), True) for anchor in anchors),
        ("margin vs the first champion", _series("anchors/first", "margin"), False),
    ]
    name = name or f"improvement loop: {group or ', '.join(run_ids)}"
    return _workspace(entity, project, name, series, list(columns), group, run_ids, "iteration")


def panel_titles(workspace):
    """``{section name: [panel titles]}`` (what the CLI prints before saving)."""
    return {section.name: [panel.title for panel in section.panels] for section in workspace.sections}


def _columns(runs):
    """The swept knobs that are config values (what W&B's config holds), in first-seen order."""
    knobs = list(dict.fromkeys(knob for run_knobs in varied_knobs(runs) for knob in run_knobs))
    columns = []
    for knob in knobs:
        config = Path(runs[0]) / "config.yaml"
        value = OmegaConf.select(OmegaConf.load(config), knob, default=None) if config.exists() else None
        if value is not None and not OmegaConf.is_config(value):
            columns.append(knob)
    return columns


def _run_ids(runs):
    missing = [str(run) for run in runs if not (Path(run) / "wandb_id.txt").exists()]
    if missing:
        raise FileNotFoundError(
            f"no wandb_id.txt in {', '.join(missing)}: pass the runs' W&B group (--group)"
        )
    return [(Path(run) / "wandb_id.txt").read_text().strip() for run in runs]


def workspace_for_runs(paths, entity_project, group=None, name=None):
    """The workspace comparing the run dirs under ``paths`` (a sweep's, or loops'): their gate
    or anchor names and swept config columns read from the dirs, their runs picked by
    ``group`` when given, else by the run ids in their ``wandb_id.txt``."""
    entity, _, project = str(entity_project).partition("/")
    _entity_project(entity, project)
    runs = find_runs(paths)
    loops = [is_loop(run) for run in runs]
    if any(loops) and not all(loops):
        raise ValueError(f"{', '.join(map(str, paths))} mixes training runs and loops: pass one kind")
    # A training run's gates only (not its closing evaluation.json, which W&B holds as eval/).
    gated = [run for run, loop in zip(runs, loops, strict=True) if loop or (Path(run) / GATES_FILE).exists()]
    names = sorted({gate for run in gated for gate in read_run(run)[1]})
    run_ids = () if group else _run_ids(runs)
    columns = _columns(runs) if len(runs) > 1 else []
    where = group or Path(os.path.commonpath([str(Path(p).absolute()) for p in paths])).name
    name = name or f"{'improvement loop' if all(loops) else 'gates'}: {where}"
    if all(loops):
        anchors = [anchor for anchor in names if anchor != "first"]
        return loop_workspace(entity, project, anchors, columns, group, run_ids, name)
    if not names:
        raise ValueError(f"no gate results (gates.json) under {', '.join(map(str, paths))}")
    return sweep_workspace(entity, project, names, columns, group, run_ids, name)


def save(workspace):
    """Save ``workspace`` to W&B as a new view (online: needs ``wandb login``); returns its URL."""
    return workspace.save().url
