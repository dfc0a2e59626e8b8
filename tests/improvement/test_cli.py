"""``python -m lost_cities.improve`` refuses bad settings before it writes anything."""

import subprocess
import sys

import pytest
from tiny_loop import tiny_cfg

from lost_cities.improvement.resume import prepare


@pytest.mark.parametrize(
    "override, named",
    [
        ("student.init=bogus", "student.init"),
        ("gate.deals=0", "gate.deals"),
        ("start=heuristic_expert", "start="),
    ],
)
@pytest.mark.slow
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


@pytest.mark.parametrize(
    "override, named",
    [
        ("student.init=bogus", r"student\.init='bogus'; choose one of \['fresh', 'champion'\]"),
        ("gate.deals=0", r"gate\.deals=0 must be a whole number > 0"),
        ("+generate.opponents={random: 0.7, discard_only: 0.5}", "together at most 1"),
        ("teacher.temperature=0", r"teacher\.temperature=0.* must be > 0"),
        ("teacher.escalate.worlds=0", r"teacher\.escalate: share=0\.5 and worlds=0 are both set or both 0"),
        ("teacher.escalate.share=1.5", r"teacher\.escalate\.share=1\.5: a share, 0 to 1"),
    ],
)
def test_the_settings_are_checked_before_the_run_dir_is_made(tmp_path, override, named):
    """What the command runs first (in-process here): the schema's checks, which name the
    setting and its allowed values, before the run dir exists."""
    with pytest.raises(Exception, match=named):
        prepare(tiny_cfg([override]), tmp_path / "run")
    assert not (tmp_path / "run").exists()
