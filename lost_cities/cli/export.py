"""``python -m lost_cities.export checkpoint=<run dir | checkpoint dir> out=<file.onnx>``.

Writes the policy as ONNX and its manifest beside it (:mod:`lost_cities.export.onnx`
holds the contract); config ``conf/cli/export.yaml``.
"""

import logging

import hydra

from lost_cities.cli import CLI_CONF
from lost_cities.export import export


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="export")
def main(cfg):
    logging.getLogger("absl").setLevel(logging.WARNING)  # orbax logs every checkpoint operation at INFO
    model, manifest_path = export(cfg.checkpoint, cfg.out, cfg.name)
    print(f"wrote {model} and {manifest_path}")


if __name__ == "__main__":
    main()
