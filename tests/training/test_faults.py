"""Fault injection: kill -9 during a checkpoint save, flipped bytes, truncated
files, NaN in the parameters, two runs started in the same second, a retry into a
finished run dir, resume with overrides. Each asserts that nothing already written is
lost or changed.

The training run (lost_cities/training: the loop, guards, resume, run dirs) and its
checkpoints (lost_cities/checkpoints.py), loaded and exported. Every training run here uses
the one tiny config of tests/tiny_runs.py (SHARED: 3 updates, a checkpoint per update, a
gate at updates 2 and 3) and the session's persistent compilation cache (tests/conftest.py;
the killed run's process reads it too), so runs after the first reuse its compiled update.
"""

import hashlib
import json
import logging
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np
import pytest
from omegaconf import OmegaConf, open_dict
from tiny_runs import SHARED, Interrupt, StopAfter, make_cfg

from lost_cities.checkpoints import (
    Checkpoints,
    CorruptCheckpoint,
    restore,
    restore_params,
    steps,
    write_digest,
)
from lost_cities.ppo.trainer import Trainer
from lost_cities.training.guards import NonFiniteError
from lost_cities.training.loop import train
from lost_cities.training.resume import LATER_KEYS, prepare_run_dir
from lost_cities.training.run_dir import read_metrics

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("faults")


def run(overrides, run_dir, progress=None, cli=None):
    _, state, run_dir, logger = train(make_cfg(overrides), run_dir, progress=progress, overrides=cli)
    logger.finish()
    return state, run_dir


def rows(run_dir):
    return [{k: v for k, v in row.items() if not k.startswith("time/")} for row in read_metrics(run_dir)]


def snapshot(directory):
    """Every file under ``directory`` -> its sha256."""
    directory = Path(directory)
    return {
        p.relative_to(directory).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def flat(params):
    return jax.flatten_util.ravel_pytree(params)[0]


def copy_run(src, dst):
    shutil.copytree(src, dst)
    return Path(dst)


def biggest_file(step_dir, under="params"):
    return max(
        (p for p in (Path(step_dir) / under).rglob("*") if p.is_file()), key=lambda p: p.stat().st_size
    )


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """The reference: one whole run, never touched by the tests (they work on copies)."""
    state, run_dir = run(SHARED, tmp_path_factory.mktemp("finished") / "run")
    return state, run_dir, snapshot(run_dir)


@pytest.fixture(scope="module")
def interrupted(finished, tmp_path_factory):
    """A run stopped after update 3's row, before its checkpoint: checkpoints 1 and 2."""
    run_dir = tmp_path_factory.mktemp("interrupted") / "run"
    with pytest.raises(Interrupt):
        run(SHARED, run_dir, progress=StopAfter(3))
    assert steps(run_dir / "checkpoints" / "latest") == [2, 1]
    return run_dir


def assert_unchanged(finished):
    _, run_dir, before = finished
    assert snapshot(run_dir) == before


# --- checkpoints: digests, fallback, NaN ---------------------------------------------


@pytest.mark.slow
def test_every_checkpoint_carries_a_digest_and_loading_changes_nothing(finished, capsys):
    from lost_cities import agents

    _, run_dir, _ = finished
    for kind in ("latest", "best"):
        for step in steps(run_dir / "checkpoints" / kind):
            assert (run_dir / "checkpoints" / kind / str(step) / "sha256.json").exists()
    agents.load(run_dir)
    assert "update 3" in capsys.readouterr().err
    assert_unchanged(finished)


@pytest.mark.slow
def test_a_clean_load_logs_no_warning(finished, caplog):
    """Warnings on load are for real trouble (orbax's Checkpointer warned of a missing step
    metadata file on every load, and the fall-back warnings drowned in it)."""
    _, run_dir, _ = finished
    with caplog.at_level(logging.WARNING):
        restore_params(run_dir / "checkpoints" / "latest")
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.slow
def test_flipped_bytes_fall_back_to_the_newest_good_checkpoint_and_say_so(finished, tmp_path, capsys):
    """Before: the flipped checkpoint restored silently (NaN params, exit 0)."""
    from lost_cities import agents

    run_dir = copy_run(finished[1], tmp_path / "run")
    data = biggest_file(run_dir / "checkpoints" / "latest" / "3")
    raw = bytearray(data.read_bytes())
    raw[len(raw) // 2 : len(raw) // 2 + 64] = bytes(b ^ 0xFF for b in raw[len(raw) // 2 : len(raw) // 2 + 64])
    data.write_bytes(bytes(raw))
    before = snapshot(run_dir)
    agent = agents.load(run_dir)
    err = capsys.readouterr().err
    assert "skipping checkpoint" in err and "latest/3" in err and "changed" in err
    assert "newest good checkpoint" in err and agent.meta["update"] == 2
    assert bool(np.isfinite(flat(agent.params)).all())
    with pytest.raises(CorruptCheckpoint, match="changed since"):
        restore(run_dir / "checkpoints" / "latest", finished[0], step=3)
    assert snapshot(run_dir) == before  # reading moved or rewrote nothing
    assert_unchanged(finished)


@pytest.mark.slow
def test_a_truncated_file_falls_back_instead_of_a_raw_tensorstore_error(finished, tmp_path, capsys):
    run_dir = copy_run(finished[1], tmp_path / "run")
    data = biggest_file(run_dir / "checkpoints" / "latest" / "3")
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 3])
    params, meta = restore_params(run_dir / "checkpoints" / "latest")
    assert meta["update"] == 2 and "latest/3" in capsys.readouterr().err
    # Every step corrupt: an error that names each, not a raw OUT_OF_RANGE.
    data2 = biggest_file(run_dir / "checkpoints" / "latest" / "2")
    data2.write_bytes(b"")
    with pytest.raises(CorruptCheckpoint, match="no good checkpoint.*step 3.*step 2"):
        restore_params(run_dir / "checkpoints" / "latest")


