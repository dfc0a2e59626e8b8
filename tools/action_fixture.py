"""Parity fixture of the ``af1`` action features for the web client (web/tests/actionFeatures.test.ts).

Plays games in JAX (match3 with observation v2, and single_round with v1), each move
``heuristic_expert``'s or the random bot's by a coin flip so that expeditions get built
as a strong player builds them and odd positions occur too, and records at a spread of
plies the mover's observation and what :func:`lost_cities.networks.features.action_features`
computes from it under ``jit`` (as training and the ONNX agent run it): the placement
rows, the draw rows, and the legal mask. The TypeScript port (web/src/actionFeatures.ts)
must reproduce the rows from the observation alone. Arrays are the raw float32 / uint8
bytes (zlib, base64), as in the engine fixture (tools/parity_fixture.py).

    python tools/action_fixture.py --out web/tests/fixtures/actions.json

For the web client's end-to-end test it also writes a test-only af1 model and checks
what it played: ``--expert-model OUT.onnx`` writes an ActionNet graph (and its manifest)
whose weights are all zero except the draw weight of the expert-total column, so its
greedy move is exactly ``heuristic_expert``'s (the legal argmax of the expert's score,
lowest id on ties) as long as the af1 rows it is fed are right; ``--check-log LOG.jsonl``
replays a downloaded game log and counts the agent's moves that differ from
``heuristic_expert``'s (exit status 1 if any do).

    python tools/action_fixture.py --expert-model web/test-results/af1-expert.onnx
    python tools/action_fixture.py --check-log web/test-results/games-af1.jsonl
"""

import argparse
import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from parity_fixture import pack

from lost_cities import bots
from lost_cities.envs import make as make_env
from lost_cities.networks.features import (
    AF_VERSION,
    EXPERT_TOTAL,
    N_DRAW_FEATURES,
    N_PLACEMENT_FEATURES,
    batched_action_features,
)

FORMAT_VERSION = 1
PLIES = 150  # per game: a match3 game of these moves reaches round 3
# env name -> (games, positions kept); observation v2 (the match) gets the most
ENVS = {"match3": (6, 240), "single_round": (4, 60)}
EXPERT_SHARE = 0.7  # a move is heuristic_expert's with this probability, else random's


def mixed_move(state, key):
    """``heuristic_expert``'s move with probability :data:`EXPERT_SHARE`, else the random bot's."""
    coin, key = jax.random.split(key)
    expert, random_bot = bots.make("heuristic_expert"), bots.make("random")
    return jnp.where(jax.random.bernoulli(coin, EXPERT_SHARE), expert(state, key), random_bot(state, key))


def play(env, games, seed):
    """``(obs, mask)`` of the player to move at every live ply of ``games`` games."""

    def ply(state, key):
        record = (env.observe(state, env.to_move(state)), env.legal_mask(state), env.done(state))
        return env.step(state, mixed_move(state, key))[0], record

    def game(key):
        init_key, play_key = jax.random.split(key)
        return jax.lax.scan(ply, env.init(init_key), jax.random.split(play_key, PLIES))[1]

    obs, masks, done = jax.jit(jax.vmap(game))(jax.random.split(jax.random.PRNGKey(seed), games))
    live = ~np.asarray(done).reshape(-1)
    return np.asarray(obs).reshape(-1, env.obs_dim)[live], np.asarray(masks).reshape(-1, 96)[live]


def env_block(name, games, keep, seed):
    env = make_env(name)
    obs, masks = play(env, games, seed)
    picks = np.linspace(0, len(obs) - 1, keep).round().astype(int)  # a spread over the games' plies
    obs, masks = obs[picks], masks[picks]
    placement, draw = jax.device_get(jax.jit(batched_action_features)(jnp.asarray(obs)))
    return {
        "env": name,
        "obs_version": env.obs_version,
        "obs_dim": env.obs_dim,
        "count": int(len(obs)),
        "obs": pack(obs, np.float32),
        "mask": pack(masks, np.uint8),
        "placement": pack(placement, np.float32),
        "draw": pack(draw, np.float32),
    }


def build_fixture(seed, envs=None):
    envs = ENVS if envs is None else envs
    return {
        "format_version": FORMAT_VERSION,
        "generator": "python tools/action_fixture.py",
        "features": AF_VERSION,
        "placement_shape": [16, N_PLACEMENT_FEATURES],
        "draw_shape": [96, N_DRAW_FEATURES],
        "seed": seed,
        "blocks": [
            env_block(name, games, keep, seed + i) for i, (name, (games, keep)) in enumerate(envs.items())
        ],
    }


