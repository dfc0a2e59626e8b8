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

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

RTOL, ATOL = 1e-5, 1e-6

TIMEOUT = 300


def _train(run_dir, overrides):
    """Train ``tiny_runs.SHORT`` + ``overrides``; the run dir holds what is compared."""
    from tiny_runs import SHORT, make_cfg

    from lost_cities.cli.train import train

    train(make_cfg(SHORT + overrides), run_dir, overrides=[])


def _params(run_dir):
    from lost_cities.ppo.checkpoint import restore_params

    params, _ = restore_params(Path(run_dir) / "checkpoints" / "latest")
    import jax

    return {jax.tree_util.keystr(p): np.asarray(x) for p, x in jax.tree_util.tree_leaves_with_path(params)}


def _rows(run_dir):
    rows = [json.loads(line) for line in (Path(run_dir) / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if not k.startswith("time/")} for row in rows]


def assert_same_run(a, b):
    """Two run dirs hold the same updates: metrics rows, gate results and parameters."""
    rows_a, rows_b = _rows(a), _rows(b)
    assert [r["update"] for r in rows_a] == [r["update"] for r in rows_b] == [1, 2, 3]
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


def _script(*args, env=None, **kwargs):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent), **(env or {})}
    return subprocess.Popen([sys.executable, __file__, *map(str, args)], env=env, **kwargs)


def _finish(process, what):
    out, _ = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, f"{what} failed:\n{out.decode()[-4000:]}"


@pytest.fixture(scope="module")
def device_runs(tmp_path_factory):
    """Run dirs of the same run on 1 and on 2 (fake CPU) devices, trained in one subprocess."""
    root = tmp_path_factory.mktemp("devices")
    env = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    _finish(_script("devices", root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT), "devices")
    return root


def test_two_devices_match_one(device_runs):
    meta = json.loads((device_runs / "sharding.json").read_text())
    assert meta["device_count"] == 2
    # The env batch really is split: each device holds half the slots.
    assert meta["slots_shard_shapes"] == [[4], [4]]
    assert_same_run(device_runs / "one", device_runs / "two")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_processes_match_one_process(device_runs, tmp_path):
    """Two processes joined by jax.distributed train one run: process 0's run dir holds
    the 1-device run's metrics and parameters; process 1 writes nothing of its own."""
    port = _free_port()
    workers = []
    for i in range(2):
        env = {
            "JAX_COORDINATOR_ADDRESS": f"127.0.0.1:{port}",
            "JAX_NUM_PROCESSES": "2",
            "JAX_PROCESS_ID": str(i),
        }
        out = {"stdout": subprocess.PIPE, "stderr": subprocess.STDOUT}
        workers.append(_script("distributed", tmp_path / f"hydra{i}", env=env, **out))
    for i, worker in enumerate(workers):
        _finish(worker, f"process {i}")
    run_dir = tmp_path / "hydra0"
    assert not (tmp_path / "hydra1").exists()  # process 1 used process 0's run dir
    assert_same_run(device_runs / "one", run_dir)


def _devices_scenario(root):
    import jax

    root = Path(root)
    _train(root / "one", ["devices=1"])
    _train(root / "two", ["devices=2"])
    from tiny_runs import SHORT, make_cfg

    from lost_cities import parallel
    from lost_cities.ppo.trainer import Trainer

    mesh = parallel.make_mesh(2)
    trainer = Trainer.from_config(make_cfg(SHORT + ["devices=2"]))
    state = trainer.init(0)
    state = parallel.place(state, parallel.state_shardings(state, mesh))
    leaf = jax.tree.leaves(state.slots)[0]
    meta = {
        "device_count": jax.device_count(),
        "slots_shard_shapes": [list(s.data.shape[:1]) for s in leaf.addressable_shards],
    }
    (root / "sharding.json").write_text(json.dumps(meta))


def _distributed_scenario(run_dir):
    import jax

    import lost_cities  # noqa: F401  joins the processes (the JAX_* variables) before any device use

    assert jax.process_count() == 2 and jax.device_count() == 2
    _train(Path(run_dir), [])


if __name__ == "__main__":
    scenario, *args = sys.argv[1:]
    {"devices": _devices_scenario, "distributed": _distributed_scenario}[scenario](*args)
