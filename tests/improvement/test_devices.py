"""Generation and the gate spread over devices give the labels and results of one device
(each game is its own computation; only where it runs changes). Two fake CPU devices in a
separate process (XLA fixes the device count at start); ``--full``."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from tiny_loop import tiny_cfg

from lost_cities.improvement.loop import improve, prepare

SCRIPT = textwrap.dedent(
    """
    import sys
    from tiny_loop import tiny_cfg
    from lost_cities.improvement.loop import improve, prepare
    cfg, run_dir = prepare(tiny_cfg(["devices=2", "iterations=1"]), sys.argv[1])
    improve(cfg, run_dir)
    """
)


def test_two_devices_make_the_labels_and_gate_of_one(tmp_path, full):
    if not full:
        pytest.skip("--full: a two-device process of the tiny loop")
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__), env.get("PYTHONPATH", "")])
    two = tmp_path / "two"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(two)], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    cfg, one = prepare(tiny_cfg(["iterations=1"]), tmp_path / "one")
    improve(cfg, one)
    for chunk in sorted((one / "labels" / "0001").glob("*.npz")):
        with np.load(chunk) as a, np.load(two / "labels" / "0001" / chunk.name) as b:
            assert a.files == b.files
            for name in a.files:
                np.testing.assert_array_equal(a[name], b[name], err_msg=f"{chunk.name}:{name}")
    assert (one / "gates" / "0001.json").read_text() == (two / "gates" / "0001.json").read_text()
