"""Generation and the gate spread over devices, or over processes joined by
``jax.distributed``, give the labels and results of one device (each game is its own
computation; only where it runs changes). Two fake CPU devices in a separate process (XLA
fixes the device count at start), and two processes of the command on localhost (one CPU
device each, gloo collectives); ``--full``."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from processes import finish_together, free_port, joined
from tiny_loop import TINY, tiny_cfg

from lost_cities.improvement.loop import improve
from lost_cities.improvement.resume import prepare

SCRIPT = textwrap.dedent(
    """
    import sys
    from tiny_loop import tiny_cfg
    from lost_cities.improvement.loop import improve
    from lost_cities.improvement.resume import prepare
    cfg, run_dir = prepare(tiny_cfg(["devices=2", "iterations=1"]), sys.argv[1])
    improve(cfg, run_dir)
    """
)


@pytest.fixture(scope="module")
def one_device(tmp_path_factory, full):
    """The tiny loop's first iteration on this process's one device."""
    if not full:
        pytest.skip("--full: the tiny loop on several devices or processes")
    cfg, one = prepare(tiny_cfg(["iterations=1"]), tmp_path_factory.mktemp("one") / "run")
    improve(cfg, one)
    return one


def assert_same_iteration(one, other):
    """The same label chunks and the same gate: the labels, the student and its games agree."""
    chunks = sorted((one / "labels" / "0001").glob("*.npz"))
    assert chunks
    for chunk in chunks:
        with np.load(chunk) as a, np.load(other / "labels" / "0001" / chunk.name) as b:
            assert a.files == b.files
            for name in a.files:
                np.testing.assert_array_equal(a[name], b[name], err_msg=f"{chunk.name}:{name}")
    assert (one / "gates" / "0001.json").read_text() == (other / "gates" / "0001.json").read_text()


@pytest.mark.slow
def test_two_devices_make_the_labels_and_gate_of_one(one_device, tmp_path):
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    two = tmp_path / "two"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(two)], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert_same_iteration(one_device, two)


@pytest.mark.slow
def test_two_processes_run_the_loop_together_as_one(one_device, tmp_path):
    """``python -m lost_cities.improve`` in two processes joined by jax.distributed: process
    0's run dir gets the one-device run's labels and gate; process 1 writes nothing of its own."""
    port = free_port()
    workers, logs = [], []
    for i in range(2):
        env = {**os.environ, **joined(port, i)}
        command = [sys.executable, "-m", "lost_cities.improve", *TINY, "iterations=1"]
        logs.append(tmp_path / f"process{i}.log")
        with open(logs[-1], "w") as out:  # a file, not a pipe: nobody reads while they run
            workers.append(
                subprocess.Popen(
                    [*command, f"hydra.run.dir={tmp_path / f'hydra{i}'}"],
                    env=env,
                    cwd=tmp_path,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )
    finish_together(workers, logs, timeout=900)
    assert not (tmp_path / "hydra1").exists()  # process 1 used process 0's run dir
    assert_same_iteration(one_device, tmp_path / "hydra0")
    rows = (tmp_path / "hydra0" / "iterations.jsonl").read_text().splitlines()
    assert [json.loads(r)["iteration"] for r in rows] == [0, 1]


def test_more_devices_than_the_process_sees_are_refused_before_the_run_dir_is_made(tmp_path):
    """devices=N counts the devices the run sees (here one CPU device): more is an error
    naming what it sees, raised before anything is written."""
    import jax

    assert jax.device_count() == 1
    with pytest.raises(ValueError, match=r"devices=2: this run sees 1 cpu device\(s\)"):
        prepare(tiny_cfg(["devices=2"]), tmp_path / "run")
    assert not (tmp_path / "run").exists()
