"""``python -m lost_cities.improve`` refuses bad settings before it writes anything."""

import json
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
        ("teacher.hand=told", r"teacher\.hand='told'; choose one of \['model', 'real'\]"),
        ("+teacher.knobs.belief=bc-ppo-xi6-bal2700", r"teacher\.hand=real with a belief"),
    ],
)
def test_the_settings_are_checked_before_the_run_dir_is_made(tmp_path, override, named):
    """What the command runs first (in-process here): the schema's checks, which name the
    setting and its allowed values, before the run dir exists."""
    real = ["teacher.hand=real"] if "belief" in override else []
    with pytest.raises(Exception, match=named):
        prepare(tiny_cfg([override, *real]), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_oracle_teachers_worlds_hold_the_opponents_real_hand():
    """``teacher.hand=real`` deals the labeller's worlds with :func:`real_hand_world` (the real
    hand, the deck afresh: tested in test_labels.py); ``model`` with the search's own model."""
    from lost_cities.improvement import judge, loop

    cfg = tiny_cfg([])
    teacher = loop.teacher_config(cfg.teacher)
    args = (16, 1, 2.0, "sample", (), (0.0, 0))
    net = {"_target_": "lost_cities.networks.nets.ActorCritic", "hidden": [8], "activation": "relu"}
    network = json.dumps(net)
    assert loop._labeller(cfg.env.name, network, teacher, "real", *args).deal is judge.real_hand_world
    assert loop._labeller(cfg.env.name, network, teacher, "model", *args).deal is None  # uniform worlds
