"""``python -m lost_cities.replay``: replays web-client game logs through the Python engine."""

import json

import hand_scored
import jax
import numpy as np
import pytest

from lost_cities.cli.replay import main
from lost_cities.game.cards import N_CARDS
from lost_cities.game.match import match_legal_action_mask, match_reset_from, match_step
from lost_cities.game.replay import LOG_FORMAT, LOG_VERSION, ReplayError, replay_game

_step = jax.jit(match_step)
_legal = jax.jit(match_legal_action_mask)


def play_logged_game(seed):
    """A random legal match as the web page logs it, with the engine's carry after every round.

    Mostly deck draws, so that the match is short (each ply here is a separate dispatch).
    """
    rng = np.random.default_rng(seed)
    deck_orders = [rng.permutation(N_CARDS).tolist() for _ in range(3)]
    coins = rng.integers(0, 2, 3).tolist()
    ms = match_reset_from(np.asarray(deck_orders, np.int32), np.asarray(coins, np.int32))
    actions, carries = [], []
    while not bool(ms.done):
        legal = np.flatnonzero(np.asarray(_legal(ms)))
        deck_draws = legal[legal % 6 == 0]
        action = int(rng.choice(deck_draws if rng.random() < 0.8 else legal))
        round_idx = int(ms.round_idx)
        ms, _, _ = _step(ms, action)
        actions.append(action)
        if int(ms.round_idx) != round_idx or bool(ms.done):
            carries.append(np.asarray(ms.carry).astype(int).tolist())
    return web_log(deck_orders, coins, actions, carries[-1]), carries


def web_log(deck_orders, coins, actions, final_carry):
    """A match3 game as the web page logs it."""
    return {
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "env": "match3",
        "deck_orders": deck_orders,
        "coins": coins,
        "seats": ["human", "agent"],
        "actions": actions,
        "final_carry": final_carry,
    }


@pytest.fixture(scope="module")
def logged():
    return play_logged_game(seed=3)


@pytest.mark.slow
def test_replay_reproduces_round_scores_and_totals(logged):
    game, carries = logged
    result = replay_game(game)
    assert result.final_carry == carries[-1]
    assert len(result.round_scores) == 3
    running = np.cumsum(result.round_scores, axis=0).tolist()
    assert running == carries


def hand_scored_game():
    """tests/hand_scored.py's match as the web page logs it."""
    deck_orders, coins, actions = hand_scored.match()
    return web_log(deck_orders, coins, actions, hand_scored.TOTALS)


def test_replay_scores_a_hand_scored_match():
    result = replay_game(hand_scored_game())
    assert result.round_scores == [[50, 0], [-10, 56], [-10, 100]]
    assert result.final_carry == [30, 156]
    with pytest.raises(ReplayError, match="records totals"):
        replay_game({**hand_scored_game(), "final_carry": [30, 155]})


def test_cli_prints_each_games_scores(tmp_path, capsys):
    game = hand_scored_game()
    mirrored = {**game, "seats": ["agent", "human"]}
    log = tmp_path / "games.jsonl"
    log.write_text(json.dumps(game) + "\n" + json.dumps(mirrored) + "\n")
    main([str(log), "--json"])
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["final_carry"] for line in lines] == [[30, 156], [30, 156]]
    assert json.loads(lines[1])["seats"] == ["agent", "human"]


def first_illegal_action(game, ply):
    """An action that is illegal at ``ply`` of ``game`` (found with the engine, not the replay)."""
    ms = match_reset_from(np.asarray(game["deck_orders"], np.int32), np.asarray(game["coins"], np.int32))
    for action in game["actions"][:ply]:
        ms, _, _ = _step(ms, action)
    return int(np.flatnonzero(~np.asarray(_legal(ms)))[0])


@pytest.mark.slow
def test_illegal_move_is_an_error_naming_the_ply(logged):
    game, _ = logged
    actions = list(game["actions"])
    actions[17] = first_illegal_action(game, 17)
    with pytest.raises(ReplayError, match=r"ply 17 .*illegal action"):
        replay_game({**game, "actions": actions})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": LOG_VERSION + 1}, "log version"),
        ({"format": "something-else"}, "not a Lost Cities game log"),
        ({"final_carry": [999, -999]}, "records totals"),
        ({"coins": [0, 2, 1]}, "bad deal"),
    ],
)
def test_bad_logs_fail_clearly(change, message):
    game = hand_scored_game()
    with pytest.raises(ReplayError, match=message):
        replay_game({**game, **change})


def test_truncated_and_overlong_logs_fail():
    game = hand_scored_game()
    with pytest.raises(ReplayError, match="before the match ends"):
        replay_game({**game, "actions": game["actions"][:-1]})
    with pytest.raises(ReplayError, match="after the match ended"):
        replay_game({**game, "actions": [*game["actions"], 0]})


def test_cli_exits_with_the_error(tmp_path):
    game = hand_scored_game()
    log = tmp_path / "bad.jsonl"
    log.write_text(json.dumps({**game, "version": 99}) + "\n")
    with pytest.raises(SystemExit, match="replay failed: .*log version 99"):
        main([str(log)])


def test_blank_lines_keep_the_files_line_numbers(tmp_path):
    """A bad game after a blank line is reported at its line in the file."""
    game = hand_scored_game()
    log = tmp_path / "games.jsonl"
    log.write_text(json.dumps(game) + "\n\n\n" + json.dumps({**game, "version": 99}) + "\n")
    with pytest.raises(SystemExit, match=r"line 4 \(game 2\).*log version 99"):
        main([str(log)])


@pytest.mark.parametrize(
    "line, message",
    [("[1, 2, 3]", "a game is a JSON object"), ("null", "a game is a JSON object")],
)
def test_a_line_that_is_not_a_game_object_fails_clearly(tmp_path, line, message):
    log = tmp_path / "games.jsonl"
    log.write_text(line + "\n")
    with pytest.raises(SystemExit, match=f"replay failed: .*line 1.*{message}"):
        main([str(log)])


def test_null_actions_fail_clearly():
    game = hand_scored_game()
    with pytest.raises(ReplayError, match="actions must be a list"):
        replay_game({**game, "actions": None})


def test_an_empty_log_is_an_error_not_silent_success(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    log.write_text("\n  \n")
    with pytest.raises(SystemExit, match="no games"):
        main([str(log)])
    assert capsys.readouterr().out == ""