@pytest.mark.slow
def test_a_run_saved_before_digests_loads_unverified_and_says_so(finished, tmp_path, capsys):
    run_dir = copy_run(finished[1], tmp_path / "run")
    for digest in run_dir.rglob("sha256.json"):
        digest.unlink()
    params, meta = restore_params(run_dir / "checkpoints" / "latest")
    assert meta["update"] == 3 and "predates checkpoint digests" in capsys.readouterr().err
    # One step with a digest: the dir is of this version, and a step without one is a killed save.
    write_digest(run_dir / "checkpoints" / "latest" / "2")
    _, meta = restore_params(run_dir / "checkpoints" / "latest")
    assert meta["update"] == 2 and "no sha256.json" in capsys.readouterr().err


@pytest.mark.slow
def test_resume_from_a_corrupt_latest_continues_exactly_from_the_one_before(finished, interrupted, tmp_path):
    run_dir = copy_run(interrupted, tmp_path / "run")
    data = biggest_file(run_dir / "checkpoints" / "latest" / "2", "state")
    data.write_bytes(data.read_bytes()[:-7])
    corrupt = data.read_bytes()
    kept = snapshot(run_dir / "checkpoints" / "latest" / "1")
    state, _ = run([*SHARED, f"resume={run_dir}"], tmp_path / "unused")
    assert rows(run_dir) == rows(finished[1])
    np.testing.assert_array_equal(flat(state.params), flat(finished[0].params))
    moved = run_dir / "checkpoints" / "corrupt" / "latest-2"  # kept aside, not deleted
    assert (moved / data.relative_to(run_dir / "checkpoints" / "latest" / "2")).read_bytes() == corrupt
    assert snapshot(run_dir / "checkpoints" / "latest" / "1") == kept or 1 not in steps(
        run_dir / "checkpoints" / "latest"
    )


def _nan_at(update):
    original = Trainer.update

    def update_with_nan(self, ts):
        ts, metrics = original(self, ts)
        poisoned = jax.tree.map(lambda p: jnp.where(ts.update == update, jnp.nan, p), ts.params)
        return ts.replace(params=poisoned), metrics

    return update_with_nan


