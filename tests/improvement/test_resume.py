"""The loop resumes bit-exactly after a stop in each phase: a run stopped right after a step
of generation, the judge, distillation, the gate or the record, then resumed, leaves the same labels,
students, champions and rows as a run never stopped.

A stop is a real ``kill -9`` of a separate process (all runs share one persistent
compilation cache), or, to keep the default test run short, for all phases but one an
exception raised in-process at the same step: the loop writes every step's files
atomically before the step is reported, and runs no cleanup, so both leave the same files.
``--full`` kills a process in every phase."""

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.flatten_util
import numpy as np
import pytest
from tiny_loop import rows_without_times, tiny_cfg

from lost_cities import models
from lost_cities.checkpoints import restore_params
from lost_cities.envs import make as make_env
from lost_cities.improvement.loop import improve
from lost_cities.improvement.resume import prepare
from lost_cities.improvement.run_dir import read_rows
from lost_cities.policies import make_policy

pytestmark = pytest.mark.xdist_group("improvement_resume")  # one worker builds the module's fixtures once

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def cache_dir(jax_cache):
    """The session's persistent compilation cache (tests/conftest.py), shared with the killed process."""
    return jax_cache


@pytest.fixture(scope="module")
def reference(tmp_path_factory, cache_dir):
    """The tiny loop run to its end without a stop."""
    cfg, run_dir = prepare(tiny_cfg(), tmp_path_factory.mktemp("reference") / "run")
    improve(cfg, run_dir)
    return run_dir


def label_digests(run_dir):
    """Every label file's arrays -> sha256 (the files' bytes hold no timestamps, but compare the arrays)."""
    digests = {}
    for path in sorted(Path(run_dir, "labels").rglob("*.npz")):
        with np.load(path) as data:
            for name in data.files:
                key = f"{path.relative_to(run_dir)}:{name}"
                digests[key] = hashlib.sha256(np.ascontiguousarray(data[name]).tobytes()).hexdigest()
    return digests


def params_of(run_dir, relative):
    params, _ = restore_params(Path(run_dir) / relative / "checkpoints" / "latest")
    return np.asarray(jax.flatten_util.ravel_pytree(params)[0])


class Stop(Exception):
    pass


