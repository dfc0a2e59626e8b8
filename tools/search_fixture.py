"""Parity fixture of the search's decisions for the web client (web/tests/search.test.ts).

Plays one 3-round match with the page's net greedy for both seats (the model runs as its JAX
network, ``load_exported``, as the Python search runs it), and at a handful of its positions
runs the Python search (:func:`lost_cities.search.agent.search_decision`) with the knobs of
the page's preset (``load_preset("belief")``) but uniform worlds: the belief is not part of
this fixture, the worlds are. Each position records the worlds the search sampled (each
one's hidden information: the opponent's hand and the undrawn deck in order), its
candidates, every world's value of every candidate (match points: the preset's scales are
0), the mean paired gains, the chosen candidate and the move. The TypeScript search
(web/src/search.ts), given the same worlds and the same net (onnxruntime-web on the .onnx),
must decide the same.

The worlds are re-derived from the search's key exactly as ``search_decision`` splits it
(``sample_worlds`` of its world key), and checked: rolling the candidates out again in
the exported worlds must give the search's own values, so the fixture's worlds are the
ones the search used.

    python tools/search_fixture.py --out web/tests/fixtures/search.json
"""

import argparse
import json
import sys
from pathlib import Path

import jax
import numpy as np

from lost_cities.agents import load_exported
from lost_cities.export.web_contract import PAGE_PRESET
from lost_cities.game.cards import N_CARDS
from lost_cities.game.engine import LOC_HAND
from lost_cities.game.match import N_ROUNDS, match_legal_action_mask, match_reset_from, match_step
from lost_cities.search.agent import search_decision
from lost_cities.search.candidates import logit_scores
from lost_cities.search.config import load_preset
from lost_cities.search.inference import sample_worlds
from lost_cities.search.rollout import rollout_values

FORMAT_VERSION = 1
ROOT = Path(__file__).resolve().parent.parent
MODEL = "bc-ppo-xi6-bal2700.onnx"  # in web/public: the page's search agent's net
PLIES_PER_ROUND = (8, 22)  # a round's plies at which the candidate positions start, and their spacing


def search_config():
    """The page's preset with uniform worlds (the fixture gives the worlds, not a belief)."""
    return load_preset(PAGE_PRESET, belief=None)


def play_match(policy, seed):
    """``(deck_orders, coins, states, actions)``: a match played greedily by ``policy`` for both
    seats; ``states[i]`` is the position before ``actions[i]``."""
    rng = np.random.default_rng(seed)
    deck_orders = np.stack([rng.permutation(N_CARDS) for _ in range(N_ROUNDS)]).astype(np.int32)
    coins = rng.integers(0, 2, N_ROUNDS).astype(np.int32)
    ms = match_reset_from(deck_orders, coins)
    act, step = jax.jit(policy), jax.jit(match_step)
    states, actions = [], []
    while not bool(ms.done):
        action = int(act(ms, jax.random.PRNGKey(0)))
        states.append(ms)
        actions.append(action)
        ms, _, _ = step(ms, action)
    return deck_orders, coins, states, actions


def candidate_plies(states):
    """Plies of the match, in each round from its ``PLIES_PER_ROUND[0]``-th on, every
    ``PLIES_PER_ROUND[1]``-th, with at least 4 cards left in the deck."""
    start, every = PLIES_PER_ROUND
    return [
        ply
        for ply, ms in enumerate(states)
        if int(ms.round.plies) >= start
        and (int(ms.round.plies) - start) % every == 0
        and N_CARDS - int(ms.round.deck_ptr) >= 4
    ]


def hidden_of(world):
    """What a world deals that the mover has not seen: the opponent's sorted hand and the
    undrawn deck, in drawing order."""
    round_state = world.round
    opponent = 1 - int(round_state.to_move)
    loc = np.asarray(round_state.loc).astype(int)
    deck_ptr = int(round_state.deck_ptr)
    deck = [int(np.flatnonzero(loc == position)[0]) for position in range(deck_ptr, N_CARDS)]
    return {"opponent_hand": np.asarray(round_state.hands[opponent]).astype(int).tolist(), "deck": deck}


def searcher(cfg):
    """``decide(policy, scores, ms, key)``: the Python search's decision at ``ms`` with the
    worlds it sampled and its values (see the module doc); compiled once."""

    @jax.jit
    def run(policy, scores, state, key):
        action, info = search_decision(cfg, policy, scores, state, key)
        _, world_key, rollout_key = jax.random.split(key, 3)  # as search_decision splits its key
        worlds = sample_worlds(world_key, state, cfg.worlds, cfg.inference_pool, policy, cfg.inference_moves)
        keys = jax.random.split(rollout_key, cfg.worlds)
        again = rollout_values(worlds, info["actions"], policy, keys, cfg.depth, cfg.start_value, cfg.scales)
        return action, info, worlds, again

    def decide(policy, scores, ms, key):
        action, info, worlds, again = run(policy, scores, ms, key)
        return _record(cfg, action, info, worlds, again)

    return decide