@pytest.mark.slow
def test_nan_parameters_stop_training_at_once_and_keep_the_last_good_checkpoint(
    finished, tmp_path, monkeypatch
):
    """Before: the run finished with exit 0, its learner keys gone, 'win 0.850 vs random'."""
    monkeypatch.setattr(Trainer, "update", _nan_at(3))
    run_dir = tmp_path / "run"
    with pytest.raises(
        NonFiniteError, match=r"update 3: the parameters became non-finite.*update 2\) is unchanged"
    ):
        run(SHARED, run_dir)
    assert rows(run_dir) == rows(finished[1])[:2]  # nothing of update 3 was written
    assert steps(run_dir / "checkpoints" / "latest") == [2, 1]
    monkeypatch.undo()
    state, _ = run([*SHARED, f"resume={run_dir}"], tmp_path / "unused")  # the kept checkpoint is good
    np.testing.assert_array_equal(flat(state.params), flat(finished[0].params))


def test_a_non_finite_learner_metric_is_named_with_its_update():
    from lost_cities.training.guards import check_finite_update as _check_finite_update
    from lost_cities.training.guards import floats as _floats
    from lost_cities.training.guards import non_finite_learner as _non_finite_learner

    metrics = {"learner/policy_loss": jnp.nan, "episode/win": jnp.nan, "learner/entropy": 1.0}
    bad = _non_finite_learner(metrics)
    assert _floats(metrics) == {"learner/entropy": 1.0} and list(bad) == ["learner/policy_loss"]
    state = type("S", (), {"params": {"w": jnp.ones(2)}})()
    with pytest.raises(NonFiniteError, match="update 7: non-finite learner/policy_loss=nan.*update 5"):
        _check_finite_update(7, bad, state, 5)


@pytest.mark.slow
def test_non_finite_parameters_are_never_saved_loaded_evaluated_or_exported(finished, tmp_path, capsys):
    from lost_cities import agents
    from lost_cities.checkpoints import Checkpoints, _manager
    from lost_cities.export import export
    from lost_cities.policies import make_policy

    state = finished[0]
    nan_state = state.replace(params=jax.tree.map(lambda p: p * jnp.nan, state.params))
    run_dir = copy_run(finished[1], tmp_path / "run")
    checkpoints = Checkpoints(run_dir, 5)
    with pytest.raises(ValueError, match="checkpoint of update 4.*non-finite"):
        checkpoints.save(4, nan_state, {"update": 4})
    checkpoints.close()
    assert steps(run_dir / "checkpoints" / "latest") == [3, 2]
    # A NaN checkpoint written past the check (by an older version, say), digest and all:
    meta = json.loads(
        next((run_dir / "checkpoints" / "latest" / "3" / "meta").glob("*metadata*")).read_text()
    )
    import orbax.checkpoint as ocp

    manager = _manager(run_dir / "checkpoints" / "latest", 5)
    items = {
        "state": ocp.args.StandardSave(nan_state),
        "params": ocp.args.StandardSave(nan_state.params),
        "meta": ocp.args.JsonSave({**meta, "update": 4}),
    }
    manager.save(4, args=ocp.args.Composite(**items))
    manager.wait_until_finished()
    manager.close()
    write_digest(run_dir / "checkpoints" / "latest" / "4")
    latest = run_dir / "checkpoints" / "latest"
    with pytest.raises(ValueError, match="non-finite"):
        agents.load(run_dir)
    with pytest.raises(ValueError, match="non-finite"):
        make_policy(str(latest), agents.load(finished[1]).env)
    out = tmp_path / "m.onnx"
    with pytest.raises(ValueError, match="non-finite"):
        export(run_dir, out, which="latest")
    assert not out.exists() and not out.with_suffix(".json").exists()
    assert_unchanged(finished)


# --- kill -9 --------------------------------------------------------------------------

KILLED_RUN = """
import os, signal, sys
import jax
jax.config.update("jax_compilation_cache_dir", sys.argv[2])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
from lost_cities.training.loop import train
from lost_cities import checkpoints as checkpoint

original = checkpoint.Checkpoints.save

def save_then_die(self, update, state, meta, best_score=None):
    if update < 2:
        return original(self, update, state, meta, best_score)
    # kill -9 with orbax's write of update 2 under way: no wait, no finalize, no digest
    self.latest.save(update, args=checkpoint.ocp.args.Composite(
        state=checkpoint.ocp.args.StandardSave(state),
        params=checkpoint.ocp.args.StandardSave(state.params),
        meta=checkpoint.ocp.args.JsonSave(meta)), force=True)
    os.kill(os.getpid(), signal.SIGKILL)

checkpoint.Checkpoints.save = save_then_die
from lost_cities.ppo.config import compose
train(compose(sys.argv[3:]), sys.argv[1], overrides=[])
"""


