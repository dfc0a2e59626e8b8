"""Multi-host training: processes joined by ``jax.distributed.initialize``, one program over all.

Each process owns its local devices; :func:`lost_cities.parallel.make_mesh` spans every
process's, so the jitted update runs over all of them and XLA's collectives (gloo on
CPU, NCCL on GPU) reduce the gradients. Every process runs the same loop on the same
config and seed; only process 0 writes the run dir's files, metrics and W&B, while
checkpoints are saved by all processes together through orbax (each writes the shards
it holds; orbax's primary host, process 0, writes the metadata).

JAX joins the processes before anything touches a device, and this package's modules
hold device constants, so the join happens when ``lost_cities`` is imported
(:func:`join_from_environment`), from the launcher's environment:

- ``JAX_COORDINATOR_ADDRESS`` (``host:port`` of process 0), ``JAX_NUM_PROCESSES`` and
  ``JAX_PROCESS_ID``: this is one of several processes started by hand or by a launcher;
- else, inside a SLURM job step of several tasks (``SLURM_STEP_NUM_TASKS`` > 1: ``srun``, or
  the submitit launcher with ``tasks_per_node`` or ``nodes`` > 1): JAX reads the
  coordinator, count and id from SLURM's environment (the step's task count, not the
  allocation's ``SLURM_NTASKS``, so that a batch script's own process stays alone; no
  SLURM cluster was at hand to test this path);
- otherwise a single process.

The config's ``distributed`` node reads the same variables (``conf/config.yaml``), so the
run's saved config records them; :func:`check` refuses a config that disagrees with the
processes actually joined (a ``distributed.*`` override on the command line comes too
late to join: set the variables instead).
"""

import os

import jax
import numpy as np
from jax.experimental import multihost_utils

PATH_BYTES = 4096  # the longest run dir path that :func:`broadcast_path` carries


def join_from_environment():
    """Join the processes the environment describes (see the module docstring); else nothing."""
    if jax.distributed.is_initialized():
        return
    coordinator = os.environ.get("JAX_COORDINATOR_ADDRESS")
    if coordinator:
        jax.distributed.initialize(
            coordinator_address=coordinator,
            num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
            process_id=int(os.environ["JAX_PROCESS_ID"]),
        )
    elif int(os.environ.get("SLURM_STEP_NUM_TASKS", "1")) > 1:
        jax.distributed.initialize()


def check(cfg):
    """``cfg`` (the ``distributed`` node) describes the processes this one joined."""
    joined = (jax.process_count(), jax.process_index())
    if cfg.coordinator is None:
        return
    if joined != (cfg.num_processes, cfg.process_id):
        raise ValueError(
            f"distributed.coordinator={cfg.coordinator} (process {cfg.process_id} of {cfg.num_processes}), "
            f"but this is process {joined[1]} of {joined[0]}: the processes join when lost_cities is "
            "imported, so set JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES and JAX_PROCESS_ID in the "
            "environment rather than distributed.* on the command line"
        )


def is_main():
    """Process 0: the one that writes files, metrics and W&B."""
    return jax.process_index() == 0


def broadcast_path(path):
    """Process 0's ``path`` in every process (each Hydra process names its own run dir)."""
    if jax.process_count() == 1:
        return path
    data = np.zeros(PATH_BYTES, np.uint8)
    if is_main():
        raw = str(path).encode()
        if len(raw) > PATH_BYTES:
            raise ValueError(f"run dir path longer than {PATH_BYTES} bytes: {path}")
        data[: len(raw)] = np.frombuffer(raw, np.uint8)
    data = np.asarray(multihost_utils.broadcast_one_to_all(data))
    return type(path)(bytes(data[data > 0]).decode())


def agree(flag):
    """Process 0's ``flag`` in every process (a decision all must take together, such as to
    stop on process 0's clock)."""
    if jax.process_count() == 1:
        return bool(flag)
    return bool(multihost_utils.broadcast_one_to_all(np.asarray(bool(flag))))


def barrier(name):
    """Every process reaches ``name`` before any goes on (a no-op with one process)."""
    if jax.process_count() > 1:
        multihost_utils.sync_global_devices(name)