def expert_model(out, width=8, logit_per_point=1.0):
    """Write the test-only ActionNet whose greedy policy is ``heuristic_expert`` (module
    docstring): its logit of an action is ``logit_per_point`` times the expert's score (a
    negative factor gives a model that ranks the expert's moves upside down)."""
    import onnx

    from lost_cities.export.onnx import (
        ACTION_ENCODING,
        ACTION_TARGET,
        ILLEGAL_LOGIT,
        OPSET,
        input_shapes,
        policy_graph,
    )
    from lost_cities.game.cards import N_ACTIONS
    from lost_cities.obs.v2 import OBS_V2_DIM, OBS_V2_VERSION

    def dense(fan_in, fan_out, bias=True):
        layer = {"kernel": np.zeros((fan_in, fan_out), np.float32)}
        if bias:
            layer["bias"] = np.zeros(fan_out, np.float32)
        return layer

    draw_weights = dense(width, N_DRAW_FEATURES)
    draw_weights["bias"][EXPERT_TOTAL] = 10.0 * logit_per_point  # the feature is the score / 10
    params = {
        "params": {
            "trunk": {"Dense_0": dense(OBS_V2_DIM, width)},
            "context_in": dense(width, width),
            "placement_in": dense(N_PLACEMENT_FEATURES, width, bias=False),
            "placement_score": dense(width, 1),
            "draw_weights": draw_weights,
        }
    }
    network = {
        "_target_": ACTION_TARGET,
        "hidden": [width],
        "placement_hidden": [width],
        "activation": "relu",
    }
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(policy_graph(params, network, OBS_V2_DIM), out)
    info = {
        "name": "af1 test model (plays heuristic_expert's moves)",
        "placeholder": False,
        "obs_version": OBS_V2_VERSION,
        "obs_dim": OBS_V2_DIM,
        "n_actions": N_ACTIONS,
        "action_encoding": ACTION_ENCODING,
        "env": "match3",
        "opset": OPSET,
        "features": AF_VERSION,
        "inputs": input_shapes(network, OBS_V2_DIM),
        "outputs": {"probs": ["N", N_ACTIONS], "logits": ["N", N_ACTIONS]},
        "illegal_logit": ILLEGAL_LOGIT,
        "network": network,
        "checkpoint": None,
        "update": None,
        "gates": None,
    }
    out.with_suffix(".json").write_text(json.dumps(info, indent=2) + "\n")
    return out


def expert_disagreements(log_path):
    """``(agent moves, moves that differ from heuristic_expert's)`` over a game log's matches."""
    from lost_cities.game.match import match_reset_from, match_step

    expert = jax.jit(bots.make("heuristic_expert"))
    step = jax.jit(match_step)
    moves = differ = 0
    for line in Path(log_path).read_text().splitlines():
        if not line.strip():
            continue
        game = json.loads(line)
        agent_seat = game["seats"].index("agent")
        ms = match_reset_from(np.asarray(game["deck_orders"], np.int32), np.asarray(game["coins"], np.int32))
        for action in game["actions"]:
            if int(ms.to_move) == agent_seat:
                moves += 1
                differ += int(expert(ms, jax.random.PRNGKey(0))) != action
            ms = step(ms, action)[0]
    return moves, differ


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=Path("web/tests/fixtures/actions.json"))
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--expert-model", type=Path, help="write the test-only af1 model there instead")
    parser.add_argument(
        "--check-log", type=Path, help="compare a game log's agent moves with heuristic_expert's"
    )
    args = parser.parse_args(argv)
    if args.expert_model:
        print(f"wrote {expert_model(args.expert_model)} and its manifest")
        return
    if args.check_log:
        moves, differ = expert_disagreements(args.check_log)
        print(f"{args.check_log}: {moves} agent moves, {differ} differ from heuristic_expert's")
        sys.exit(1 if differ or not moves else 0)
    fixture = build_fixture(args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(fixture, separators=(",", ":")))
    counts = ", ".join(f"{b['count']} {b['env']} ({b['obs_version']})" for b in fixture["blocks"])
    print(f"wrote {args.out}: {counts} positions, {args.out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