def _record(cfg, action, info, worlds, again):
    values = np.asarray(info["values"])
    if not np.array_equal(np.asarray(again), values):
        raise RuntimeError("the re-derived worlds do not give the search's values: search_decision changed")
    gains = np.mean(values - values[:, :1], axis=0, dtype=np.float32)
    return {
        "candidates": np.asarray(info["actions"]).astype(int).tolist(),
        "valid": np.asarray(info["valid"]).astype(bool).tolist(),
        "values": values.astype(int).tolist()
        if np.array_equal(values, np.round(values))
        else values.tolist(),
        "gains": [float(g) for g in gains],
        "chosen": int(info["index"]),
        "action": int(action),
        "worlds": [hidden_of(jax.tree.map(lambda x, w=w: x[w], worlds)) for w in range(cfg.worlds)],
    }


def check_worlds(ms, worlds):
    """Each world deals exactly the cards the mover has not seen, keeping the opponent's known ones."""
    round_state = ms.round
    mover = int(round_state.to_move)
    loc = np.asarray(round_state.loc).astype(int)
    unseen = set(np.flatnonzero((loc < LOC_HAND) | (loc == LOC_HAND + 1 - mover)).tolist())
    known = set(np.asarray(round_state.hands[1 - mover]).astype(int).tolist()) - unseen
    for world in worlds:
        dealt = set(world["opponent_hand"]) - known
        assert known <= set(world["opponent_hand"]) and dealt | set(world["deck"]) == unseen
        assert len(world["deck"]) == N_CARDS - int(round_state.deck_ptr)


def pick(found, count, deviating):
    """``count`` positions spread over the match, at most ``deviating`` of them where the search
    leaves the net's move (all it found, if fewer) and the rest where it keeps it."""
    moved = [p for p in found if p["chosen"] > 0][:deviating]
    kept = [p for p in found if p["chosen"] == 0]
    rest = count - len(moved)
    spread = [kept[round(i * (len(kept) - 1) / max(rest - 1, 1))] for i in range(rest)] if kept else []
    chosen = {p["ply"]: p for p in moved + spread}
    return [chosen[ply] for ply in sorted(chosen)]


def build_fixture(seed, positions, deviating, model=MODEL):
    cfg = search_config()
    agent = load_exported(ROOT / "web" / "public" / model)
    policy, scores = agent.policy, logit_scores(agent)
    deck_orders, coins, states, actions = play_match(policy, seed)
    decide = searcher(cfg)
    found = []
    for ply in candidate_plies(states):
        ms = states[ply]
        if int(np.sum(np.asarray(match_legal_action_mask(ms)))) < cfg.candidates:
            continue
        record = decide(policy, scores, ms, jax.random.PRNGKey(ply))
        check_worlds(ms, record["worlds"])
        mover = int(ms.round.to_move)
        found.append(
            {
                "ply": ply,
                "round_idx": int(ms.round_idx),
                "to_move": mover,
                "deck_left": N_CARDS - int(ms.round.deck_ptr),
                "hand": np.asarray(ms.round.hands[mover]).astype(int).tolist(),
                **record,
            }
        )
        print(
            f"ply {ply} (round {int(ms.round_idx) + 1}, deck {found[-1]['deck_left']}): candidates "
            f"{record['candidates']}, gains {np.round(record['gains'], 3).tolist()}, "
            f"chosen {record['chosen']}",
            file=sys.stderr,
        )
    picked = pick(found, positions, deviating)
    last = picked[-1]["ply"]
    moves = actions[: last + 1]
    return fixture_file("search_fixture", FORMAT_VERSION, model, cfg, seed, deck_orders, coins, moves, picked)


def fixture_file(tool, version, model, cfg, seed, deck_orders, coins, actions, positions):
    """A fixture's JSON: the match (its deal and moves), the page preset's knobs, and
    ``positions``; the search and review fixtures share the layout the web tests read."""
    return {
        "format_version": version,
        "generator": f"python tools/{tool}.py",
        "model": model,
        "preset": PAGE_PRESET,
        "knobs": {
            "worlds": cfg.worlds,
            "candidates": cfg.candidates,
            "gate_points": cfg.gate_points,
            "gate_z": cfg.gate_z,
        },
        "worlds_dealt": "uniform (the belief is not part of this fixture)",
        "seed": seed,
        "deck_orders": deck_orders.tolist(),
        "coins": coins.tolist(),
        "actions": actions,
        "positions": positions,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "web" / "tests" / "fixtures" / "search.json")
    parser.add_argument("--seed", type=int, default=3, help="the match's deal")
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument(
        "--deviating", type=int, default=2, help="at most this many positions where the search leaves the net"
    )
    args = parser.parse_args(argv)
    fixture = build_fixture(args.seed, args.positions, args.deviating)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
    moved = sum(p["chosen"] > 0 for p in fixture["positions"])
    print(
        f"wrote {args.out}: {len(fixture['positions'])} positions ({moved} leaving the net's move), "
        f"{fixture['knobs']['worlds']} worlds each, {args.out.stat().st_size} bytes"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
