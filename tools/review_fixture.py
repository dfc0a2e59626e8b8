"""Parity fixture of the page's match review (web/tests/review.test.ts, web/src/review.ts).

On positions of the search fixture's match (tools/search_fixture.py: the page's net greedy for
both seats), a "player's move" is taken (a random legal move outside the search's candidates,
or at some positions the net's own move), and the Python search
(:func:`lost_cities.search.agent.search_decision`, the page's preset with uniform worlds) is
run from the mover's information set. Its candidates and the player's move are rolled out to
the round's end in the worlds it sampled (:func:`lost_cities.search.rollout.rollout_values`),
and the review's numbers computed from them: the search's choice, its mean paired gain over
the player's move and the standard error of that mean over the worlds. The TypeScript review,
given the same worlds, must give the same choice and a gain within that standard error.

    python tools/review_fixture.py --out web/tests/fixtures/review.json
"""

import argparse
import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from search_fixture import (
    MODEL,
    ROOT,
    candidate_plies,
    check_worlds,
    fixture_file,
    hidden_of,
    play_match,
    search_config,
)

from lost_cities.agents import load_exported
from lost_cities.game.match import match_legal_action_mask
from lost_cities.search.agent import search_decision
from lost_cities.search.candidates import logit_scores
from lost_cities.search.inference import sample_worlds
from lost_cities.search.rollout import rollout_values

FORMAT_VERSION = 1


def reviewer(cfg):
    """``review(policy, scores, ms, key, played)``: the search's decision at ``ms`` and every
    world's value of its candidates and of ``played`` (the last column); compiled once."""

    @jax.jit
    def run(policy, scores, state, key, played):
        action, info = search_decision(cfg, policy, scores, state, key)
        _, world_key, rollout_key = jax.random.split(key, 3)  # as search_decision splits its key
        worlds = sample_worlds(world_key, state, cfg.worlds, cfg.inference_pool, policy, cfg.inference_moves)
        keys = jax.random.split(rollout_key, cfg.worlds)
        lanes = jnp.concatenate([info["actions"], played[None]])
        values = rollout_values(worlds, lanes, policy, keys, cfg.depth, cfg.start_value, cfg.scales)
        return action, info, worlds, values

    def review(policy, scores, ms, key, played):
        action, info, worlds, values = run(policy, scores, ms, key, jnp.int32(played))
        values = np.asarray(values, np.float64)
        candidates = np.asarray(info["actions"]).astype(int).tolist()
        if not np.array_equal(values[:, : len(candidates)], np.asarray(info["values"])):
            raise RuntimeError(
                "the re-derived worlds do not give the search's values: search_decision changed"
            )
        chosen = int(info["index"])
        paired = values[:, chosen] - values[:, -1]
        return {
            "candidates": candidates,
            "played": int(played),
            "values": values.astype(int).tolist()
            if np.array_equal(values, np.round(values))
            else values.tolist(),
            "chosen": chosen,
            "best": int(action),
            "gain": float(np.mean(paired)),
            "se": float(np.std(paired, ddof=1) / np.sqrt(len(paired))),
            "worlds": [hidden_of(jax.tree.map(lambda x, w=w: x[w], worlds)) for w in range(cfg.worlds)],
        }

    return review


def build_fixture(seed, positions, own_moves):
    cfg = search_config()
    agent = load_exported(ROOT / "web" / "public" / MODEL)
    policy, scores = agent.policy, logit_scores(agent)
    deck_orders, coins, states, actions = play_match(policy, seed)
    review = reviewer(cfg)
    rng = np.random.default_rng(seed)
    plies = [
        p
        for p in candidate_plies(states)
        if int(np.sum(np.asarray(match_legal_action_mask(states[p])))) > cfg.candidates
    ]
    picked = [plies[round(i * (len(plies) - 1) / max(positions - 1, 1))] for i in range(positions)]
    out = []
    for i, ply in enumerate(picked):
        ms = states[ply]
        legal = np.flatnonzero(np.asarray(match_legal_action_mask(ms)))
        if i % 3 == 1 and sum(o["played_kind"] == "the net's own" for o in out) < own_moves:
            played, kind = actions[ply], "the net's own"  # the match was the net's
        else:
            net_order = np.argsort(-np.asarray(scores(ms))[legal], kind="stable")
            outside = legal[net_order[cfg.candidates :]]
            played, kind = int(rng.choice(outside)), "outside the candidates"
        record = review(policy, scores, ms, jax.random.PRNGKey(1000 + ply), played)
        check_worlds(ms, record["worlds"])
        mover = int(ms.round.to_move)
        out.append(
            {"ply": ply, "round_idx": int(ms.round_idx), "to_move": mover, "played_kind": kind, **record}
        )
        print(
            f"ply {ply} (round {int(ms.round_idx) + 1}): played {played} ({kind}), best {record['best']}, "
            f"gain {record['gain']:.2f} (s.e. {record['se']:.2f})",
            file=sys.stderr,
        )
    return fixture_file(
        "review_fixture", FORMAT_VERSION, MODEL, cfg, seed, deck_orders, coins, actions[: picked[-1] + 1], out
    )


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "web" / "tests" / "fixtures" / "review.json")
    parser.add_argument("--seed", type=int, default=3, help="the match's deal (the search fixture's)")
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument(
        "--own-moves", type=int, default=2, help="positions where the player's move is the net's own"
    )
    args = parser.parse_args(argv)
    fixture = build_fixture(args.seed, args.positions, args.own_moves)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
    print(f"wrote {args.out}: {len(fixture['positions'])} positions, {args.out.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
