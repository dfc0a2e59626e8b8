"""A run dir's lock: one process at a time writes into a run dir.

``<run dir>/.lock`` holds an exclusive ``fcntl.flock`` while a run (new or resumed) writes
there, and says who holds it (pid, host, start time). A second run of the same dir is
refused at once, naming the holder. ``flock`` rather than a pid file: the kernel drops the
lock when its holder dies however it dies (``kill -9`` included), so a stale lock file
never blocks and no pid liveness check (wrong across hosts, fooled by reused pids) is
needed; it is the standard library's, so no dependency (``filelock`` is not installed
here, and its Unix lock is this same ``flock``). On a network file system ``flock``
holds across hosts only where the mount supports it (NFSv4 on Linux does).

The lock is taken before anything is checked or written and released (its file removed)
when the run ends, so a refused or finished run leaves no lock file; a killed one leaves
a file that the next run simply takes over. Within one process the lock is re-entrant
(:func:`hold` nests: ``run`` holds it around ``train`` and the closing evaluation).
"""

import contextlib
import fcntl
import json
import os
import socket
import time
from pathlib import Path

LOCK_FILE = ".lock"

_held = {}  # run dir -> [file descriptor, depth] of the locks this process holds


class RunDirLocked(RuntimeError):
    """Another process holds the run dir's lock."""


def _holder(path):
    """What the lock file says of its holder (a few tries: it may be between open and write)."""
    for _ in range(20):
        with contextlib.suppress(OSError, ValueError):
            holder = json.loads(path.read_text())
            if isinstance(holder, dict) and "pid" in holder:
                return holder
        time.sleep(0.05)
    return None


def _acquire(run_dir):
    """Lock ``run_dir`` (which exists); returns the lock file's descriptor or raises
    :class:`RunDirLocked`. A lock file removed by its releasing holder between our open and
    our lock is opened again (we would otherwise hold a lock on a file nobody else sees)."""
    path = run_dir / LOCK_FILE
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = _holder(path)
            who = (
                f"process {holder['pid']} on {holder.get('host', '?')} (since {holder.get('started', '?')})"
                if holder
                else "another process"
            )
            raise RunDirLocked(
                f"{run_dir} is in use: {who} is writing into it (lock: {path}). Two runs never "
                "write into one dir: wait for that run to end or stop it (a stopped or killed run "
                "releases its lock), then resume it"
            ) from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    os.ftruncate(fd, 0)
    os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": started}).encode())
    os.fsync(fd)
    return fd


def _missing_parents(run_dir):
    """``run_dir`` and its parents that do not exist yet, outermost first."""
    missing = []
    for path in (run_dir, *run_dir.parents):
        if path.exists():
            break
        missing.append(path)
    return missing[::-1]


@contextlib.contextmanager
def hold(run_dir):
    """Hold ``run_dir``'s lock for the block (re-entrant in one process). A dir that does
    not exist yet is made for the lock and, if the block leaves it empty, removed again with
    the parents made for it: a refused run leaves nothing behind."""
    run_dir = Path(run_dir).absolute()
    if run_dir in _held:
        _held[run_dir][1] += 1
        try:
            yield
        finally:
            _held[run_dir][1] -= 1
        return
    made = _missing_parents(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = _acquire(run_dir)
    except BaseException:
        _remove_empty(made)
        raise
    _held[run_dir] = [fd, 1]
    try:
        yield
    finally:
        del _held[run_dir]
        with contextlib.suppress(FileNotFoundError):
            (run_dir / LOCK_FILE).unlink()  # still locked: a newcomer that opened it retries
        os.close(fd)
        _remove_empty(made)


def _remove_empty(made):
    for path in reversed(made):
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()
