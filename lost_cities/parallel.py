"""Data parallelism over devices with ``jax.sharding``: a ``Mesh`` with one ``data`` axis.

The program is the same on 1 device or many: every array keeps its global shape
(``ppo.num_envs`` is the global batch), the env batch (the rollout's slots, hence its
transitions) is split along the ``data`` axis, parameters, optimizer state, keys and
counters are replicated, and XLA partitions the jitted update and inserts the
reductions (the gradients' mean over the batch is an all-reduce). Random numbers are
drawn for the global shapes (``jax_threefry_partitionable``, on by default), so a
sharded run draws the same numbers as a 1-device run; only the order of float sums
differs. Evaluation splits its games the same way (``play_duplicate(sharding=batch_sharding(mesh))``).

With several processes (:mod:`lost_cities.distributed`) the mesh spans every process's
devices; each process computes the same host values (same seed, same config) and
:func:`place` hands each device its slice.
"""

import jax
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

DATA = "data"


def make_mesh(devices="all"):
    """The 1-axis mesh over ``jax.devices()`` (every process's): all of them, or the first ``devices``."""
    found = jax.devices()
    n = len(found) if devices == "all" else int(devices)
    if not 1 <= n <= len(found):
        raise ValueError(
            f"devices={devices}: this run sees {len(found)} {found[0].platform} device(s) "
            f"over {jax.process_count()} process(es); pass devices=all or 1..{len(found)}"
        )
    if jax.process_count() > 1 and n != len(found):
        raise ValueError(
            f"devices={devices}: with {jax.process_count()} processes every process trains on all its "
            f"local devices; pass devices=all ({len(found)} in all)"
        )
    return Mesh(np.asarray(found[:n]), (DATA,))


def describe(mesh):
    """``backend=cpu devices=2 processes=1 local_devices=2``: what a run computes on (printed first)."""
    return (
        f"backend={jax.default_backend()} devices={mesh.devices.size} "
        f"processes={jax.process_count()} local_devices={jax.local_device_count()}"
    )


def replicated(mesh):
    return NamedSharding(mesh, P())


def batch_sharding(mesh):
    """The leading axis split over ``data`` (the env batch; evaluation's games)."""
    return NamedSharding(mesh, P(DATA))


def check_divides(mesh, size, what):
    n = mesh.devices.size
    if size % n:
        raise ValueError(f"{what}={size} must be a multiple of the device count ({n}): it is split evenly")


def state_shardings(state, mesh):
    """The :class:`~lost_cities.ppo.trainer.TrainState`'s shardings: slots split, the rest replicated."""
    everywhere = jax.tree.map(lambda _: replicated(mesh), state)
    return everywhere.replace(slots=jax.tree.map(lambda _: batch_sharding(mesh), state.slots))


def place(tree, shardings):
    """``tree`` as global arrays with ``shardings``; each device gets its slice of the host value
    (every process passes the same values). Arrays already placed so are kept."""

    def put(x, sharding):
        if isinstance(x, jax.Array) and x.sharding == sharding:
            return x
        host = np.asarray(x)
        return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])

    return jax.tree.map(put, tree, shardings)


def fetch(tree):
    """``tree``'s global values on the host, in every process: arrays split over the mesh of
    several processes are gathered whole (``jax.device_get`` reads only this process's)."""
    if jax.process_count() == 1:
        return jax.device_get(tree)
    return multihost_utils.process_allgather(tree, tiled=True)


def parallel_update(trainer, shardings, mesh):
    """``trainer.update`` jitted for the mesh: the state keeps its shardings, metrics are replicated."""
    return jax.jit(trainer.update, in_shardings=(shardings,), out_shardings=(shardings, replicated(mesh)))