@pytest.mark.slow
def test_kill_9_during_a_checkpoint_save_then_resume_is_exact(finished, jax_cache, tmp_path):
    run_dir = tmp_path / "run"
    script = tmp_path / "killed.py"
    script.write_text(textwrap.dedent(KILLED_RUN))
    done = subprocess.run(
        [sys.executable, str(script), str(run_dir), str(jax_cache), *SHARED], capture_output=True, text=True
    )
    assert done.returncode == -signal.SIGKILL, done.stderr[-2000:]
    assert [row["update"] for row in rows(run_dir)] == [1, 2]
    kept = snapshot(run_dir / "checkpoints" / "latest" / "1")
    state, _ = run([*SHARED, f"resume={run_dir}"], tmp_path / "unused")
    assert rows(run_dir) == rows(finished[1])  # row 2 replaced, each update's row once
    np.testing.assert_array_equal(flat(state.params), flat(finished[0].params))
    assert (
        1 not in steps(run_dir / "checkpoints" / "latest")
        or snapshot(run_dir / "checkpoints" / "latest" / "1") == kept
    )


# --- run dirs ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_retry_into_a_finished_run_dir_is_refused_and_changes_nothing(finished, tmp_path):
    """Before: Hydra rewrote the run's .hydra/config.yaml and overrides.yaml, then the
    app refused with FileExistsError."""
    run_dir = copy_run(finished[1], tmp_path / "run")
    before = snapshot(run_dir)
    with pytest.raises(FileExistsError, match="already holds files"):
        run(SHARED, run_dir)
    done = subprocess.run(
        [sys.executable, "-m", "lost_cities.train", *SHARED, "ppo.lr=0.5", f"hydra.run.dir={run_dir}"],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "already holds files" in done.stderr
    assert snapshot(run_dir) == before
    assert_unchanged(finished)


def test_a_run_dir_orbax_cannot_read_back_is_refused_before_anything_runs(tmp_path):
    """Before: orbax saved every checkpoint under a dir named by a sweep over a list
    (``..._network.placement_hidden=[32],seed=0``) without error, and none could be read
    back (it finds a save's files by a glob of the path). Now such a dir is refused before
    anything is written, and the sweep's job dirs are named without glob characters."""
    run_dir = tmp_path / "0_network.placement_hidden=[32],seed=0"
    with pytest.raises(ValueError, match="orbax cannot read back"):
        prepare_run_dir(make_cfg(SHARED), run_dir, overrides=[])
    assert not run_dir.exists()
    with pytest.raises(ValueError, match="orbax cannot read back"):
        Checkpoints(tmp_path / "what?", 1)

    import lost_cities.cli  # noqa: F401  (the commands' resolvers: the job dir's ${path_safe:...})

    cfg = make_cfg(["network.placement_hidden=[128,128]", "seed=1"], return_hydra_config=True)
    with open_dict(cfg):
        cfg.hydra.job.num = 3
    assert cfg.hydra.sweep.subdir == "3_network.placement_hidden=(128,128),seed=1"


@pytest.mark.slow
def test_two_runs_started_in_the_same_second_get_their_own_dirs(tmp_path):
    """Before: the dir name had seconds only; two runs shared one dir and one metrics.jsonl.

    Both processes print their resolved config at once (``-c all``: nothing runs); a run's
    dir and a sweep's dir differ, and a sweep's jobs differ by their job number."""
    command = [sys.executable, "-m", "lost_cities.train", "-c", "all", "--resolve", "logger=none"]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=tmp_path) for _ in range(2)]
    configs = [OmegaConf.create(p.communicate()[0]).hydra for p in procs]
    assert configs[0].run.dir != configs[1].run.dir and configs[0].sweep.dir != configs[1].sweep.dir
    assert all(c.run.dir.startswith("outputs/default/") for c in configs)
    assert not (tmp_path / "outputs").exists()


