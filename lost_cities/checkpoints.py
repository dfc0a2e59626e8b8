"""Orbax checkpoints of the whole :class:`TrainState`, plus the metadata to use them alone.

``<run dir>/checkpoints/latest/<update>`` keeps the last ``max_to_keep`` states (resume
uses the newest); ``<run dir>/checkpoints/best/<update>`` keeps the best by the
configured metric. Each holds a ``meta`` item (env name, observation version and size,
network and critic config) so an agent can be loaded without the training code.

Integrity: every step dir holds ``sha256.json`` (the digest of each file orbax wrote,
written once the save has finished). :func:`restore` and :func:`restore_params` verify
it before reading and refuse non-finite parameters (:func:`check_finite`); a step that
fails verification (flipped bytes, a truncated file, no digest because the save was
killed) is skipped with a warning naming it, and the newest good step is used instead.
A dir where no step has a digest (saved before digests existed) is read unverified, with a
warning. Nothing is saved whose parameters are not finite, and nothing under a path that
holds a glob character (:func:`check_checkpoint_dir`: orbax could not read it back).

With several processes (:mod:`lost_cities.distributed`) every process calls
:meth:`Checkpoints.save` with the same global state: orbax's multi-host support has each
write the shards it holds (process 0 the replicated arrays and metadata), and process 0
writes the digest once all have finished.
"""

import hashlib
import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp

DIGEST_FILE = "sha256.json"
GLOB_CHARACTERS = "[]*?"


def check_checkpoint_dir(directory):
    """Refuse a dir whose checkpoints orbax could not read back. Orbax finds the files a save
    wrote by a glob under the dir's own path, so a ``[``, ``]``, ``*`` or ``?`` in that
    path makes every save finish without error and leave a checkpoint that no restore
    opens (measured: a Hydra sweep over ``network.placement_hidden=[32]``)."""
    held = sorted(set(str(Path(directory).absolute())) & set(GLOB_CHARACTERS))
    if held:
        raise ValueError(
            f"{directory}: orbax cannot read back checkpoints saved under a path holding {held} "
            "(it globs the path); choose a run dir without them"
        )


class CorruptCheckpoint(ValueError):
    """A checkpoint step whose files do not match the digest written when it was saved."""


def check_finite(params, what):
    """Raise ``ValueError`` naming ``what`` and the first non-finite leaf of ``params``."""
    leaves = jax.tree_util.tree_leaves_with_path(params)
    for path, leaf in leaves:
        array = np.asarray(leaf)
        if np.issubdtype(array.dtype, np.floating) and not np.isfinite(array).all():
            bad = int(np.size(array) - np.isfinite(array).sum())
            raise ValueError(
                f"{what}: parameter {jax.tree_util.keystr(path)} has {bad} non-finite value(s) "
                "(NaN or inf); refusing to use it"
            )
    return params


def _manager(directory, max_to_keep, best_metric=None, create=True):
    """A manager of ``directory``. Its processes' barriers are named after the dir's own
    name (``latest``, ``best``): both managers save the same update at once, and with
    several processes orbax's default barrier names (``_async_write_complete.<update>``)
    would be the same for both, so that one save's wait collides with the other's ("Barrier
    ... is already ongoing") and the other processes wait at it for ever."""
    check_checkpoint_dir(directory)
    options = ocp.CheckpointManagerOptions(
        max_to_keep=max_to_keep,
        best_fn=(lambda metrics: metrics[best_metric]) if best_metric else None,
        best_mode="max",
        create=create,
        multiprocessing_options=ocp.options.MultiprocessingOptions(
            barrier_sync_key_prefix=Path(directory).name
        ),
    )
    return ocp.CheckpointManager(
        Path(directory).absolute(), options=options, item_names=("state", "params", "meta")
    )


def _file_digests(step_dir):
    step_dir = Path(step_dir)
    return {
        path.relative_to(step_dir).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(step_dir.rglob("*"))
        if path.is_file() and path.name != DIGEST_FILE
    }


