"""``python -m lost_cities.improve`` refuses bad settings before it writes anything."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "override, named",
    [
        ("student.init=bogus", "student.init"),
        ("gate.deals=0", "gate.deals"),
        ("start=heuristic_expert", "start="),
    ],
)
def test_bad_settings_are_refused_naming_them_and_leave_no_run_dir(tmp_path, override, named):
    run_dir = tmp_path / "outputs" / "run"
    done = subprocess.run(
        [sys.executable, "-m", "lost_cities.improve", override, "logger=none", f"hydra.run.dir={run_dir}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2  # bad input, not a crash
    assert "error: " in done.stderr and named in done.stderr and "Traceback" not in done.stderr
    assert not run_dir.exists()
