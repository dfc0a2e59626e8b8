"""The command-line entry points. Each is reachable three ways: ``python -m lost_cities.<verb>``
(a thin module that only calls this package), the console script ``lost-cities-<verb>``
(``[project.scripts]`` in pyproject.toml), and ``main()`` here.

| verb             | config (``pkg://lost_cities.conf``)  | what it does                                |
| ---------------- | ------------------------------------ | ------------------------------------------- |
| ``train``        | ``conf/config.yaml`` + groups        | train PPO; run dir with metrics, checkpoints |
| ``recipe``       | ``conf/cli/recipe.yaml``             | a chain of runs (the strong recipe), resumable |
| ``evaluate``     | ``conf/cli/evaluate.yaml``           | duplicate evaluation of agent vs opponent    |
| ``tournament``   | ``conf/cli/tournament.yaml``         | the same, ``a`` vs ``b``, one summary line   |
| ``carry_probe``  | ``conf/cli/carry_probe.yaml``        | round 3 from injected match carries          |
| ``export``       | ``conf/cli/export.yaml``             | a checkpoint's policy as ONNX + manifest     |
| ``replay``       | argparse                             | replay web-client game logs in the engine    |
| ``report``       | argparse                             | compare runs: learning curves and gates      |
| ``pool_results`` | argparse                             | one claim from evaluations of deal ranges    |
| ``bench``        | argparse                             | engine, observation and training throughput  |
| ``parity_fixture`` | argparse                           | the web client's engine parity fixture       |

Hydra configs are found as the package ``lost_cities.conf`` (``conf/`` in the checkout,
shipped in the wheel), never by a path relative to the source tree.
"""

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
    back checkpoints under a path holding them (``lost_cities.ppo.checkpoint.check_checkpoint_dir``),
    and a sweep over a list (``network.hidden=[64],[128]``) would put ``[`` there."""
    from omegaconf import OmegaConf

    table = str.maketrans({"[": "(", "]": ")", "*": "_", "?": "_"})
    if not OmegaConf.has_resolver("path_safe"):
        OmegaConf.register_new_resolver("path_safe", lambda text: str(text).translate(table))


_register_path_safe()


def remove_if_empty(run_dir):
    """A failed command leaves no empty dir behind (Hydra makes the run dir before the app runs)."""
    from pathlib import Path

    run_dir = Path(run_dir)
    if run_dir.is_dir() and not any(run_dir.iterdir()):
        run_dir.rmdir()