def write_digest(step_dir):
    """``<step dir>/sha256.json``, written to a temporary name and renamed (never half-written)."""
    step_dir = Path(step_dir)
    tmp = step_dir / (DIGEST_FILE + ".tmp")
    tmp.write_text(json.dumps(_file_digests(step_dir), indent=1, sort_keys=True))
    tmp.replace(step_dir / DIGEST_FILE)


def verify(step_dir):
    """Raise :class:`CorruptCheckpoint` unless every file of ``step_dir`` matches its digest."""
    step_dir = Path(step_dir)
    digest = step_dir / DIGEST_FILE
    if not digest.exists():
        raise CorruptCheckpoint(f"{step_dir}: no {DIGEST_FILE} (the save did not finish)")
    expected = json.loads(digest.read_text())
    actual = _file_digests(step_dir)
    for name in sorted(set(expected) | set(actual)):
        if expected.get(name) != actual.get(name):
            what = "missing" if name not in actual else "unexpected" if name not in expected else "changed"
            raise CorruptCheckpoint(f"{step_dir}: file {name} is {what} since the checkpoint was saved")


class Checkpoints:
    def __init__(self, run_dir, max_to_keep):
        root = Path(run_dir).absolute() / "checkpoints"
        self.root = root
        self.latest = _manager(root / "latest", max_to_keep)
        self.best = _manager(root / "best", 1, "score")

    def save(self, update, state, meta, best_score=None):
        check_finite(state.params, f"checkpoint of update {update}")
        items = {
            "state": ocp.args.StandardSave(state),
            "params": ocp.args.StandardSave(state.params),
            "meta": ocp.args.JsonSave(meta),
        }
        self.latest.save(update, args=ocp.args.Composite(**items), force=True)
        saved_best = False
        if best_score is not None:
            saved_best = self.best.save(
                update, args=ocp.args.Composite(**items), metrics={"score": best_score}, force=True
            )
        self.latest.wait_until_finished()
        self.best.wait_until_finished()
        if jax.process_index() != 0:  # several processes: each saved its shards, process 0 the digest
            return
        write_digest(self.root / "latest" / str(update))
        if saved_best and (self.root / "best" / str(update)).is_dir():
            write_digest(self.root / "best" / str(update))

    def close(self):
        self.latest.close()
        self.best.close()


def steps(checkpoint_dir):
    """The finished steps in ``checkpoint_dir``, newest first ([] without any)."""
    directory = Path(checkpoint_dir)
    if not directory.is_dir():
        return []
    return sorted((int(p.name) for p in directory.iterdir() if p.is_dir() and p.name.isdigit()), reverse=True)


def latest_step(run_dir, kind="latest"):
    """The newest step of a run dir's ``checkpoints/<kind>`` (None without one)."""
    found = steps(Path(run_dir) / "checkpoints" / kind)
    return found[0] if found else None


def _on_this_process(abstract):
    """``abstract`` (shapes and dtypes) with every leaf placed on this process's first device.

    Orbax restores an array with the sharding it was saved with unless told otherwise, and
    refuses where the devices differ (a checkpoint of a 2-device run read by 1 process);
    a leaf without a sharding is therefore given the local one."""
    local = jax.sharding.SingleDeviceSharding(jax.local_devices()[0])

    def leaf(x):
        sharding = x.sharding if _has_sharding(x) else local  # orbax's metadata has its own kind
        return jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=sharding)

    return jax.tree.map(leaf, abstract)


def _has_sharding(x):
    return isinstance(getattr(x, "sharding", None), jax.sharding.Sharding)


