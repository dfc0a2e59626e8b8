"""``python -m lost_cities.export checkpoint=<run|checkpoint|step dir> out=<file.onnx> [which=latest|best]``.

Writes the policy as ONNX and its manifest beside it (:mod:`lost_cities.export.onnx`
holds the contract); config ``conf/cli/export.yaml``. A run dir exports its
``checkpoints/<which>`` (``latest``: the final parameters, the default; or ``best``), a step
dir such as ``<run>/checkpoints/latest/900`` that update. It says which update it
exported, and the manifest's ``gates`` are the gates of that update
(from the run's ``gates.jsonl``; null when no gate ran at it). Non-finite or corrupt
parameters are refused (:func:`lost_cities.ppo.checkpoint.restore_params`).
"""

import json
import logging
from pathlib import Path

import hydra
from omegaconf import OmegaConf

from lost_cities.agents.checkpoint import checkpoint_dir
from lost_cities.cli import CLI_CONF
from lost_cities.export import export
from lost_cities.export.onnx import run_dir_of
from lost_cities.ppo.run_dir import GATES_HISTORY_FILE, gates_at


def resolve_checkpoint(checkpoint, which):
    """A run dir's ``checkpoints/<which>``; a checkpoint dir as it is."""
    path = Path(checkpoint)
    if (path / "checkpoints").is_dir():
        return checkpoint_dir(path, which)
    return path


def gates_of_update(manifest_path, checkpoint):
    """Give the manifest the gates of the update it holds (``export`` writes the run's latest)."""
    run_dir = run_dir_of(checkpoint)
    if run_dir is None or not (run_dir / GATES_HISTORY_FILE).exists():
        return  # a run from before gates.jsonl: only gates.json is known
    manifest = json.loads(Path(manifest_path).read_text())
    manifest["gates"] = gates_at(run_dir, manifest["update"])
    Path(manifest_path).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")


def run(cfg):
    checkpoint = resolve_checkpoint(cfg.checkpoint, cfg.which)
    evaluation = OmegaConf.select(cfg, "evaluation", default=None)  # a results JSON for `strength`
    model, manifest_path = export(checkpoint, cfg.out, cfg.name, evaluation)
    gates_of_update(manifest_path, checkpoint)
    update = json.loads(Path(manifest_path).read_text())["update"]
    return model, manifest_path, checkpoint, update


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="export")
def main(cfg):
    logging.getLogger("absl").setLevel(logging.WARNING)  # orbax logs every checkpoint operation at INFO
    model, manifest_path, checkpoint, update = run(cfg)
    print(f"exported {checkpoint} (update {update})\nwrote {model} and {manifest_path}")


if __name__ == "__main__":
    main()
