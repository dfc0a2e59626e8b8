"""``python -m lost_cities.evaluate agent=... opponent=... env=match3 deals=10000 [baseline=...]``.

Duplicate evaluation on the fixed deal bank (:func:`lost_cities.evaluation.matchup.run`);
prints the results and writes them as JSON (``RESULTS_SCHEMA`` plus the run's settings and
provenance). With a ``baseline`` agent, it plays the same games too and the two are compared
deal by deal (``COMPARISON_SCHEMA``).
"""

import functools
import json
import logging
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig

from lost_cities.cli import CLI_CONF, reporting_input_errors
from lost_cities.evaluation.matchup import run
from lost_cities.evaluation.provenance import provenance
from lost_cities.evaluation.report import format_comparison, format_report
from lost_cities.training.run_dir import remove_if_empty


def quiet_libraries():
    """orbax logs every checkpoint operation at INFO through absl; loading an agent needs none of it."""
    logging.getLogger("absl").setLevel(logging.WARNING)


def check_out(cfg):
    """Before any game: an ``out`` that exists is refused unless ``overwrite=true``."""
    if cfg.out and Path(cfg.out).exists() and not cfg.get("overwrite", False):
        raise FileExistsError(
            f"out={cfg.out} exists; choose another path, or pass overwrite=true to replace it"
        )


def write_results(results, cfg, name="results.json"):
    """``name`` in the Hydra run dir (never one that holds it already), and at ``cfg.out``
    when given, with the provenance of the command that made it; returns the paths."""
    results = {**results, "provenance": provenance()}
    own = Path(HydraConfig.get().runtime.output_dir) / name
    if own.exists():
        raise FileExistsError(f"{own} exists: another command wrote into this run dir; nothing was written")
    check_out(cfg)
    text = json.dumps(results, indent=2, allow_nan=False) + "\n"  # a NaN fails here, before any file
    paths = [own, *([Path(cfg.out)] if cfg.out else [])]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return paths


def removing_empty_run_dir(app):
    """Run ``app(cfg)``; on failure remove the run dir Hydra made if the app left it empty,
    and report bad input as ``error: ...`` (:func:`lost_cities.cli.reporting_input_errors`)."""

    @functools.wraps(app)
    @reporting_input_errors
    def wrapped(cfg):
        try:
            return app(cfg)
        except BaseException:
            remove_if_empty(HydraConfig.get().runtime.output_dir)
            raise

    return wrapped


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="evaluate")
@removing_empty_run_dir
def main(cfg):
    quiet_libraries()
    check_out(cfg)
    results = run(cfg)
    print(format_report(results))
    if "versus_baseline" in results:
        print(format_comparison(results))
    for path in write_results(results, cfg):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
