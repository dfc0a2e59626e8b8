"""Games recorded by the web client, replayed through the Python engine
(``python -m lost_cities.replay games.jsonl``).

Each line of the file is one finished 3-round match, as the web page downloads it
(``web/src/gameLog.ts`` writes the same fields):

- ``format`` ``"lost-cities-game"`` and ``version`` (``LOG_VERSION``);
- ``env`` ``"match3"``; ``deck_orders`` (3 x 60 card ids) and ``coins`` (3 seats);
- ``seats``: who played seat 0 and seat 1 (e.g. ``["human", "agent"]``);
- ``actions``: every ply's action id (docs/encodings.md) in order, across the three rounds;
- ``final_carry``: each seat's match total as the page computed it.

An illegal action, a game that stops before the match ends, or a total that differs
from the recorded ``final_carry`` is an error that names the game and the ply.
"""

import json
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.game.cards import MAX_STEPS, N_ACTIONS, decode_action
from lost_cities.game.match import N_ROUNDS, match_legal_action_mask, match_reset_from, match_step

LOG_FORMAT = "lost-cities-game"
LOG_VERSION = 1
REQUIRED_FIELDS = ("deck_orders", "coins", "seats", "actions")

PAD = N_ROUNDS * MAX_STEPS + 8  # logs are padded to a multiple of this, so one compile serves all


@jax.jit
def _replay_scan(ms, actions):
    """Per ply: was it legal, had the match already ended, and the round index and carry after it."""

    def ply(ms, action):
        in_range = (action >= 0) & (action < N_ACTIONS)
        legal = in_range & match_legal_action_mask(ms)[jnp.clip(action, 0, N_ACTIONS - 1)]
        after, _, _ = match_step(ms, action)
        return after, (legal, ms.done, ms.round_idx, ms.to_move, after.round_idx, after.done, after.carry)

    return jax.lax.scan(ply, ms, actions)


class ReplayError(ValueError):
    """A recorded game that the engine cannot reproduce."""


@dataclass(frozen=True)
class ReplayedGame:
    seats: list[str]
    round_scores: list[list[int]]  # each round's board scores, per seat
    final_carry: list[int]


def describe_action(action):
    hand_slot, place_type, draw_source = decode_action(action)
    place = "play" if place_type == 0 else "discard"
    draw = "deck" if draw_source == 0 else f"pile of colour {draw_source - 1}"
    return f"hand slot {hand_slot}, {place}, draw from {draw}"


def check_header(game, where):
    if game.get("format") != LOG_FORMAT:
        raise ReplayError(f"{where}: not a Lost Cities game log (format {game.get('format')!r})")
    if game.get("version") != LOG_VERSION:
        raise ReplayError(
            f"{where}: log version {game.get('version')!r}, but this replay reads version {LOG_VERSION}; "
            "replay it with the matching version of lost_cities"
        )
    if game.get("env", "match3") != "match3":
        raise ReplayError(f"{where}: env {game.get('env')!r}; only 3-round matches (match3) are logged")
    missing = [field for field in REQUIRED_FIELDS if field not in game]
    if missing:
        raise ReplayError(f"{where}: missing fields {missing}")


def replay_game(game, where="game"):
    """Replay one logged match; return its round scores and final totals."""
    if not isinstance(game, dict):
        raise ReplayError(f"{where}: a game is a JSON object, not {type(game).__name__} {game!r:.60}")
    check_header(game, where)
    actions = game["actions"]
    if not isinstance(actions, list):
        raise ReplayError(f"{where}: actions must be a list of action ids, not {actions!r:.60}")
    for ply, action in enumerate(actions):
        if not isinstance(action, int) or isinstance(action, bool):
            raise ReplayError(f"{where}, ply {ply}: action {action!r} is not an action id 0..{N_ACTIONS - 1}")
    try:
        ms = match_reset_from(np.asarray(game["deck_orders"], np.int32), np.asarray(game["coins"], np.int32))
    except (ValueError, TypeError) as error:
        raise ReplayError(f"{where}: bad deal: {error}") from error
    padded = np.full(-(-max(len(actions), 1) // PAD) * PAD, -1, np.int32)
    padded[: len(actions)] = actions
    final, per_ply = _replay_scan(ms, padded)
    legal, done_before, round_before, to_move, round_after, done_after, carry = jax.device_get(per_ply)
    for ply, action in enumerate(actions):
        if done_before[ply]:
            raise ReplayError(f"{where}, ply {ply}: action {action} after the match ended")
        if not legal[ply]:
            described = f" ({describe_action(action)})" if 0 <= action < N_ACTIONS else ""
            raise ReplayError(
                f"{where}, ply {ply} (round {round_before[ply] + 1}, seat {to_move[ply]} to move): "
                f"illegal action {action}{described}"
            )
    if not bool(final.done):
        raise ReplayError(
            f"{where}: the log stops in round {int(final.round_idx) + 1} of {N_ROUNDS}, before the match ends"
        )
    ends = [ply for ply in range(len(actions)) if round_after[ply] != round_before[ply] or done_after[ply]]
    totals = np.asarray([[0.0, 0.0]] + [carry[ply] for ply in ends])
    round_scores = np.diff(totals, axis=0).astype(int).tolist()
    final_carry = np.asarray(final.carry).astype(int).tolist()
    recorded = game.get("final_carry")
    if recorded is not None and [int(x) for x in recorded] != final_carry:
        raise ReplayError(f"{where}: the log records totals {recorded}, the engine replays {final_carry}")
    return ReplayedGame(seats=list(game["seats"]), round_scores=round_scores, final_carry=final_carry)


def read_numbered_games(path):
    """``[(line number, game)]`` of a JSONL log (blank lines skipped, numbers as in the file)."""
    games = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            games.append((number, json.loads(line)))
        except json.JSONDecodeError as error:
            raise ReplayError(f"{path}, line {number}: not JSON ({error})") from error
    if not games:
        raise ReplayError(f"{path}: no games (the file is empty)")
    return games


def format_game(index, game):
    seats = " vs ".join(f"seat {i} {who}" for i, who in enumerate(game.seats))
    rounds = ", ".join(f"round {r + 1} {a}:{b}" for r, (a, b) in enumerate(game.round_scores))
    a, b = game.final_carry
    winner = "draw" if a == b else f"{game.seats[0 if a > b else 1]} wins"
    return f"game {index}: {seats}; {rounds}; final {a}:{b} ({winner})"
