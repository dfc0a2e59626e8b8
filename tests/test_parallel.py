"""Data-parallel and multi-process training give the 1-device run's metrics and parameters.

XLA's device count is fixed when JAX starts, so each scenario runs in its own process:
this file is also the script (``python tests/test_parallel.py <scenario> ...``) that the
tests start. ``devices``: one process with 2 fake CPU devices trains the same run on 1
and on 2 devices. ``distributed``: two processes on localhost, one CPU device each, joined
by ``jax.distributed`` (gloo collectives), train the same run together.

Tolerance: the sharded program sums in a different order (per-device partial sums, then
an all-reduce), so floats may differ in the last bits; every metric and parameter must
agree to ``RTOL``/``ATOL`` after the run's updates (and the integer counts exactly).
"""

import faulthandler
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from processes import finish_together, free_port, joined

RTOL, ATOL = 1e-5, 1e-6

# A hang guard, not a budget: the two-process scenario took 327 and 348 s on the shared 2-core
# machine (load 8-11), where 300 s cut it in the resume, its last phase (the timeouts taken for
# a hang there). Each process compiles the run, and again in the resume (a new Trainer is a new
# jit); a persistent compile cache would spare process 0 only (JAX writes it from process 0,
# and process 1 found none of its programs there: sampled stacks), which then waits for
# process 1 at the first collective. A process that does hang prints its stacks when stopped.
TIMEOUT = 900
# A constant learning rate: a resume to more updates then runs the very program the run
# compiled (an annealed rate's schedule depends on the total), found in the compile cache.
CONSTANT_LR = ["ppo.anneal_lr=false"]


def _train(run_dir, overrides):
    """Train ``tiny_runs.SHORT`` + ``overrides``; returns the final state (the run dir holds
    what is compared)."""
    from tiny_runs import SHORT, make_cfg

    from lost_cities.training.loop import train

    return train(make_cfg(SHORT + overrides), run_dir, overrides=overrides)[1]


def _params(run_dir):
    from lost_cities.checkpoints import restore_params

    params, _ = restore_params(Path(run_dir) / "checkpoints" / "latest")
    import jax

    return {jax.tree_util.keystr(p): np.asarray(x) for p, x in jax.tree_util.tree_leaves_with_path(params)}


def _rows(run_dir):
    rows = [json.loads(line) for line in (Path(run_dir) / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if not k.startswith("time/")} for row in rows]


def assert_same_run(a, b, updates=3):
    """Two run dirs hold the same updates: metrics rows, gate results and parameters."""
    rows_a, rows_b = _rows(a), _rows(b)
    assert [r["update"] for r in rows_a] == [r["update"] for r in rows_b] == list(range(1, updates + 1))
    for row_a, row_b in zip(rows_a, rows_b, strict=True):
        assert row_a.keys() == row_b.keys()
        for key in row_a:
            assert row_a[key] == pytest.approx(row_b[key], rel=RTOL, abs=ATOL), (row_a["update"], key)
    gates_a, gates_b = (json.loads((Path(d) / "gates.json").read_text()) for d in (a, b))
    assert gates_a == gates_b  # the games are integers: the same moves, exactly
    params_a, params_b = _params(a), _params(b)
    assert params_a.keys() == params_b.keys()
    for name in params_a:
        np.testing.assert_allclose(params_a[name], params_b[name], rtol=RTOL, atol=ATOL, err_msg=name)


def _compile_cache(root):
    """JAX's persistent compilation cache in ``root``: the second 1-device resume compiles
    nothing (the same programs as the first)."""
    return {
        "JAX_COMPILATION_CACHE_DIR": str(root / "jax_cache"),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
        "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
    }


def _script(*args, env=None, **kwargs):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent), **(env or {})}
    return subprocess.Popen([sys.executable, __file__, *map(str, args)], env=env, **kwargs)


def _finish(process, what):
    out, _ = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, f"{what} failed:\n{out.decode()[-4000:]}"


@pytest.fixture(scope="module")
def device_runs(tmp_path_factory, full):
    """Run dirs of the same run on 1 and on 2 (fake CPU) devices, trained in one subprocess.

    --full only: the subprocess compiles the run twice (~1-2 min), more than the default
    suite's 20-minute CI budget has room for; the 1-device path runs in every training test."""
    if not full:
        pytest.skip("--full: the same run on 1 and on 2 (fake) devices")
    root = tmp_path_factory.mktemp("devices")
    env = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2", **_compile_cache(root)}
    _finish(_script("devices", root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT), "devices")
    return root


@pytest.mark.slow
def test_two_devices_match_one(device_runs):
    meta = json.loads((device_runs / "sharding.json").read_text())
    assert meta["device_count"] == 2
    # The env batch really is split: each device holds half the slots.
    assert meta["slots_shard_shapes"] == [[4], [4]]
    assert "ppo.num_envs=7 must be a multiple of the device count (2)" in meta["uneven_batch_error"]
    assert_same_run(device_runs / "one", device_runs / "two")