@pytest.mark.slow
def test_a_refused_start_leaves_no_run_dir(tmp_path):
    """Before: an invalid config still left a run dir holding it (and an empty outputs/<time>)."""
    run_dir = tmp_path / "new"
    with pytest.raises(ValueError, match="unknown opponent 'nosuchbot'"):
        run([*SHARED, "opponent.policies=[nosuchbot]"], run_dir)
    assert not run_dir.exists()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lost_cities.train",
            "logger=none",
            "opponent.policies=[nosuchbot]",
            "opponent.weights=null",
            f"hydra.run.dir={run_dir}",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "unknown opponent 'nosuchbot'" in done.stderr
    assert not run_dir.exists()


# --- resume: overrides and extension --------------------------------------------------


@pytest.mark.slow
def test_resume_refuses_the_overrides_it_would_ignore_and_changes_nothing(finished, interrupted, tmp_path):
    """Before: env, ppo.lr and the rest given with resume= were silently dropped."""
    run_dir = copy_run(interrupted, tmp_path / "run")
    before = snapshot(run_dir)
    cli = [f"resume={run_dir}", "ppo.lr=0.5", "env=match3"]
    with pytest.raises(ValueError, match=r"would ignore \['ppo.lr=0.5', 'env=match3'\]"):
        run([*SHARED, *cli], tmp_path / "unused", cli=cli)
    with pytest.raises(ValueError, match=r"would ignore \['ppo.lr'\]"):  # from Python: every key counts
        run([*SHARED, "ppo.lr=0.5", f"resume={run_dir}"], tmp_path / "unused")
    assert snapshot(run_dir) == before
    # The command line the run started with is not "ignored": it is the run's.
    started = OmegaConf.load(run_dir / ".hydra" / "overrides.yaml")
    assert started == []  # the fixture's run came from Python; the CLI writes its overrides there


@pytest.mark.slow
def test_a_finished_run_resumes_only_with_a_bigger_budget_which_extends_it(finished, tmp_path):
    """Before: there was no way to extend a finished run (ppo.total_decisions was dropped);
    then an extended run's config.yaml no longer said what its learning rate had been."""
    run_dir = copy_run(finished[1], tmp_path / "run")
    before = snapshot(run_dir)
    with pytest.raises(ValueError, match=r"finished \(update 3 of 3\).*ppo.total_decisions"):
        run([*SHARED, f"resume={run_dir}"], tmp_path / "unused", cli=[f"resume={run_dir}"])
    assert snapshot(run_dir) == before
    cli = [f"resume={run_dir}", "ppo.total_decisions=4096"]
    state, _ = run([*SHARED, *cli], tmp_path / "unused", cli=cli)
    assert [row["update"] for row in rows(run_dir)] == [1, 2, 3, 4]
    assert rows(run_dir)[:3] == rows(finished[1])
    saved = OmegaConf.load(run_dir / "config.yaml").ppo
    assert int(state.update) == 4 and saved.total_decisions == 4096
    assert saved.anneal_restarts == [3]  # the rate went back up at the old end: the config says so
    assert not (tmp_path / "unused").exists()  # a resume writes only into the run it continues
    assert_unchanged(finished)
    # So the config is the run: a new run of it (its restart planned) repeats the extended run.
    planned_state, planned = run(
        [*SHARED, "ppo.total_decisions=4096", "ppo.anneal_restarts=[3]"], tmp_path / "planned"
    )

    def trained(run_dir):  # the extended run also gated at its old end (update 3)
        return [{k: v for k, v in row.items() if not k.startswith("gates/")} for row in rows(run_dir)]

    assert trained(planned) == trained(run_dir)
    np.testing.assert_array_equal(flat(planned_state.params), flat(state.params))


def test_a_run_saved_before_a_key_existed_resumes_with_the_value_that_keeps_its_behaviour(tmp_path):
    """Before: a run saved without ppo.lr_warmup_updates (added later) failed to resume
    on the missing key. Only config.yaml is read here: prepare_run_dir decides it."""
    cfg = make_cfg([*SHARED, "init=bc"])
    saved = OmegaConf.to_container(cfg, resolve=True)
    for dotted in LATER_KEYS:
        group, key = dotted.split(".")
        del saved[group][key]
    run_dir = tmp_path / "old_run"
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(saved))
    resume = make_cfg([*SHARED, "init=bc", f"resume={run_dir}"])
    resumed, _ = prepare_run_dir(resume, run_dir, overrides=[f"resume={run_dir}"])
    for dotted, value in LATER_KEYS.items():
        assert OmegaConf.select(resumed, dotted) == value == OmegaConf.select(cfg, dotted), dotted
    assert OmegaConf.load(run_dir / "config.yaml") == OmegaConf.create(saved)  # not rewritten


