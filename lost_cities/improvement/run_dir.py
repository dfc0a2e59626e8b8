"""An improvement loop's run dir (written by ``python -m lost_cities.improve``) and its
readers and writers, as :mod:`lost_cities.training.run_dir` is for ``train``.

| path                               | content                                                    |
| ---------------------------------- | ---------------------------------------------------------- |
| ``config.yaml``                    | the resolved config the run started with (``resume`` reads it) |
| ``state.json``                     | the iteration done and the champion; written last in an iteration |
| ``iterations.jsonl``               | one row per iteration: labels, student, gate, anchors, times |
| ``labels/<i>/chunk-<k>.npz``       | iteration ``i``'s labelled positions, a chunk at a time    |
| ``students/<i>``, ``champions/0000`` | checkpoint dirs: iteration ``i``'s student, the first champion |
| ``judged/<i>.json``                | iteration ``i``'s teacher judged on a sample of its positions |
| ``gates/<i>.json``                 | iteration ``i``'s gate: the duplicate results it read      |
| ``curve.png``                      | the learning curve by iteration                            |
| ``wandb_id.txt``, ``wandb/``, ``.lock`` | the W&B run id and offline run; the writer's lock     |
"""

import json
import os
from pathlib import Path

from omegaconf import OmegaConf

from lost_cities.training.report import ITERATIONS_FILE
from lost_cities.training.run_dir import read_jsonl

CONFIG_FILE = "config.yaml"


STATE_FILE = "state.json"


def write_json(path, value):
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, indent=1, sort_keys=True))
    tmp.replace(path)


def read_rows(run_dir):
    """The loop's rows (a row cut off by a kill is dropped)."""
    return read_jsonl(Path(run_dir) / ITERATIONS_FILE)


def append_row(run_dir, row, logger):
    with (Path(run_dir) / ITERATIONS_FILE).open("a") as f:
        f.write(json.dumps(row) + "\n")
        f.flush()
        os.fsync(f.fileno())
    if logger is not None:
        logger.log(
            {k: v for k, v in row.items() if isinstance(v, int | float) and not isinstance(v, bool)},
            row["iteration"],
        )


def is_run_dir(path):
    """A dir of a loop run: its config and its state are written there."""
    return (path / CONFIG_FILE).exists() and (path / STATE_FILE).exists()


def run_config_of(checkpoint):
    """The config (a dict) of the loop run whose student or champion ``checkpoint`` is (its
    ``checkpoints/latest`` or the dir above), else None: a student's metadata holds no
    training config, its run's config.yaml is the one."""
    above = list(Path(checkpoint).absolute().parents)[:5]  # <run>/students/<i>/checkpoints/latest[/<step>]
    for parent in above:
        if is_run_dir(parent):
            return OmegaConf.to_container(OmegaConf.load(parent / CONFIG_FILE), resolve=True)
    return None


def prior_chain(cfg):
    """``[(run_dir, iterations, chunks), ...]``: the run's prior, that run's own prior, and so
    on (each as its saved config resolved it), the nearest first: the runs whose labels a
    window longer than this run reaches."""
    chain, prior = [], cfg.prior
    while prior is not None and prior.run is not None:
        source = OmegaConf.load(Path(prior.run) / CONFIG_FILE)
        chain.append((Path(prior.run), prior.iterations, source.generate.chunks))
        prior = OmegaConf.select(source, "prior", default=None)
    return chain
