"""What made a results file: the command, the commit, the date and the machine.

Every file of results the package writes carries this record, so that a number can be
traced to the code and the machine that produced it (and re-run).
"""

import datetime
import os
import platform
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import jax

PACKAGE = "lost-cities-rl"


ROOT = Path(__file__).resolve().parents[2]  # the checkout (site-packages when installed)


def relative(text):
    """``text`` with the checkout's absolute path taken out: a results file names the
    repository's files as a clone has them (``web/public/x.onnx``), not as one machine did."""
    if not (ROOT / ".git").exists():
        return text
    return str(text).replace(f"{ROOT}{os.sep}", "")


def command(argv=None):
    """The command line as typed: ``python -m lost_cities.<verb> ...`` for a package entry
    point, with paths into the checkout made relative to it (:func:`relative`)."""
    argv = list(sys.argv if argv is None else argv)
    program = Path(argv[0]) if argv else Path("python")
    module = _entry_module(program)
    head = ["python", "-m", module] if module else ["python", relative(program)]
    return shlex.join(head + [relative(arg) for arg in argv[1:]])


def _entry_module(program):
    """``lost_cities.<verb>`` when ``program`` is a file of the package run with ``-m``."""
    parts = program.with_suffix("").parts
    if "lost_cities" not in parts:
        return None
    module = ".".join(parts[parts.index("lost_cities") :])
    return module.removesuffix(".__main__")


def commit():
    """The checkout's commit (``+dirty`` with uncommitted changes to tracked files), or the
    installed package's version when the code does not run from a git checkout."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        try:
            return f"{PACKAGE} {metadata.version(PACKAGE)} (not a git checkout)"
        except metadata.PackageNotFoundError:
            return "unknown (not a git checkout, package not installed)"
    return head + ("+dirty" if dirty else "")


def machine():
    """The CPU, its cores and JAX's backend and devices."""
    cpu = platform.processor() or platform.machine()
    devices = jax.devices()
    return (
        f"{platform.system()} {platform.machine()} ({cpu}), {os.cpu_count()} CPU cores, "
        f"jax {jax.__version__} {jax.default_backend()} x{len(devices)} ({devices[0].device_kind})"
    )


def provenance(argv=None):
    """``{"command", "commit", "date", "machine"}`` of this process."""
    return {
        "command": command(argv),
        "commit": commit(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": machine(),
    }
