"""The command-line entry points: each parses its config and calls one function of the
package. Each is reachable as ``python -m lost_cities.<verb>`` (a thin module that only calls
this package) and as the console script ``lost-cities-<verb>`` (``[project.scripts]``).

| verb             | config (``pkg://lost_cities.conf``)  | calls                                         |
| ---------------- | ------------------------------------ | --------------------------------------------- |
| ``train``        | ``conf/config.yaml`` + groups        | ``training.loop.run``: PPO in a run dir       |
| ``pretrain``     | ``conf/pretrain.yaml``               | ``training.pretrain.pretrain``: a clone       |
| ``recipe``       | ``conf/cli/recipe.yaml``             | ``training.recipe.run``: a chain of runs      |
| ``improve``      | ``conf/improve.yaml``                | ``improvement.loop.run``: self-improvement   |
| ``exploit``      | ``conf/exploit.yaml`` + groups       | ``training.exploit.exploit``: a best response |
| ``evaluate``     | ``conf/cli/evaluate.yaml``           | ``evaluation.matchup.run``: duplicate games   |
| ``tournament``   | ``conf/cli/tournament.yaml``         | ``a`` vs ``b``, or all-play-all ratings       |
| ``carry_probe``  | ``conf/cli/carry_probe.yaml``        | ``evaluation.carry.carry_probe``: round 3     |
| ``export``       | ``conf/cli/export.yaml``             | ``export.export``: ONNX + manifest            |
| ``ship``         | ``conf/cli/ship.yaml``               | ``export.ship``'s steps: an agent on the page |
| ``belief``       | ``conf/cli/belief.yaml``             | fit, check or export a learned belief         |
| ``search_bench`` | ``conf/cli/search_bench.yaml``       | ``benchmarks.search.search_cost``             |
| ``replay``       | argparse (a game log)                | ``game.replay``: web games through the engine |
| ``report``       | argparse (run dirs)                  | ``training.report.write_report``              |
| ``pool_results`` | argparse (results files)             | ``evaluation.pooling.pool_results``           |
| ``bench``        | argparse                             | ``benchmarks.engine``: throughput             |

The four argparse commands take lists of files or a few flags and write no run dir, so they
compose no config. Hydra configs are found as the package ``lost_cities.conf`` (``conf/`` in
the checkout, shipped in the wheel), never by a path relative to the source tree.

Bad input (a missing or corrupt file, a value out of range, a run dir in use) ends a command
with ``error: <what, naming the input>`` on stderr and exit status 2 (:func:`reporting_input_errors`),
not a traceback; ``HYDRA_FULL_ERROR=1`` shows the traceback too.
"""

import functools
import os
import sys

from lost_cities.training.lock import RunDirLocked

CONF = "pkg://lost_cities.conf"  # the training config and its groups
CLI_CONF = "pkg://lost_cities.conf.cli"  # the other Hydra CLIs' configs (no groups: `env=` is a value)


def _register_run_id():
    """``${run_id:}`` in a run dir's name: unique per process (pid and random bits), so runs
    started in the same second, even on different machines, never share a dir."""
    import os
    import secrets

    from omegaconf import OmegaConf

    token = f"{os.getpid()}-{secrets.token_hex(2)}"
    if not OmegaConf.has_resolver("run_id"):
        OmegaConf.register_new_resolver("run_id", lambda: token)


_register_run_id()


def _register_path_safe():
    """``${path_safe:<text>}``: ``text`` with the characters a glob reads as a pattern
    (``[ ] * ?``) replaced, for a sweep job's dir named by its overrides: orbax cannot read
    back checkpoints under a path holding them (``lost_cities.checkpoints.check_checkpoint_dir``),
    and a sweep over a list (``network.hidden=[64],[128]``) would put ``[`` there."""
    from omegaconf import OmegaConf

    table = str.maketrans({"[": "(", "]": ")", "*": "_", "?": "_"})
    if not OmegaConf.has_resolver("path_safe"):
        OmegaConf.register_new_resolver("path_safe", lambda text: str(text).translate(table))


_register_path_safe()


# What bad input raises: the checks' errors, each naming the input.
INPUT_ERRORS = (ValueError, FileNotFoundError, FileExistsError, NotADirectoryError, RunDirLocked)
INPUT_ERROR_STATUS = 2


def reporting_input_errors(app):
    """Run ``app``; bad input (:data:`INPUT_ERRORS`) exits with ``error: <message>`` and status 2
    instead of a traceback (``HYDRA_FULL_ERROR=1``: raised as it is, with its traceback). In a
    Hydra sweep the error is raised, so that the sweep records the failed job and goes on."""

    @functools.wraps(app)
    def wrapped(*args, **kwargs):
        try:
            return app(*args, **kwargs)
        except INPUT_ERRORS as error:
            if os.environ.get("HYDRA_FULL_ERROR") == "1" or _in_sweep():
                raise
            print(f"error: {error}", file=sys.stderr)
            sys.exit(INPUT_ERROR_STATUS)

    return wrapped


def _in_sweep():
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    try:
        return HydraConfig.get().mode == RunMode.MULTIRUN
    except ValueError:  # not a Hydra app
        return False