def kill_process(run_dir, cache_dir, phase, iteration, detail):
    env = {
        **os.environ,
        "JAX_COMPILATION_CACHE_DIR": str(cache_dir),
        "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0.5",
    }
    args = [str(run_dir), phase, str(iteration)] + ([] if detail is None else [str(detail)])
    killed = subprocess.run(
        [sys.executable, str(HERE / "tiny_loop.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert killed.returncode == -9, killed.stderr[-3000:]  # it died by SIGKILL at that step, not otherwise


def stop_in_process(run_dir, phase, iteration, detail):
    def on_step(*step):
        if step == (phase, iteration, detail):
            raise Stop

    cfg, run_dir = prepare(tiny_cfg(), run_dir)
    with pytest.raises(Stop):
        improve(cfg, run_dir, on_step=on_step)


STEPS = [
    ("generate", 1, 0),
    ("judge", 1, None),
    ("distill", 1, 1),
    ("gate", 1, None),
    ("record", 1, None),
    ("generate", 2, 0),
]


@pytest.mark.parametrize("phase, iteration, detail", STEPS)
@pytest.mark.slow
def test_a_run_stopped_in_any_phase_resumes_to_the_same_result(
    tmp_path, reference, cache_dir, full, phase, iteration, detail
):
    run_dir = tmp_path / "run"
    if full or (phase, iteration, detail) == STEPS[0]:
        kill_process(run_dir, cache_dir, phase, iteration, detail)
    else:
        stop_in_process(run_dir, phase, iteration, detail)
    state_before = (run_dir / "state.json").read_text()
    cfg, run_dir = prepare(tiny_cfg(["resume=" + str(run_dir)]), run_dir)
    improve(cfg, run_dir)
    assert state_before != (run_dir / "state.json").read_text()  # the resume did the rest
    assert rows_without_times(read_rows(run_dir)) == rows_without_times(read_rows(reference))
    assert label_digests(run_dir) == label_digests(reference)
    for relative in ("champions/0000", "students/0001", "students/0002"):
        np.testing.assert_array_equal(params_of(run_dir, relative), params_of(reference, relative))
    assert (run_dir / "state.json").read_text() == (reference / "state.json").read_text()


@pytest.mark.slow
def test_the_rows_follow_the_promotion_rule_and_name_the_champion(reference):
    rows = read_rows(reference)
    assert [r["iteration"] for r in rows] == [0, 1, 2]
    champion = "champions/0000"
    for row in rows[1:]:
        assert row["promoted"] == (row["gate/margin_lower"] > 0)  # gate.rule=margin
        champion = f"students/{row['iteration']:04d}" if row["promoted"] else champion
        assert row["champion"] == champion
        assert row["labels/made"] == 2 * 4 * 4 and row["gate/deals"] == 4
        gate = json.loads((reference / "gates" / f"{row['iteration']:04d}.json").read_text())
        assert gate["deals_first"] == 20000 + 4 * (row["iteration"] - 1)  # fresh deals, gate after gate
        assert 0 <= row["student/accuracy"] <= 1 and row["time/iteration"] > 0
    state = json.loads((reference / "state.json").read_text())
    assert state == {"iteration": 2, "champion": champion, "champion_iteration": int(champion[-4:])}
    assert (reference / "curve.png").stat().st_size > 0


@pytest.mark.slow
def test_students_and_champions_are_agents_every_command_takes(reference):
    env = make_env("single_round")
    policy = make_policy(str(reference / "students" / "0002"), env)
    state = env.init(jax.random.PRNGKey(0))
    assert bool(env.legal_mask(state)[int(policy(state, jax.random.PRNGKey(1)))])
    assert models.load(reference / "champions" / "0000").meta["env"] == "single_round"


@pytest.mark.slow
def test_a_resume_refuses_a_changed_setting_and_a_dir_that_is_no_run(reference, tmp_path):
    with pytest.raises(ValueError, match=r"student\.lr"):
        prepare(tiny_cfg([f"resume={reference}", "student.lr=0.5"]), reference)
    with pytest.raises(FileNotFoundError, match="no config.yaml"):
        prepare(tiny_cfg([f"resume={tmp_path}"]), tmp_path)
    cfg, _ = prepare(tiny_cfg([f"resume={reference}", "iterations=3", "gate.deals=6"]), reference)
    assert cfg.iterations == 3 and cfg.gate.deals == 6  # going on, with bigger gates, is allowed
    assert cfg.student.lr == tiny_cfg().student.lr


@pytest.mark.slow
def test_a_command_line_resume_needs_only_the_run_dir(reference):
    """``python -m lost_cities.improve resume=<dir>``: the defaults differ from the run's own
    settings, but only the command line's overrides are held against the run."""
    from hydra import compose, initialize_config_module

    with initialize_config_module(config_module="lost_cities.conf", version_base=None):
        plain = compose("improve", overrides=[f"resume={reference}", "gate.deals=8", "student.lr=0.5"])
    with pytest.raises(ValueError, match=r"\['student\.lr'\]"):
        prepare(plain, reference, overrides=[f"resume={reference}", "gate.deals=8", "student.lr=0.5"])
    cfg, _ = prepare(plain, reference, overrides=[f"resume={reference}", "gate.deals=8"])
    assert cfg.gate.deals == 8  # given, and allowed
    assert cfg.generate.games == tiny_cfg().generate.games  # the run's own, not the default
    assert cfg.network == tiny_cfg().network and cfg.env.name == "single_round"


@pytest.mark.slow
def test_a_resumes_bigger_gates_and_longer_run_become_the_runs_settings(reference, tmp_path):
    """``resume=<dir> gate.deals=N`` writes N into the run's config.yaml, so that a later
    ``resume=<dir>`` alone keeps playing N-deal gates; the run's other settings stay."""
    import shutil

    from omegaconf import OmegaConf

    from lost_cities.improvement.resume import keep_resumed_settings
    from lost_cities.improvement.run_dir import CONFIG_FILE

    shutil.copy(reference / CONFIG_FILE, tmp_path / CONFIG_FILE)
    before = OmegaConf.load(tmp_path / CONFIG_FILE)
    cfg, _ = prepare(tiny_cfg([f"resume={reference}", "iterations=3", "gate.deals=6"]), reference)
    assert keep_resumed_settings(cfg, tmp_path) == ["iterations", "gate.deals"]
    after = OmegaConf.load(tmp_path / CONFIG_FILE)
    assert after.iterations == 3 and after.gate.deals == 6
    after.iterations, after.gate.deals = before.iterations, before.gate.deals
    assert after == before  # nothing else changed
    assert keep_resumed_settings(cfg, tmp_path) == []  # already the run's


@pytest.mark.slow
def test_a_run_from_an_earlier_runs_labels_against_a_mix_gated_against_an_opponent(reference, tmp_path):
    """One tiny run for three settings (each costs a run):

    - ``prior.run=<dir>``: the pool is the earlier run's last iterations, then this run's,
      newest last, as long as the window (``prior.iterations`` resolved into config.yaml); a
      run whose prior has a prior of its own reaches through both;
    - ``generate.opponents``: half the games have a seat played by ``random``, whose
      decisions are not labelled: the chunks hold fewer labels, and the row counts them;
    - ``gate.opponent``: the student and the champion play it on the same deals; the row holds
      the deal-by-deal difference, which is the difference of their mean margins, and the
      rule reads its interval."""
    from omegaconf import OmegaConf

    from lost_cities.improvement import dataset
    from lost_cities.improvement.run_dir import CONFIG_FILE, prior_chain

    overrides = [
        f"prior.run={reference}",
        "iterations=1",
        "student.window=2",
        "gate.opponent=random",
        "+generate.opponents.random=0.5",
    ]
    cfg, run_dir = prepare(tiny_cfg(overrides), tmp_path / "b")
    saved = OmegaConf.load(run_dir / CONFIG_FILE)
    assert saved.prior.run == str(reference) and saved.prior.iterations == 2  # resolved: all it finished
    row = improve(cfg, run_dir)[-1]
    made = dataset.count(dataset.chunk_paths(run_dir, 1, 2))
    assert row["labels/made"] == made and 2 * 4 * 4 // 2 <= made < 2 * 4 * 4  # at most half dropped
    assert row["labels/pooled"] == 2 * 4 * 4 + made  # the reference's iteration 2 and this run's 1
    pool = dataset.pooled(run_dir, 1, 2, 2, priors=[(reference, 2, 2)])
    expected = dataset.read_labels(dataset.chunk_paths(reference, 2, 2) + dataset.chunk_paths(run_dir, 1, 2))
    for name in expected:
        np.testing.assert_array_equal(pool[name], expected[name])
    up_to_one = dataset.pooled(run_dir, 1, 12, 2, priors=[(reference, 1, 2)])
    assert len(up_to_one["label"]) == 32 + made  # the reference's iteration 1 and this run's

    later, _ = prepare(tiny_cfg([f"prior.run={run_dir}"]), tmp_path / "c")  # b's labels, then the reference's
    chain = prior_chain(later)
    assert chain == [(run_dir, 1, 2), (reference, 2, 2)]
    expected = dataset.read_labels(
        [p for i in (1, 2) for p in dataset.chunk_paths(reference, i, 2)] + dataset.chunk_paths(run_dir, 1, 2)
    )
    pool = dataset.pooled(tmp_path / "c", 0, 3, 2, priors=chain)  # before its own first iteration
    for name in expected:
        np.testing.assert_array_equal(pool[name], expected[name])

    gate = json.loads((run_dir / "gates" / "0001.json").read_text())
    assert gate["opponent"] == "random" and gate["deals"] == 4
    paired = gate["versus_champion"]
    assert paired["margin_diff"] == pytest.approx(gate["margin_mean"] - gate["champion"]["margin_mean"])
    assert row["gate/versus_champion/margin_diff"] == paired["margin_diff"]
    assert row["promoted"] == (paired["margin_diff_lower"] > 0)


@pytest.mark.parametrize(
    "overrides, error, named",
    [
        (["prior.run=/nonexistent/run"], FileNotFoundError, "prior.run"),
        (["prior.iterations=3"], ValueError, "prior.iterations=3"),  # the reference finished 2
        (["env=match3"], ValueError, "env=single_round"),
        (["gate.opponent=no_such_bot"], ValueError, "gate.opponent"),
        (["+generate.opponents.no_such_bot=0.5"], ValueError, "generate.opponents"),
        (
            ["+generate.opponents.random=0.7", "+generate.opponents.heuristic_expert=0.7"],
            ValueError,
            "generate.opponents",
        ),
    ],
)
@pytest.mark.slow
def test_a_bad_prior_run_or_gate_opponent_is_refused_before_the_run_dir_is_written(
    reference, tmp_path, overrides, error, named
):
    prior = [] if overrides[0].startswith("prior.run") else [f"prior.run={reference}"]
    with pytest.raises(error, match=re.escape(named)):
        prepare(tiny_cfg([*prior, *overrides]), tmp_path / "b")
    assert not (tmp_path / "b").exists()


@pytest.mark.slow
def test_a_run_saved_before_a_setting_was_added_resumes_as_it_ran(reference, tmp_path):
    """A run dir whose config.yaml predates ``gate.opponent``, ``prior`` and
    ``generate.opponents`` resumes with the values that give its behaviour (a head-to-head
    gate, no earlier labels, self-play)."""
    import shutil

    from omegaconf import OmegaConf

    from lost_cities.improvement.run_dir import CONFIG_FILE

    old = tmp_path / "old"
    shutil.copytree(reference, old)
    saved = OmegaConf.to_container(OmegaConf.load(old / CONFIG_FILE))
    del saved["gate"]["opponent"], saved["prior"], saved["generate"]["opponents"]
    (old / CONFIG_FILE).write_text(OmegaConf.to_yaml(OmegaConf.create(saved)))
    cfg, _ = prepare(tiny_cfg([f"resume={old}", "iterations=3"]), old)
    assert cfg.gate.opponent is None and cfg.prior.run is None and cfg.iterations == 3
    assert cfg.generate.opponents == {}  # self-play


@pytest.mark.slow
def test_a_student_exports_with_its_runs_config(reference, tmp_path):
    """``export checkpoint=<run>/students/<i>``: a student's metadata holds no training config;
    the manifest takes its run's (name and digest), so a champion can ship to the page."""
    from omegaconf import OmegaConf

    from lost_cities.export.onnx import config_digest, export
    from lost_cities.improvement.run_dir import CONFIG_FILE

    model, manifest = export(reference / "students" / "0001", tmp_path / "student.onnx")
    info = json.loads(manifest.read_text())
    config = OmegaConf.to_container(OmegaConf.load(reference / CONFIG_FILE), resolve=True)
    assert info["config_sha256"] == config_digest(config)
    assert info["name"].startswith("improve ") and model.stat().st_size > 0
    import shutil

    shutil.copytree(reference / "students" / "0001", tmp_path / "lone")  # out of its run: no config anywhere
    with pytest.raises(ValueError, match="no training config"):
        export(tmp_path / "lone", tmp_path / "x.onnx")


def test_a_new_run_refuses_a_dir_that_holds_files_and_a_resume_needs_a_run_dir(tmp_path):
    """Checked before anything is written: a new run into a dir that holds files (it might be
    another run's), and a resume of a dir that no run of the loop wrote."""
    held = tmp_path / "held"
    held.mkdir()
    (held / "notes.txt").write_text("someone's")
    with pytest.raises(FileExistsError, match=r"already holds files \(notes.txt\); resume="):
        prepare(tiny_cfg(), held)
    assert sorted(p.name for p in held.iterdir()) == ["notes.txt"]
    with pytest.raises(FileNotFoundError, match="no config.yaml there"):
        prepare(tiny_cfg([f"resume={held}"]), held)
    cfg, run_dir = prepare(tiny_cfg(), tmp_path / "fresh" / "run")
    assert (run_dir / "config.yaml").is_file() and cfg.resume is None
