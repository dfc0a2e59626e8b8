"""Orbax checkpoints of the whole :class:`TrainState`, plus the metadata to use them alone.

``<run dir>/checkpoints/latest/<update>`` keeps the last ``max_to_keep`` states (resume
uses the newest); ``<run dir>/checkpoints/best/<update>`` keeps the best by the
configured metric. Each holds a ``meta`` item (env name, observation version and size,
network and critic config) so an agent can be loaded without the training code.
"""

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp


def _manager(directory, max_to_keep, best_metric=None):
    options = ocp.CheckpointManagerOptions(
        max_to_keep=max_to_keep,
        best_fn=(lambda metrics: metrics[best_metric]) if best_metric else None,
        best_mode="max",
        create=True,
    )
    return ocp.CheckpointManager(
        Path(directory).absolute(), options=options, item_names=("state", "params", "meta")
    )


class Checkpoints:
    def __init__(self, run_dir, max_to_keep):
        root = Path(run_dir).absolute() / "checkpoints"
        self.latest = _manager(root / "latest", max_to_keep)
        self.best = _manager(root / "best", 1, "score")

    def save(self, update, state, meta, best_score=None):
        items = {
            "state": ocp.args.StandardSave(state),
            "params": ocp.args.StandardSave(state.params),
            "meta": ocp.args.JsonSave(meta),
        }
        self.latest.save(update, args=ocp.args.Composite(**items), force=True)
        if best_score is not None:
            self.best.save(
                update, args=ocp.args.Composite(**items), metrics={"score": best_score}, force=True
            )
        self.latest.wait_until_finished()
        self.best.wait_until_finished()

    def close(self):
        self.latest.close()
        self.best.close()


def latest_step(run_dir):
    manager = _manager(Path(run_dir) / "checkpoints" / "latest", 1)
    step = manager.latest_step()
    manager.close()
    return step


def restore(checkpoint_dir, template, step=None):
    """``(TrainState, meta)`` from a checkpoint dir, shaped like ``template`` (abstract is fine)."""
    manager = _manager(checkpoint_dir, 1)
    step = manager.latest_step() if step is None else step
    if step is None:
        raise FileNotFoundError(f"no checkpoint in {checkpoint_dir}")
    restored = manager.restore(
        step, args=ocp.args.Composite(state=ocp.args.StandardRestore(template), meta=ocp.args.JsonRestore())
    )
    manager.close()
    # Uncommitted arrays, like a fresh state's: the resumed run's update then lowers to the
    # same program as the original run's (orbax returns committed arrays, a different key
    # for the compilation cache).
    state = jax.tree.map(lambda x: jnp.asarray(np.asarray(x)), restored["state"])
    return state, restored["meta"]


def restore_params(checkpoint_dir):
    """``(params, meta)`` of the newest checkpoint in ``checkpoint_dir``, without the training state."""
    manager = _manager(checkpoint_dir, 1)
    step = manager.latest_step()
    if step is None:
        raise FileNotFoundError(f"no checkpoint in {checkpoint_dir}")
    restored = manager.restore(
        step, args=ocp.args.Composite(params=ocp.args.StandardRestore(), meta=ocp.args.JsonRestore())
    )
    manager.close()
    return restored["params"], restored["meta"]
