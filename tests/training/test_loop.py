"""The training run (lost_cities/training: the loop, run dirs, resume): a tiny run's
metrics rows and learning-rate annealing, the run dir's config, metrics and checkpoints,
resume after an interruption equal to an uninterrupted run, the W&B offline and no-logger
outputs, the agent loaded from a run dir, and gates during training.

Every run here uses tests/tiny_runs.py's shared config and the session's persistent
compilation cache (tests/conftest.py), so repeated ``train()`` calls reuse one compile.
"""

import json
import math

import jax
import jax.flatten_util
import numpy as np
import pytest
from omegaconf import OmegaConf, open_dict
from tiny_runs import SHARED, Interrupt, StopAfter, _rows, _train, make_cfg

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("loop")


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("full")
    trainer, state, run_dir, logger = _train(SHARED, run_dir)
    logger.finish()
    return trainer, state, run_dir


@pytest.mark.slow
def test_tiny_run_writes_finite_metrics_from_the_rollout_policy_and_anneals_lr(full_run):
    _, state, run_dir = full_run
    rows = _rows(run_dir)
    assert [row["update"] for row in rows] == [1, 2, 3]
    assert int(state.decisions) == 3 * 8 * 128
    for row in rows:
        assert all(
            math.isfinite(row[k]) for k in ("learner/policy_loss", "learner/value_loss", "learner/entropy")
        )
        # One epoch of one minibatch steps from the rollout's own parameters: the loss must
        # recompute exactly the log-probabilities the rollout sampled with.
        assert row["learner/approx_kl"] < 1e-6 and row["learner/clip_fraction"] == 0
    assert "episode/win" in rows[-1] and rows[-1]["episode/length"] >= 44
    assert rows[-1]["learner/lr"] < rows[0]["learner/lr"]  # annealed


@pytest.mark.slow
def test_run_dir_holds_config_metrics_checkpoints_and_no_wandb(full_run):
    _, _, run_dir = full_run
    saved = OmegaConf.load(run_dir / "config.yaml")
    assert saved.env.name == "single_round" and saved.reward.coef == 0.2
    assert sorted(p.name for p in (run_dir / "checkpoints" / "latest").iterdir() if p.name.isdigit()) == [
        "2",
        "3",
    ]
    assert any(p.name.isdigit() for p in (run_dir / "checkpoints" / "best").iterdir())
    assert not (run_dir / "wandb").exists()  # logger=none writes nothing


@pytest.mark.slow
def test_resume_after_an_interruption_matches_an_uninterrupted_run(full_run, tmp_path):
    _, state, full_dir = full_run
    with pytest.raises(Interrupt):
        _train(SHARED, tmp_path, progress=StopAfter(2))
    assert [row["update"] for row in _rows(tmp_path)] == [1, 2]  # row 2 has no checkpoint yet
    _, resumed, _, logger = _train([*SHARED, f"resume={tmp_path}"], "unused")
    logger.finish()
    rows, reference = _rows(tmp_path), _rows(full_dir)
    assert [row["update"] for row in rows] == [1, 2, 3]
    assert rows == reference
    np.testing.assert_array_equal(
        jax.flatten_util.ravel_pytree(resumed.params)[0], jax.flatten_util.ravel_pytree(state.params)[0]
    )


@pytest.mark.slow
def test_resume_without_a_config_or_a_checkpoint_fails_clearly(tmp_path):
    with pytest.raises(FileNotFoundError, match="no config.yaml there"):
        _train([*SHARED, f"resume={tmp_path}"], "unused")
    # A run dir that was started (its config is written) but has no checkpoint yet.
    (tmp_path / "config.yaml").write_text(OmegaConf.to_yaml(make_cfg(SHARED), resolve=True))
    with pytest.raises(FileNotFoundError, match="no checkpoint yet"):
        _train([*SHARED, f"resume={tmp_path}"], "unused")


@pytest.mark.slow
def test_wandb_offline_run_is_written(tmp_path):
    _, _, run_dir, logger = _train([*SHARED, "logger=wandb"], tmp_path)
    logger.finish()
    offline = list((run_dir / "wandb").glob("offline-run-*"))
    assert len(offline) == 1 and list(offline[0].glob("*.wandb"))


@pytest.mark.slow
def test_agent_loads_from_the_run_dir_and_checks_the_observation(full_run):
    from lost_cities import agents
    from lost_cities.envs import make

    _, _, run_dir = full_run
    agent = agents.load(run_dir)
    env = make("single_round")
    state = env.init(jax.random.PRNGKey(3))
    action = agent.act(state, int(env.to_move(state)))
    assert bool(env.legal_mask(state)[action])
    with pytest.raises(ValueError, match="observation v1"):
        agents.load(run_dir, env="match3")
    assert json.loads(json.dumps(agent.meta["network"]))["hidden"] == [16]


@pytest.mark.slow
def test_gates_run_during_training_and_land_in_metrics_and_gates_json(tmp_path):
    # Beside the smoke gate (a bound every result meets), one no result can meet. A new
    # gate is a yaml merge (OmegaConf builds no typed gate from a command-line dict).
    from lost_cities.training.loop import train

    cfg = make_cfg(SHARED)
    never = {"opponent": "random", "deals": 4, "min": {"win_rate": 1.01}}
    with open_dict(cfg):
        cfg.gates = OmegaConf.merge(cfg.gates, {"gates": {"never": never}})
    _, _, run_dir, logger = train(cfg, tmp_path)
    logger.finish()
    rows = _rows(run_dir)
    gated = [row["update"] for row in rows if "gates/random/win_rate" in row]
    assert gated == [2, 3]  # every 2 updates, and the last one
    gates = json.loads((run_dir / "gates.json").read_text())
    assert set(gates) == {"random", "never"} and gates["random"]["deals"] == 4
    assert gates["random"]["checks"] == {"win_rate_lower >= 0.0": True} and gates["random"]["passed"]
    assert gates["never"]["checks"] == {"win_rate >= 1.01": False} and not gates["never"]["passed"]
    assert rows[-1]["gates/random/win_rate"] == gates["random"]["win_rate"]
    assert (rows[-1]["gates/random/passed"], rows[-1]["gates/never/passed"], rows[-1]["gates/passed"]) == (
        1,
        0,
        0.5,
    )


def test_a_bad_gates_config_fails_before_training(tmp_path):
    with pytest.raises(ValueError, match="unknown|metric"):
        _train([*SHARED, "+gates.gates.random.min.not_a_metric=1"], tmp_path)
    assert not (tmp_path / "metrics.jsonl").exists()
