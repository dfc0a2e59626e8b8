"""Parity fixture of the search belief's inputs and outputs for the web client's search mode.

Plays match3 games in JAX on deals drawn as the engine fixture draws them
(``random_deal`` of tools/parity_fixture.py), each move ``heuristic_expert``'s or
the random bot's by a coin flip (``mixed_move`` of tools/action_fixture.py), and
records per game the deals and every action, so that the web client replays the game
through its own engine (``matchResetFrom(deck_orders, coins)`` then ``matchStep`` per
action, as web/tests/parity.test.ts does); and at every :data:`EVERY`-th ply of the game
(all rounds; every recorded ply is live) what the search's learned belief
(:mod:`lost_cities.search.belief`) reads there and what it says: ``features`` (the
mover's observation v2 and the opponent's latest moves), ``prior``
(:func:`~lost_cities.search.belief.uniform_logit`) and the belief's ``logits`` (flax, from
the given belief file). The TypeScript port must build the features and prior bit for bit
from its own state; its ONNX belief (``python -m lost_cities.search.belief export``) must
give the logits up to float rounding. Arrays are the raw float32 bytes (zlib, base64), as in
the other fixtures.

    python tools/belief_fixture.py \\
        --belief lost_cities/search/beliefs/bc-ppo-xi6-bal2700.msgpack --out web/tests/fixtures/belief.json
"""

import argparse
import functools
import json
from pathlib import Path

import jax
import numpy as np
from action_fixture import mixed_move
from parity_fixture import pack, random_deal

from lost_cities.envs import make as make_env
from lost_cities.game.cards import N_CARDS
from lost_cities.game.engine import MAX_STEPS
from lost_cities.game.match import N_ROUNDS
from lost_cities.search import belief as belief_module

FORMAT_VERSION = 1
ENV = "match3"
GAMES = 4
EVERY = 3  # a position at every 3rd ply of a game
MAX_PLIES = N_ROUNDS * MAX_STEPS  # a match has ended by then


@functools.cache
def _play(env_name):
    env = make_env(env_name)

    @jax.jit
    def play(state, key):
        """The state before every one of ``MAX_PLIES`` plies and the move made there."""

        def ply(state, key):
            action = mixed_move(state, key)
            return env.step(state, action)[0], (state, action)

        return jax.lax.scan(ply, state, jax.random.split(key, MAX_PLIES))[1]

    return play


@functools.cache
def _inputs(env_name, moves):
    env = make_env(env_name)
    return jax.jit(
        jax.vmap(lambda s: (belief_module.features(env, s, moves), belief_module.uniform_logit(s)))
    )


def play_game(belief, seed, game):
    """One game's fixture entry: game ``game`` of seed ``seed`` (each game its own deal and keys,
    so that any one of them can be played again alone)."""
    env = make_env(ENV)
    deck_orders, coins = random_deal(np.random.default_rng((seed, game)))
    states, actions = _play(ENV)(
        env.init_from_deal(deck_orders, coins), jax.random.fold_in(jax.random.PRNGKey(seed), game)
    )
    done = np.asarray(env.done(states))
    length = int(np.argmax(done)) if done.any() else MAX_PLIES
    if length == MAX_PLIES or done[length:].sum() != MAX_PLIES - length:
        raise RuntimeError(f"game {game} of seed {seed} did not end within {MAX_PLIES} plies")
    plies = np.arange(0, length, EVERY)
    chosen = jax.tree.map(lambda x: x[plies], states)
    assert not np.asarray(chosen.round.done).any()
    x, prior = _inputs(ENV, belief.moves)(chosen)
    logits = belief_module.BeliefNet(belief.hidden).apply(belief.params, x, prior)
    return {
        "deck_orders": deck_orders.tolist(),
        "coins": coins.tolist(),
        "actions": np.asarray(actions[:length]).astype(int).tolist(),
        "plies": plies.tolist(),
        "round_idx": np.asarray(chosen.round_idx).astype(int).tolist(),
        "features": pack(x, np.float32),
        "prior": pack(prior, np.float32),
        "logits": pack(logits, np.float32),
    }


def build_fixture(belief_path, seed, games=GAMES):
    belief = belief_module.load(belief_path, ENV)
    env = make_env(ENV)
    return {
        "format_version": FORMAT_VERSION,
        "generator": "python tools/belief_fixture.py",
        "belief": str(belief_path),
        "seed": seed,
        "env": ENV,
        "obs_version": env.obs_version,
        "obs_dim": env.obs_dim,
        "moves": belief.moves,
        "features_dim": env.obs_dim + 2 * N_CARDS * belief.moves,
        "every": EVERY,
        "games": [play_game(belief, seed, game) for game in range(games)],
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--belief", type=Path, required=True, help="the belief file (.msgpack)")
    parser.add_argument("--out", type=Path, default=Path("web/tests/fixtures/belief.json"))
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--games", type=int, default=GAMES)
    args = parser.parse_args(argv)
    fixture = build_fixture(args.belief, args.seed, args.games)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, separators=(",", ":")))
    positions = sum(len(game["plies"]) for game in fixture["games"])
    plies = sum(len(game["actions"]) for game in fixture["games"])
    print(
        f"wrote {args.out}: {len(fixture['games'])} games, {plies} plies, {positions} positions, "
        f"{args.out.stat().st_size} bytes"
    )


if __name__ == "__main__":
    main()