def _restore_verified(checkpoint_dir, items, step=None):
    """``(restored, step, skipped)``: the newest step that verifies (or exactly ``step``);
    ``skipped`` lists ``(step, reason)`` for the newer ones that did not. ``items(step_dir)``
    gives the step's orbax restore args."""
    checkpoint_dir = Path(checkpoint_dir).absolute()
    candidates = steps(checkpoint_dir) if step is None else [step]
    if not candidates:
        raise FileNotFoundError(f"no checkpoint in {checkpoint_dir}")
    # A dir where no step has a digest was written before digests existed: read it unverified.
    legacy = not any((checkpoint_dir / str(s) / DIGEST_FILE).exists() for s in steps(checkpoint_dir))
    if legacy:
        print(f"warning: {checkpoint_dir} predates checkpoint digests; read unverified", file=sys.stderr)
    skipped = []
    for candidate in candidates:
        try:
            if not legacy:
                verify(checkpoint_dir / str(candidate))
            manager = _manager(checkpoint_dir, 1, create=False)  # reads only: creates and deletes nothing
            try:
                args = ocp.args.Composite(**items(checkpoint_dir / str(candidate)))
                restored = manager.restore(candidate, args=args)
            finally:
                manager.close()
        except Exception as error:  # a corrupt step: orbax and tensorstore raise many kinds
            reason = str(error).splitlines()[0][:300]
            skipped.append((candidate, reason))
            if step is not None:
                raise CorruptCheckpoint(f"{checkpoint_dir}/{candidate}: {reason}") from error
            print(f"warning: skipping checkpoint {checkpoint_dir}/{candidate}: {reason}", file=sys.stderr)
            continue
        if skipped:
            print(
                f"warning: using the newest good checkpoint, {checkpoint_dir}/{candidate}, "
                f"instead of {checkpoint_dir}/{skipped[0][0]}",
                file=sys.stderr,
            )
        return restored, candidate, skipped
    raise CorruptCheckpoint(
        f"no good checkpoint in {checkpoint_dir}: "
        + "; ".join(f"step {s}: {reason}" for s, reason in skipped)
    )


def restore(checkpoint_dir, template, step=None):
    """``(TrainState, meta, skipped)`` from the newest good checkpoint in ``checkpoint_dir``
    (or exactly ``step``), shaped like ``template`` (abstract is fine); ``skipped``: the
    newer steps that failed verification, ``(step, reason)``. A template whose leaves carry
    shardings (``jax.ShapeDtypeStruct(..., sharding=)``: a resume on a mesh, perhaps over
    several processes) gets its arrays so placed; otherwise they are this process's."""
    sharded = any(_has_sharding(x) for x in jax.tree.leaves(template))
    target = _on_this_process(template)
    restored, step, skipped = _restore_verified(
        checkpoint_dir,
        lambda _: {"state": ocp.args.StandardRestore(target), "meta": ocp.args.JsonRestore()},
        step,
    )
    check_finite(restored["state"].params, f"{Path(checkpoint_dir)}/{step}")
    state = restored["state"]
    if not sharded:
        # Uncommitted arrays, like a fresh state's: the resumed run's update then lowers to the
        # same program as the original run's (orbax returns committed arrays, a different key
        # for the compilation cache).
        state = jax.tree.map(lambda x: jnp.asarray(np.asarray(x)), state)
    return state, restored["meta"], skipped


def restore_params(checkpoint_dir, step=None):
    """``(params, meta)`` of the newest good checkpoint in ``checkpoint_dir`` (or exactly
    ``step``), without the training state; ``meta["update"]`` is the update it holds. The
    parameters come back on this process's device, whatever devices the run that saved them had."""

    def items(step_dir):
        # The handler's metadata, not the Checkpointer's: the item dir has no step metadata
        # file, and the Checkpointer warns that it is missing on every load.
        saved = ocp.StandardCheckpointHandler().metadata(step_dir / "params")
        return {"params": ocp.args.StandardRestore(_on_this_process(saved)), "meta": ocp.args.JsonRestore()}

    restored, step, _ = _restore_verified(checkpoint_dir, items, step)
    check_finite(restored["params"], f"{Path(checkpoint_dir)}/{step}")
    return restored["params"], restored["meta"]


def quarantine(checkpoint_dir, step):
    """Move a bad step out of the way (to ``checkpoints/corrupt/<kind>-<step>``), keeping its files."""
    checkpoint_dir = Path(checkpoint_dir)
    target = checkpoint_dir.parent / "corrupt" / f"{checkpoint_dir.name}-{step}"
    n = 1
    while target.exists():
        target = target.with_name(f"{checkpoint_dir.name}-{step}.{n}")
        n += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    (checkpoint_dir / str(step)).rename(target)
    return target
