"""The run dir's lock (lost_cities/training/lock.py): while a run writes into its dir a
second run of that dir is refused, naming the holder's pid; a holder killed with ``kill -9``
leaves a lock file that does not block the next run; a run that ends leaves no lock file.

The end-to-end test runs ``python -m lost_cities.train`` on tests/tiny_runs.py's shared
config (constant learning rate, so the killed run and its resume compile one program,
shared through a persistent compilation cache)."""

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
from tiny_runs import SHARED

from lost_cities.checkpoints import latest_step
from lost_cities.training.lock import LOCK_FILE, RunDirLocked, hold
from lost_cities.training.run_dir import read_metrics

HOLDER = """
import sys, time
from lost_cities.training.lock import hold
with hold(sys.argv[1]):
    print("held", flush=True)
    time.sleep(600)
"""

TRY = """
import sys
from lost_cities.training.lock import RunDirLocked, hold
try:
    with hold(sys.argv[1]):
        print("acquired")
except RunDirLocked as error:
    print(error)
    sys.exit(3)
"""


def _python(code, *args):
    return [sys.executable, "-c", textwrap.dedent(code), *map(str, args)]


def _wait_for(predicate, what, process=None, timeout=240):
    deadline = time.monotonic() + timeout
    while not predicate():
        if process is not None and process.poll() is not None:
            output = process.stdout.read()
            pytest.fail(f"{what}: the process ended first (exit {process.returncode}):\n{output}")
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout} s")
        time.sleep(0.2)


def test_a_lock_is_reentrant_in_its_process_and_leaves_nothing_behind(tmp_path):
    run_dir = tmp_path / "made" / "run"
    with hold(run_dir):
        holder = json.loads((run_dir / LOCK_FILE).read_text())
        assert holder["pid"] == os.getpid() and holder["host"] == socket.gethostname()
        with hold(run_dir):  # run() holds it around train(), which holds it too
            (run_dir / "metrics.jsonl").write_text("")
        assert (run_dir / LOCK_FILE).exists()  # the inner release kept the outer's lock
    assert sorted(p.name for p in run_dir.iterdir()) == ["metrics.jsonl"]
    with hold(tmp_path / "refused" / "run"):  # nothing written: the dirs made for the lock go
        pass
    assert not (tmp_path / "refused").exists()


@pytest.mark.slow
def test_another_process_is_refused_naming_the_holder_and_gets_it_once_released(tmp_path):
    with hold(tmp_path):
        done = subprocess.run(_python(TRY, tmp_path), capture_output=True, text=True)
        assert done.returncode == 3, done.stdout + done.stderr
        assert f"process {os.getpid()} on {socket.gethostname()}" in done.stdout
        assert f"{tmp_path} is in use" in done.stdout
    done = subprocess.run(_python(TRY, tmp_path), capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "acquired", done.stderr
    assert not (tmp_path / LOCK_FILE).exists()


def test_the_lock_of_a_killed_holder_does_not_block(tmp_path):
    holder = subprocess.Popen(_python(HOLDER, tmp_path), stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(RunDirLocked, match=f"process {holder.pid} "), hold(tmp_path):
            pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # The killed holder's file is still there, naming it; its lock went with it.
    assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == holder.pid
    with hold(tmp_path):
        assert json.loads((tmp_path / LOCK_FILE).read_text())["pid"] == os.getpid()
    assert not (tmp_path / LOCK_FILE).exists()


def _train_command(*overrides):
    return [sys.executable, "-m", "lost_cities.train", "progress=false", *overrides]


@pytest.mark.slow
def test_a_second_resume_while_the_run_trains_is_refused_and_after_kill_9_a_resume_proceeds(tmp_path):
    """Before: both wrote checkpoints and metrics rows into the one dir."""
    run_dir = tmp_path / "run"
    env = {
        **os.environ,
        "JAX_COMPILATION_CACHE_DIR": str(tmp_path / "jax_cache"),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    }
    small_evaluation = ["evaluation.deals=2", "evaluation.batch_size=2", "evaluation.opponents=[random]"]
    endless = "ppo.total_decisions=1024000000"  # 1,000,000 updates: it runs until killed
    first = subprocess.Popen(
        _train_command(
            *SHARED, "ppo.anneal_lr=false", *small_evaluation, endless, f"hydra.run.dir={run_dir}"
        ),
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        _wait_for(lambda: latest_step(run_dir) is not None, "the first run's first checkpoint", first)
        second = subprocess.run(
            _train_command(f"resume={run_dir}"), cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert first.poll() is None  # the first run was training all along
        assert second.returncode != 0
        assert f"{run_dir} is in use: process {first.pid} on {socket.gethostname()}" in second.stderr
        assert "resume: continuing" not in second.stdout + second.stderr
    finally:
        first.send_signal(signal.SIGKILL)
        first.communicate()
    assert first.returncode == -signal.SIGKILL
    assert json.loads((run_dir / LOCK_FILE).read_text())["pid"] == first.pid  # stale, left by the kill

    total = latest_step(run_dir) + 1
    third = subprocess.run(
        _train_command(f"resume={run_dir}", f"ppo.total_decisions={total * 1024}"),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert third.returncode == 0, third.stderr[-3000:]
    assert "resume: continuing" in third.stdout
    assert [row["update"] for row in read_metrics(run_dir)] == list(range(1, total + 1))
    assert (run_dir / "evaluation.json").exists() and not (run_dir / LOCK_FILE).exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jax_cache", "run"]  # Hydra's resume dirs went


@pytest.mark.slow
def test_a_pretrain_into_a_held_dir_is_refused_before_it_writes(tmp_path):
    """``python -m lost_cities.pretrain`` holds its run dir's lock as training does."""
    from lost_cities.ppo.config import compose
    from lost_cities.training.pretrain import pretrain

    cfg = compose(["logger=none", "init=bc"])
    holder = subprocess.Popen(_python(HOLDER, tmp_path), stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(RunDirLocked, match=f"process {holder.pid} "):
            pretrain(cfg, tmp_path)
        assert [p.name for p in tmp_path.iterdir()] == [LOCK_FILE]  # nothing written beside the holder's lock
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