@pytest.mark.slow
def test_a_two_device_run_resumes_on_one(device_runs):
    """The 2-device run's checkpoint, resumed on 1 device for a 4th update, continues as the
    1-device run's own resume does."""
    assert_same_run(device_runs / "one_resumed", device_runs / "two_resumed", updates=4)


def test_device_counts_and_batches_are_checked_at_start():
    """In this (1-device) process: too many devices and a bad count are errors naming the fix;
    so is a distributed config that is not the processes joined (an uneven batch: below)."""
    import jax
    from tiny_runs import make_cfg

    from lost_cities import distributed, parallel
    from lost_cities.ppo import config as schema

    assert parallel.make_mesh("all").devices.size == jax.device_count()
    with pytest.raises(ValueError, match="pass devices=all or 1..1"):
        parallel.make_mesh(2)
    for bad in ("devices=0", "devices=some"):
        with pytest.raises(ValueError, match="devices="):
            schema.validate(make_cfg([bad]))
    with pytest.raises(ValueError, match="need distributed.coordinator"):
        schema.validate(make_cfg(["distributed.process_id=1"]))
    with pytest.raises(ValueError, match="JAX_COORDINATOR_ADDRESS"):
        distributed.check(
            make_cfg(
                ["distributed.coordinator=h:1", "distributed.num_processes=2", "distributed.process_id=1"]
            ).distributed
        )


@pytest.mark.slow
def test_two_processes_match_one_process(device_runs, tmp_path, full):
    """Two processes joined by jax.distributed train one run: process 0's run dir holds
    the 1-device run's metrics and parameters; process 1 writes nothing of its own. A copy,
    resumed by both processes for a 4th update (each restores its shards), continues as the
    1-device resume does. (--full: two more processes compile the run; 5.5-6 min, loaded.)"""
    if not full:
        pytest.skip("--full: two processes joined by jax.distributed")
    port = free_port()
    workers, logs = [], []
    for i in range(2):
        env = joined(port, i)
        logs.append(tmp_path / f"process{i}.log")
        with open(logs[-1], "w") as out:  # a file, not a pipe: nobody reads while they run
            args = ("distributed", tmp_path / f"hydra{i}", tmp_path / "resumed")
            workers.append(_script(*args, env=env, stdout=out, stderr=subprocess.STDOUT))
    finish_together(workers, logs, TIMEOUT)
    run_dir = tmp_path / "hydra0"
    assert not (tmp_path / "hydra1").exists()  # process 1 used process 0's run dir
    assert_same_run(device_runs / "one", run_dir)
    assert_same_run(device_runs / "one_resumed", tmp_path / "resumed", updates=4)


def _devices_scenario(root):
    import jax

    from lost_cities import parallel

    root = Path(root)
    _train(root / "one", [*CONSTANT_LR, "devices=1"])
    state = _train(root / "two", [*CONSTANT_LR, "devices=2"])
    slots = jax.tree.leaves(state.slots)[0]
    try:
        parallel.check_divides(parallel.make_mesh(2), 7, "ppo.num_envs")
        uneven = None
    except ValueError as error:
        uneven = str(error)
    meta = {
        "device_count": jax.device_count(),
        "slots_shard_shapes": [list(s.data.shape[:1]) for s in slots.addressable_shards],
        "uneven_batch_error": uneven,
    }
    (root / "sharding.json").write_text(json.dumps(meta))
    for name in ("one", "two"):  # copies of both, resumed on 1 device for one more update
        shutil.copytree(root / name, root / f"{name}_resumed")
        resume = [f"resume={root / name}_resumed", "ppo.total_decisions=1024", "devices=1"]
        _train(root / f"{name}_resumed", resume)


def _distributed_scenario(run_dir, resumed):
    import jax

    import lost_cities  # noqa: F401  joins the processes (the JAX_* variables) before any device use
    from lost_cities import distributed

    assert jax.process_count() == 2 and jax.device_count() == 2
    _phase("training")
    _train(Path(run_dir), CONSTANT_LR)
    if distributed.is_main():
        shutil.copytree(run_dir, resumed)
    distributed.barrier("the copy to resume is written")
    _phase("resuming")
    _train(Path(run_dir), [f"resume={resumed}", "ppo.total_decisions=1024"])
    _phase("done")


STARTED = time.monotonic()


def _phase(name):
    """A timestamped line in the process's output: where a slow or stuck process got to."""
    print(f"[{time.monotonic() - STARTED:6.1f} s] {name}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the stacks, when a test times out
    scenario, *args = sys.argv[1:]
    {"devices": _devices_scenario, "distributed": _distributed_scenario}[scenario](*args)