# --- which checkpoint, best metric -------------------------------------------------------


@pytest.mark.slow
def test_a_run_dir_loads_its_final_parameters_unless_best_is_asked_for(finished, capsys):
    """Before: agent=<run dir> silently used checkpoints/best."""
    from lost_cities import agents

    state, run_dir, _ = finished
    agent = agents.load(run_dir)
    assert agent.meta["update"] == 3 and f"{run_dir}/checkpoints/latest update 3" in capsys.readouterr().err
    np.testing.assert_array_equal(flat(agent.params), flat(state.params))
    best = agents.load(run_dir, checkpoint="best")
    assert f"{run_dir}/checkpoints/best update {best.meta['update']}" in capsys.readouterr().err
    with pytest.raises(ValueError, match="choose one of"):
        agents.load(run_dir, checkpoint="newest")


@pytest.mark.slow
def test_a_step_dir_is_the_run_at_that_update_to_load_and_export(finished, interrupted, tmp_path, capsys):
    """``<run>/checkpoints/latest/<n>``: the run as it was at update n (a learning curve, or
    the update to ship), wherever a checkpoint is taken; not the newest step."""
    from lost_cities import agents
    from lost_cities.export import export
    from lost_cities.training.run_dir import gates_at

    state, run_dir, _ = finished
    step_two = run_dir / "checkpoints" / "latest" / "2"
    agent = agents.load(step_two)
    assert agent.meta["update"] == 2 and f"{step_two.parent} update 2" in capsys.readouterr().err
    at_two = agents.load(interrupted)  # the same run stopped after update 2: newest step 2
    np.testing.assert_array_equal(flat(agent.params), flat(at_two.params))
    assert not np.array_equal(flat(agent.params), flat(state.params))
    _, manifest_path = export(step_two, tmp_path / "m.onnx")
    manifest = json.loads(manifest_path.read_text())
    assert manifest["update"] == 2 and manifest["gates"] == gates_at(run_dir, 2)
    assert manifest["checkpoint"].endswith("run/checkpoints/latest/2")
    with pytest.raises(FileNotFoundError, match="latest/7 does not exist"):
        agents.load(run_dir / "checkpoints" / "latest" / "7")
    assert_unchanged(finished)


@pytest.mark.slow
def test_the_export_manifest_holds_the_exported_updates_gates(finished, tmp_path):
    """However it is called, the manifest pairs the exported update with that update's gates."""
    from lost_cities.export import export
    from lost_cities.training.run_dir import gates_at

    run_dir = copy_run(finished[1], tmp_path / "run")
    for which in ("latest", "best"):
        out = tmp_path / f"{which}.onnx"
        _, manifest_path = export(run_dir, out, which=which)
        manifest = json.loads(manifest_path.read_text())
        update = manifest["update"]
        assert manifest["checkpoint"].endswith(f"run/checkpoints/{which}")
        assert manifest["gates"] == gates_at(run_dir, update)
    assert json.loads((tmp_path / "latest.json").read_text())["gates"] == json.loads(
        (run_dir / "gates.json").read_text()
    )


def test_a_gate_best_metric_that_names_no_gate_is_an_error_before_training(tmp_path):
    run_dir = tmp_path / "run"
    with pytest.raises(ValueError, match="best_metric='gates/randm/win_rate' names no gate metric"):
        run([*SHARED, "checkpoint.best_metric=gates/randm/win_rate"], run_dir)
    assert not run_dir.exists()


@pytest.mark.slow
def test_a_best_metric_that_never_appears_is_an_error_at_the_first_gate(finished, tmp_path):
    """Before: no best checkpoint, and the printout still said '(latest, best)'."""
    run_dir = tmp_path / "run"
    with pytest.raises(ValueError, match=r"best_metric='episode/wins' has no finite value in updates 1..2"):
        run([*SHARED, "checkpoint.best_metric=episode/wins"], run_dir)
    assert [row["update"] for row in rows(run_dir)] == [1, 2]


def test_the_default_best_metric_is_against_fixed_opponents():
    assert make_cfg([]).checkpoint.best_metric == "episode/win_vs_fixed"
