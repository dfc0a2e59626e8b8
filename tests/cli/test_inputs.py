"""Bad input fails early and clearly, naming what is wrong.

Each test failed before its fix: the message named something else (the weights, not the
unknown bot), a raw exception came out (``deals=abc``, an ``AttributeError``), a wrong
value was used silently (``batch_size=0`` as 1, a player not to move), or a failed
command left a dir behind.
"""

import subprocess
import sys

import jax
import numpy as np
import pytest
from omegaconf import OmegaConf

from lost_cities.ppo import config as schema
from lost_cities.ppo.config import compose as make_cfg


def test_an_unknown_opponent_is_named_not_the_weights():
    with pytest.raises(ValueError, match="unknown opponent 'nosuchbot'"):
        schema.validate(make_cfg(["opponent.policies=[nosuchbot]"]))
    with pytest.raises(ValueError, match="evaluation.opponents: unknown opponent 'randm'"):
        schema.validate(make_cfg(["evaluation.opponents=[randm]"]))


@pytest.mark.parametrize(
    "override, message",
    [
        ("evaluation.batch_size=0", "evaluation.batch_size must be > 0"),
        ("evaluation.deals=0", "deals must be"),
    ],
)
def test_bad_evaluation_settings_fail_validation(override, message):
    with pytest.raises(ValueError, match=message):
        schema.validate(make_cfg([override]))


def evaluate_cfg(**changes):
    base = {"agent": "random", "opponent": "random", "env": "match3", "deals": 2, "bank": "v1"}
    base |= {"first_deal": 0, "seed": 0, "baseline": None, "progress": False}
    return OmegaConf.create({**base, "batch_size": 2, **changes})


@pytest.mark.parametrize(
    "key, value", [("deals", "abc"), ("deals", 0), ("batch_size", 0), ("batch_size", 2.5)]
)
def test_evaluate_names_a_bad_count(key, value):
    from lost_cities.evaluation.matchup import setup

    with pytest.raises(ValueError, match=f"{key}={value!r} must be a whole number > 0"):
        setup(evaluate_cfg(**{key: value}))


@pytest.mark.parametrize("value", [-1, 2.5, "abc"])
def test_evaluate_names_a_bad_first_deal(value):
    from lost_cities.evaluation.matchup import setup

    with pytest.raises(ValueError, match=f"first_deal={value!r} must be a whole number >= 0"):
        setup(evaluate_cfg(first_deal=value))


def test_an_unknown_baseline_fails_before_any_game(monkeypatch):
    from lost_cities.evaluation import matchup as evaluate

    def no_games(*args, **kwargs):
        raise AssertionError("a game was played before the baseline was checked")

    monkeypatch.setattr(evaluate, "play_duplicate", no_games)
    with pytest.raises(ValueError, match="nosuchbot"):
        evaluate.run(evaluate_cfg(baseline="nosuchbot"))


@pytest.mark.slow
def test_evaluate_with_a_baseline_reports_both_and_their_paired_difference():
    from lost_cities.evaluation.matchup import run
    from lost_cities.evaluation.report import format_comparison

    results = run(evaluate_cfg(agent="discard_only", baseline="random", deals=3, batch_size=3))
    assert results["agent"] == "discard_only" and results["baseline"]["agent"] == "random"
    versus = results["versus_baseline"]
    assert versus["deals"] == results["baseline"]["deals"] == 3
    assert versus["score_diff"] == pytest.approx(results["win_rate"] - results["baseline"]["win_rate"])
    assert "discard_only - random over the same 3 deals: score" in format_comparison(results)


def test_duplicate_evaluate_refuses_batch_size_0_instead_of_using_1():
    from lost_cities import envs
    from lost_cities.bots import make
    from lost_cities.evaluation import deal_bank, duplicate_evaluate

    deck_orders, coins = deal_bank(2)
    with pytest.raises(ValueError, match="batch_size=0"):
        duplicate_evaluate(
            envs.make("single_round"),
            make("random"),
            make("random"),
            deck_orders,
            coins,
            jax.random.key(0),
            0,
        )


@pytest.mark.slow
def test_a_failed_evaluate_leaves_no_run_dir(tmp_path):
    run_dir = tmp_path / "eval"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lost_cities.evaluate",
            "agent=nosuchbot",
            "deals=2",
            f"hydra.run.dir={run_dir}",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "nosuchbot" in done.stderr
    assert not run_dir.exists()


@pytest.fixture(scope="module")
def round_agent():
    from lost_cities.agents import Agent
    from lost_cities.ppo.trainer import Trainer

    cfg = make_cfg(["env=single_round", "network.hidden=[8]", "critic=shared", "logger=none"])
    trainer = Trainer.from_config(cfg)
    return Agent(trainer.env, trainer.network, trainer.init_params(), {})


@pytest.mark.slow
def test_act_refuses_a_player_who_is_not_to_move(round_agent):
    env = round_agent.env
    state = env.init(jax.random.PRNGKey(0))
    mover = int(env.to_move(state))
    assert bool(env.legal_mask(state)[round_agent.act(state, mover)])
    with pytest.raises(ValueError, match=f"player {1 - mover} is not to move"):
        round_agent.act(state, 1 - mover)
    with pytest.raises(ValueError, match="player=7: a seat is 0 or 1"):
        round_agent.act(state, 7)


@pytest.mark.slow
def test_a_single_round_agent_on_a_match_state_says_what_to_pass(round_agent):
    from lost_cities import envs

    match = envs.make("match3")
    ms = match.init(jax.random.PRNGKey(0))
    with pytest.raises(TypeError, match="trained on single_round.*round_state"):
        round_agent.act(ms, int(match.to_move(ms)))
    action = round_agent.act(match.round_state(ms), int(match.to_move(ms)))
    assert bool(np.asarray(match.legal_mask(ms))[action])


def test_a_missing_onnx_file_says_so_not_no_manifest(tmp_path):
    from lost_cities import agents

    with pytest.raises(FileNotFoundError, match="no such model file"):
        agents.load(tmp_path / "nothing.onnx")


@pytest.mark.slow
def test_a_budget_that_is_no_whole_number_of_updates_is_said(tmp_path, capsys, monkeypatch):
    """Before: ppo.total_decisions was rounded down to whole updates without a word."""
    from lost_cities.training import loop as train_cli

    class Stop(Exception):
        pass

    def stop(*_, **__):
        raise Stop

    monkeypatch.setattr(train_cli, "warm_start", stop)
    cfg = make_cfg(["experiment=tiny", "logger=none", "ppo.total_decisions=300"])
    with pytest.raises(Stop):
        train_cli.train(cfg, tmp_path / "run")
    assert (
        "ppo.total_decisions=300 is 2 updates of 128 decisions: the run trains on 256"
        in capsys.readouterr().err
    )
