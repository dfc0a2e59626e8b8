"""Sweeps on real launchers: submitit's local executor and the Optuna sweeper run the
training CLI (``python -m lost_cities.train -m``), one run dir per job, one W&B group per sweep."""

import json
import os
import struct
import subprocess
import sys

import pytest
from omegaconf import OmegaConf
from tiny_runs import SHORT, make_cfg

TIMEOUT = 600


def _sweep(tmp_path, overrides):
    """Run a sweep of the tiny run with W&B offline; returns its run dirs, by job number."""
    sweep_dir = tmp_path / "sweep"
    run = [o for o in SHORT if not o.startswith("logger=")]
    run += ["logger=wandb", "evaluation.deals=4", "evaluation.batch_size=4", "evaluation.opponents=[random]"]
    command = [sys.executable, "-m", "lost_cities.train", "-m", *run]
    command += [*overrides, f"hydra.sweep.dir={sweep_dir}", "hydra.sweep.subdir=${hydra.job.num}"]
    env = {**os.environ, "WANDB_SILENT": "true"}
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return sorted((p for p in sweep_dir.iterdir() if (p / "config.yaml").exists()), key=lambda p: p.name)


def _wandb_group(run_dir):
    """The group of the run dir's offline W&B run, read back from its ``.wandb`` log: a
    7-byte header, then 32 KiB blocks of records (crc32, length, kind: 1 whole, 2..4 the
    first, middle and last pieces of one), each a protobuf ``Record``."""
    from wandb.proto import wandb_internal_pb2

    (log,) = (run_dir / "wandb").glob("offline-run-*/run-*.wandb")
    raw, block, pos, data = log.read_bytes(), 32768, 7, b""
    while pos + 7 <= len(raw):
        left = block - pos % block
        _, length, kind = struct.unpack("<IHB", raw[pos : pos + 7]) if left >= 7 else (0, 0, 0)
        if kind == 0:  # the block's zero padding
            pos += left
            continue
        data, pos = data + raw[pos + 7 : pos + 7 + length], pos + 7 + length
        if kind in (1, 4):
            record = wandb_internal_pb2.Record.FromString(data)
            if record.WhichOneof("record_type") == "run":
                return record.run.run_group
            data = b""
    raise AssertionError(f"no run record in {log}")


def _check_jobs(run_dirs, jobs):
    assert len(run_dirs) == jobs
    groups = {_wandb_group(d) for d in run_dirs}
    assert groups == {"default/sweep"}  # the experiment and the sweep dir's name
    for run_dir in run_dirs:
        rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
        assert [row["update"] for row in rows] == [1, 2, 3]
        assert (run_dir / "checkpoints" / "latest" / "3" / "sha256.json").exists()
    return [OmegaConf.load(d / "config.yaml") for d in run_dirs]


@pytest.mark.slow
def test_optuna_sweep_on_submitit_local(tmp_path, full):
    """Two Optuna trials of ent_coef and gae_lambda, scored on the smoke gate, run at once as
    two jobs of submitit's local executor (each its own process). (--full: about 45 s on 2
    idle cores.)"""
    if not full:
        pytest.skip("--full: a 2-trial Optuna sweep on submitit's local executor")
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    trials = ["hydra/sweeper=optuna_gates", "hydra.sweeper.n_trials=2", "hydra.sweeper.n_jobs=2"]
    trials.append("checkpoint.best_metric=gates/random/win_rate")  # the smoke gate's metric
    run_dirs = _sweep(tmp_path, [*trials, "hydra/launcher=local", "hydra.launcher.cpus_per_task=1"])
    assert len(list((tmp_path / "sweep" / ".submitit").glob("*/*_result.pkl"))) == 2  # submitit ran both
    configs = _check_jobs(run_dirs, 2)
    found = [(c.ppo.ent_coef, c.ppo.gae_lambda) for c in configs]
    assert len(set(found)) == 2
    assert all(0.001 <= e <= 0.03 and 0.9 <= lam <= 0.99 for e, lam in found)
    scores = []
    for run_dir in run_dirs:
        rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
        gated = [row["gates/random/win_rate"] for row in rows if "gates/random/win_rate" in row]
        scores.append(sum(gated) / len(gated))
    result = OmegaConf.load(tmp_path / "sweep" / "optimization_results.yaml")
    assert result.best_value == pytest.approx(max(scores))  # the objective: the gate metric's mean


@pytest.mark.slow
def test_submitit_local_grid_sweep(tmp_path, full):
    """A plain grid sweep (two seeds) on submitit's local executor (--full)."""
    if not full:
        pytest.skip("--full: a 2-job grid sweep on submitit's local executor")
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    run_dirs = _sweep(tmp_path, ["hydra/launcher=local", "hydra.launcher.cpus_per_task=1", "seed=0,1"])
    configs = _check_jobs(run_dirs, 2)
    assert [c.seed for c in configs] == [0, 1]
    rows = [(d / "metrics.jsonl").read_text() for d in run_dirs]
    assert rows[0] != rows[1]  # two seeds, two runs


def _launcher(name):
    cfg = make_cfg([f"hydra/launcher={name}"], return_hydra_config=True)
    return OmegaConf.to_container(cfg.hydra.launcher)


def test_slurm_differs_from_local_only_in_cluster_keys():
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    import lost_cities.ppo.config  # noqa: F401  the schemas the configs extend

    local, slurm = _launcher("local"), _launcher("slurm")
    shared = {k for k in local if k != "_target_"}
    assert {k: slurm[k] for k in shared} == {k: local[k] for k in shared}
    from hydra_plugins.hydra_submitit_launcher.config import SlurmQueueConf

    cluster_only = set(SlurmQueueConf.__dataclass_fields__) - set(local)
    assert set(slurm) - set(local) <= cluster_only
    assert slurm["_target_"].endswith(".SlurmLauncher") and local["_target_"].endswith(".LocalLauncher")
