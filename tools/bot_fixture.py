"""Parity fixture of the scripted bots the web page plays (web/tests/bots.test.ts).

Plays a few match3 matches in which each move is ``heuristic_expert``'s, ``heuristic_cautious``'s
or a random legal move, drawn at random (expeditions get built as the bots build them, and odd
positions occur too), and records every ply's action and both Python bots' moves for the seat
to move there. The TypeScript bots (web/src/bots.ts) replay the matches and must choose the
Python bots' moves at every ply.

    python tools/bot_fixture.py --out web/tests/fixtures/bots.json
"""

import argparse
import json
from pathlib import Path

import jax
import numpy as np

from lost_cities import bots
from lost_cities.game.cards import N_CARDS
from lost_cities.game.match import N_ROUNDS, match_legal_action_mask, match_reset_from, match_step

FORMAT_VERSION = 1
SHARES = (
    0.35,
    0.35,
)  # a move is the expert's, the cautious bot's with these probabilities, else a random legal one


def build_fixture(seed, matches):
    rng = np.random.default_rng(seed)
    expert, cautious = jax.jit(bots.make("heuristic_expert")), jax.jit(bots.make("heuristic_cautious"))
    step, legal = jax.jit(match_step), jax.jit(match_legal_action_mask)
    games = []
    for _ in range(matches):
        deck_orders = np.stack([rng.permutation(N_CARDS) for _ in range(N_ROUNDS)]).astype(np.int32)
        coins = rng.integers(0, 2, N_ROUNDS).astype(np.int32)
        ms = match_reset_from(deck_orders, coins)
        actions, expert_moves, cautious_moves = [], [], []
        while not bool(ms.done):
            best = int(expert(ms, jax.random.PRNGKey(0)))
            careful = int(cautious(ms, jax.random.PRNGKey(0)))
            moves = np.flatnonzero(np.asarray(legal(ms)))
            coin = rng.random()
            action = best if coin < SHARES[0] else careful if coin < sum(SHARES) else int(rng.choice(moves))
            expert_moves.append(best)
            cautious_moves.append(careful)
            actions.append(action)
            ms = step(ms, action)[0]
        games.append(
            {
                "deck_orders": deck_orders.tolist(),
                "coins": coins.tolist(),
                "actions": actions,
                "expert": expert_moves,
                "cautious": cautious_moves,
            }
        )
    return {
        "format_version": FORMAT_VERSION,
        "generator": "python tools/bot_fixture.py",
        "seed": seed,
        "matches": games,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=Path("web/tests/fixtures/bots.json"))
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--matches", type=int, default=4)  # web/tests/bots.test.ts needs 30 pile draws a bot
    args = parser.parse_args(argv)
    fixture = build_fixture(args.seed, args.matches)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
    plies = sum(len(m["actions"]) for m in fixture["matches"])
    print(f"wrote {args.out}: {len(fixture['matches'])} matches, {plies} plies with both bots' moves")


if __name__ == "__main__":
    main()
