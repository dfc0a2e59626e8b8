"""Label files on disk (lost_cities/improvement/dataset.py)."""

import numpy as np
import pytest

from lost_cities.improvement import dataset
from lost_cities.improvement.distill import full_target


def chunk(path, n, candidates, seed):
    rng = np.random.default_rng(seed)
    actions = np.stack([rng.permutation(96)[:candidates] for _ in range(n)]).astype(np.int32)
    target = rng.dirichlet(np.ones(candidates), size=n).astype(np.float32)
    labels = {
        "obs": rng.normal(size=(n, 5)).astype(np.float32),
        "actions": actions,
        "target": target,
        "label": actions[:, 0],
    }
    dataset.write_chunk(path, labels, games={})
    return labels


def test_labels_of_teachers_with_other_candidate_counts_pool_with_the_same_targets(tmp_path):
    """A run whose prior labelled 4 candidates and which labels 2 pools both: the narrower
    labels are widened with target 0, so each soft target over the actions is unchanged."""
    four = chunk(tmp_path / "a.npz", 6, 4, 0)
    two = chunk(tmp_path / "b.npz", 5, 2, 1)
    pooled = dataset.read_labels([tmp_path / "a.npz", tmp_path / "b.npz"])
    assert pooled["actions"].shape == (11, 4) and pooled["target"].shape == (11, 4)
    for part, rows in ((four, slice(0, 6)), (two, slice(6, 11))):
        mine = full_target(pooled["actions"][rows], pooled["target"][rows], pooled["label"][rows], "soft")
        theirs = full_target(part["actions"], part["target"], part["label"], "soft")
        np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), atol=1e-7)
    np.testing.assert_array_equal(pooled["obs"], np.concatenate([four["obs"], two["obs"]]))


def test_labels_of_another_observation_do_not_pool(tmp_path):
    chunk(tmp_path / "a.npz", 3, 2, 0)
    rng = np.random.default_rng(2)
    labels = {
        "obs": rng.normal(size=(3, 7)).astype(np.float32),
        "actions": np.zeros((3, 2), np.int32),
        "target": np.full((3, 2), 0.5, np.float32),
        "label": np.zeros(3, np.int32),
    }
    dataset.write_chunk(tmp_path / "b.npz", labels, games={})
    with pytest.raises(ValueError, match="not shaped as"):
        dataset.read_labels([tmp_path / "a.npz", tmp_path / "b.npz"])
