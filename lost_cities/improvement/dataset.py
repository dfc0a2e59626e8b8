"""The labels on disk: one ``.npz`` file per generated chunk, written whole or not at all.

``labels/<iteration>/chunk-<k>.npz`` holds the chunk's labelled decisions and the games'
carry after it (their states and key), so a generation stopped anywhere resumes at the first
missing chunk from exactly the games the last written one left: nothing made is made again,
and the labels are the ones an uninterrupted run makes. A distillation reads the pooled
labels of the last ``window`` iterations.
"""

import os
from pathlib import Path

import jax
import numpy as np

from lost_cities.improvement.labels import Games

CARRY = "carry/"  # prefix of the games' leaves in a chunk file


def iteration_dir(run_dir, iteration):
    return Path(run_dir) / "labels" / f"{iteration:04d}"


def chunk_path(run_dir, iteration, chunk):
    return iteration_dir(run_dir, iteration) / f"chunk-{chunk:03d}.npz"


def write_chunk(path, labels, games):
    """Write ``labels`` (a dict of arrays) and the ``games`` carry to ``path`` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {name: np.asarray(value) for name, value in labels.items()}
    for i, leaf in enumerate(jax.tree.leaves(games)):
        arrays[f"{CARRY}{i}"] = np.asarray(leaf)  # legacy uint32 keys: plain arrays
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def read_carry(path, template: Games):
    """The games carry stored in chunk file ``path``, shaped like ``template``."""
    leaves, treedef = jax.tree.flatten(template)
    with np.load(path) as data:
        stored = [data[f"{CARRY}{i}"] for i in range(len(leaves))]
    for i, (leaf, value) in enumerate(zip(leaves, stored, strict=True)):
        if value.shape != np.shape(leaf) or value.dtype != np.asarray(leaf).dtype:
            raise ValueError(
                f"{path}: games carry leaf {i} is {value.dtype}{value.shape}, this run's is "
                f"{np.asarray(leaf).dtype}{np.shape(leaf)} (labels of another config)"
            )
    return jax.tree.unflatten(treedef, [jax.numpy.asarray(v) for v in stored])


CANDIDATE_ARRAYS = ("actions", "target")  # [n, candidates]: a teacher's candidate count may differ


def read_labels(paths):
    """The labelled decisions of chunk files ``paths``, concatenated (the carry left out).
    Labels of teachers with fewer candidates are widened to the most: the extra candidates
    repeat the champion's move with target 0, so every soft target spreads as it did."""

    def layout(part):
        return {
            name: (value.dtype, value.shape[1:] if name not in CANDIDATE_ARRAYS else value.shape[2:])
            for name, value in part.items()
        }

    parts = []
    for path in paths:
        with np.load(path) as data:
            parts.append({name: data[name] for name in data.files if not name.startswith(CARRY)})
        if layout(parts[-1]) != layout(parts[0]):
            raise ValueError(
                f"{path}: its labels are not shaped as {paths[0]}'s (another env or observation)"
            )
    if not parts:
        raise ValueError("no label files to read")
    width = max(p["actions"].shape[1] for p in parts)
    for part in parts:
        extra = width - part["actions"].shape[1]
        part["actions"] = np.concatenate([part["actions"], np.repeat(part["actions"][:, :1], extra, 1)], 1)
        part["target"] = np.pad(part["target"], ((0, 0), (0, extra)))
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def count(paths):
    """The labelled decisions in chunk files ``paths`` (a chunk's count varies with an opponent mix)."""
    total = 0
    for path in paths:
        with np.load(path) as data:
            total += len(data["label"])
    return total


def chunk_paths(run_dir, iteration, chunks):
    """The ``chunks`` chunk files of ``iteration``; an error if one is missing."""
    paths = [chunk_path(run_dir, iteration, k) for k in range(chunks)]
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise FileNotFoundError(f"labels missing (generation did not finish): {missing[:3]}")
    return paths


def span_paths(run_dir, first, last, chunks):
    """The chunk files of iterations ``first..last`` of a run, oldest first."""
    return [p for i in range(first, last + 1) for p in chunk_paths(run_dir, i, chunks)]


def pooled(run_dir, iteration, window, chunks, priors=()):
    """The labels of iterations ``iteration - window + 1 .. iteration`` (those that exist from
    1), newest last; where the window reaches before iteration 1, the newest iterations of the
    earlier runs ``priors`` (``(run_dir, iterations, chunks)`` each, the nearest first: a
    run's prior, then that run's own prior, ...) fill it."""
    first = max(1, iteration - window + 1)
    paths = span_paths(run_dir, first, iteration, chunks)
    missing = window - (iteration - first + 1)
    for prior_dir, prior_last, prior_chunks in priors:
        if missing <= 0:
            break
        oldest = max(1, prior_last - missing + 1)
        paths = span_paths(prior_dir, oldest, prior_last, prior_chunks) + paths
        missing -= prior_last - oldest + 1
    return read_labels(paths)
