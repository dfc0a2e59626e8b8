"""Processes that wait on each other (a multi-host run on localhost): a free port for their
coordinator, and waiting for them together."""

import signal
import socket
import time

import pytest


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def joined(port, process_id, processes=2):
    """The environment variables by which a process joins the others on localhost
    (lost_cities.distributed reads them when the package is imported)."""
    return {
        "JAX_COORDINATOR_ADDRESS": f"127.0.0.1:{port}",
        "JAX_NUM_PROCESSES": str(processes),
        "JAX_PROCESS_ID": str(process_id),
    }


def finish_together(processes, logs, timeout):
    """Wait for processes that wait on each other. When one fails the rest are stopped (they
    would wait at a barrier for ever); when they run past ``timeout`` together, each still
    running first prints every thread's Python stack (``faulthandler`` on ``SIGUSR1``: where
    it waits), then is stopped. The test then fails with every process's output: the one
    stuck at a barrier is often not the one whose error put it there."""
    deadline = time.monotonic() + timeout
    while any(p.poll() is None for p in processes):
        failed = any(p.poll() not in (None, 0) for p in processes)
        if failed or time.monotonic() > deadline:
            running = [p for p in processes if p.poll() is None]
            for p in running if not failed else ():
                p.send_signal(signal.SIGUSR1)
            time.sleep(0 if failed else 5)
            for p in running:
                p.kill()
            break
        time.sleep(0.5)
    outputs = []
    for process, log in zip(processes, logs, strict=True):
        process.wait()
        out = log.read_text(errors="replace")
        stopped = process.returncode == -signal.SIGKILL
        outputs.append(out + (f"\n[stopped after {timeout} s or another's failure]" if stopped else ""))
    if any(process.returncode != 0 for process in processes):
        report = "\n".join(
            f"--- process {i} (exit {process.returncode}):\n{out[-6000:]}"
            for i, (process, out) in enumerate(zip(processes, outputs, strict=True))
        )
        pytest.fail(f"the processes did not all finish:\n{report}")
