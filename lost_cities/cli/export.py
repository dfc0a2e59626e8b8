"""``python -m lost_cities.export checkpoint=<run|checkpoint|step dir> out=<file.onnx> [which=latest|best]``.

Writes the policy as ONNX and its manifest beside it (:func:`lost_cities.export.onnx.export`
holds the contract; config ``conf/cli/export.yaml``). A run dir exports its
``checkpoints/<which>``, a step dir such as ``<run>/checkpoints/latest/900`` that update;
the manifest's ``gates`` are that update's. Non-finite or corrupt parameters are refused, and
so is an ``out`` that exists (or its manifest) unless ``overwrite=true``.
"""

import json
import logging
from pathlib import Path

import hydra

from lost_cities.cli import CLI_CONF, reporting_input_errors
from lost_cities.export import export


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="export")
@reporting_input_errors
def main(cfg):
    logging.getLogger("absl").setLevel(logging.WARNING)  # orbax logs every checkpoint operation at INFO
    model, manifest_path = export(cfg.checkpoint, cfg.out, cfg.name, cfg.evaluation, cfg.which, cfg.overwrite)
    meta = json.loads(Path(manifest_path).read_text())
    print(f"exported {meta['checkpoint']} (update {meta['update']})\nwrote {model} and {manifest_path}")


if __name__ == "__main__":
    main()
