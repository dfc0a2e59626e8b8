"""Parity fixture for the web client's TypeScript engine (web/tests/parity.test.ts).

Plays random 3-round matches through the Python engine (``lost_cities.game.match``) and
records, per ply, everything the TypeScript port must reproduce exactly: the legal
mask, the observations of both seats in every implemented version, the action (some
of them illegal, a few out of range, and some after the end: all no-ops), the reward,
the carry, the board scores, the round index and the seat to move.

Observations are stored as the raw float32 bytes of each match (zlib, base64): exact
bits by construction, and small, since they are mostly one-hot zeros. A few matches
prefer discard-pile draws so that the ``MAX_STEPS`` forced end is covered too.

    python tools/parity_fixture.py --out web/tests/fixtures/parity.json
"""

import argparse
import base64
import json
import zlib
from pathlib import Path

import jax
import numpy as np

from lost_cities.game.cards import N_ACTIONS, N_CARDS
from lost_cities.game.engine import board_score
from lost_cities.game.match import N_ROUNDS, match_legal_action_mask, match_reset_from, match_step
from lost_cities.obs.v1 import OBS_DIM, OBS_VERSION, observation
from lost_cities.obs.v2 import OBS_V2_DIM, OBS_V2_VERSION, match_observation

FORMAT_VERSION = 1
OBSERVATIONS = {
    OBS_VERSION: (OBS_DIM, lambda ms, player: observation(ms.round, player)),
    OBS_V2_VERSION: (OBS_V2_DIM, match_observation),
}


@jax.jit
def _before(ms):
    obs = {
        version: jax.numpy.stack([observe(ms, 0), observe(ms, 1)])
        for version, (_, observe) in OBSERVATIONS.items()
    }
    return match_legal_action_mask(ms), obs


_step = jax.jit(match_step)
_board_score = jax.jit(lambda ms: board_score(ms.round))


def pack(rows, dtype):
    """An array's raw bytes, zlib-compressed and base64-encoded (exact, and small)."""
    return base64.b64encode(zlib.compress(np.asarray(rows, dtype).tobytes(), 9)).decode()


def integral(values):
    """Scores are whole points; write them as ints so the fixture stays short."""
    return [int(v) for v in np.asarray(values).tolist()]


def choose_action(rng, mask, stall):
    """Mostly a random legal action; sometimes an illegal or out-of-range one (no-ops)."""
    legal = np.flatnonzero(mask)
    illegal = np.flatnonzero(~mask)
    if rng.random() < 0.03:
        return int(rng.choice([-1, N_ACTIONS]))
    if rng.random() < 0.07 and illegal.size:
        return int(rng.choice(illegal))
    pile_draws = legal[legal % 6 != 0]
    if stall and pile_draws.size:
        return int(rng.choice(pile_draws))
    return int(rng.choice(legal))


def random_deal(rng):
    """``(deck_orders int32[3, 60], coins int32[3])``: a match's deals drawn by ``rng``, as
    :func:`lost_cities.game.match.match_reset_from` (and the web client's ``matchResetFrom``) take them."""
    deck_orders = np.stack([rng.permutation(N_CARDS) for _ in range(N_ROUNDS)]).astype(np.int32)
    coins = rng.integers(0, 2, N_ROUNDS).astype(np.int32)
    return deck_orders, coins


def play_match(rng, stall, extra_after_end=2):
    """One match, recorded column-wise: entry ``i`` of every column is ply ``i``."""
    deck_orders, coins = random_deal(rng)
    ms = match_reset_from(deck_orders, coins)
    columns = {name: [] for name in ("masks", "actions", "rewards", "done", "carry", "board")}
    columns.update({name: [] for name in ("round_idx", "to_move", "round_plies")})
    observations = {version: [] for version in OBSERVATIONS}
    remaining_after_end = extra_after_end
    while remaining_after_end > 0:
        mask, obs = jax.device_get(_before(ms))
        for version, both in obs.items():
            observations[version].append(both)
        was_done = bool(ms.done)
        action = int(rng.integers(0, N_ACTIONS)) if was_done else choose_action(rng, mask, stall)
        ms, reward, done = _step(ms, action)
        for name, value in (
            ("masks", mask),
            ("actions", action),
            ("rewards", integral(reward)),
            ("done", int(done)),
            ("carry", integral(ms.carry)),
            ("board", integral(_board_score(ms))),
            ("round_idx", int(ms.round_idx)),
            ("to_move", int(ms.to_move)),
            ("round_plies", int(ms.round.plies)),
        ):
            columns[name].append(value)
        remaining_after_end -= was_done or bool(done)
    columns["masks"] = pack(columns["masks"], np.uint8)
    return {
        "deck_orders": deck_orders.tolist(),
        "coins": coins.tolist(),
        "stall": stall,
        **columns,
        "observations": {version: pack(rows, np.float32) for version, rows in observations.items()},
    }


def build_fixture(n_matches, n_stalling, seed):
    rng = np.random.default_rng(seed)
    return {
        "format_version": FORMAT_VERSION,
        "generator": "python tools/parity_fixture.py",
        "seed": seed,
        "observations": {version: {"dim": dim} for version, (dim, _) in OBSERVATIONS.items()},
        "matches": [play_match(rng, stall=i >= n_matches - n_stalling) for i in range(n_matches)],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=Path("web/tests/fixtures/parity.json"))
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--stalling", type=int, default=1, help="how many matches prefer pile draws")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    fixture = build_fixture(args.matches, args.stalling, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, separators=(",", ":")))
    plies = sum(len(m["actions"]) for m in fixture["matches"])
    print(
        f"wrote {args.out}: {len(fixture['matches'])} matches, {plies} plies, {args.out.stat().st_size} bytes"
    )


if __name__ == "__main__":
    main()
