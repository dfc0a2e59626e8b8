"""What a search gains in play over the rest of a round, paired on the true deck.

    python experiments/search-vs-net/realized.py POSITIONS OUT.json [preset=NAME] [base=SPEC]
        [round=3] [deck_left=N] [knob=v ...]

From POSITIONS positions of base-vs-base matches (every 5th ply, the true state; the base
``heuristic_expert`` unless ``base=`` names another policy: a bot, a checkpoint dir or an
exported .onnx, which runs as its JAX network), the seat to move plays the rest of the
round twice against the base: once as the base, once as ``search[/NAME]:<base>`` with the
knob overrides (``mover=SPEC``: as that policy instead, e.g. a network, to compare a
search with it). Both runs see the same true deck and the base plays greedily, so the
per-position difference of the mover's match points at the round's end is the search's
realized gain there with the deal's luck paired out: a 400-position run has a standard
error of about 0.8 points where a 500-deal duplicate evaluation's margin has about 1.5, at a
sixth of its cost.

``round=3`` takes the positions from the match's last round only; the round's end is then
the match's, and the row also holds what the search realizes in match wins (a win 1, a
draw 1/2, a loss 0), for settings that play for the win rather than the points.
``deck_left=N`` takes only positions with at most N cards left in the deck (the round's
end game, where the unseen cards are few and a rollout is short).

Why it exists: the expert's advantage of the search's choice per decision
(offline.py, graded with the opponent's true hand) sums over a round to about twice what
the search realizes in play, so a per-decision study alone cannot rank search settings.
"""

import json
import os
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.evaluation.duplicate import mover_actions
from lost_cities.evaluation.positions import positions
from lost_cities.evaluation.provenance import provenance
from lost_cities.game.cards import DECK_DRAWS, N_CARDS
from lost_cities.game.engine import step
from lost_cities.policies import ModelSpec, make_policy, network, parse
from lost_cities.search.config import knob_overrides
from lost_cities.search.rollout import match_points

MAX_PLIES = 80  # a round from a live position ends well within this (checked: an error otherwise)
CHUNK = 50


def rest_of_round(me_policy, opponent, states, keys):
    """Per position, the seat to move's match points when the round ends, it playing
    ``me_policy`` (each policy computed only where it moves, as the evaluation does)."""
    me = states.round.to_move
    capacity = me.shape[0]

    def ply(carry, t):
        ms, done = carry
        ply_keys = jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, t)
        mine = ms.round.to_move == me
        action = jnp.where(
            mine,
            mover_actions(me_policy, ms, ply_keys, mine & ~done, capacity, ms.round.deck_ptr),
            mover_actions(opponent, ms, ply_keys, ~mine & ~done, capacity, ms.round.deck_ptr),
        )
        after = jax.vmap(step)(ms.round, action)[0]
        ms = jax.tree.map(
            lambda old, new: jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), old, new),
            ms,
            ms.replace(round=after),
        )
        return (ms, done | after.done), None

    (ms, done), _ = jax.lax.scan(ply, (states, states.round.done), jnp.arange(MAX_PLIES))
    points = jax.vmap(match_points, in_axes=(0, 0, 0, None))(states, ms.round, me, 0.0)
    return points, done


def _policy(spec, env):
    """A bot by name, or a network (a checkpoint dir or .onnx) run as its JAX network."""
    return network(spec, env).policy if isinstance(parse(spec), ModelSpec) else make(spec)


def measured_positions(env, count, policy):
    """The positions these measurements share: every 5th ply of ``policy``'s self-play, seed 11
    (confidence.py reads the same ones)."""
    return positions(env, count, seed=11, every=5, policy=policy)


def main():
    n_positions, out, *knobs = sys.argv[1:]
    overrides = knob_overrides(knobs)
    preset, base = overrides.pop("preset", "default"), str(overrides.pop("base", "heuristic_expert"))
    spec = f"search/{preset}:{base}"
    last_round = overrides.pop("round", None)
    if last_round not in (None, 3):
        raise ValueError(f"round={last_round}: only round=3 (the match's last) is measured apart")
    deck_left = overrides.pop("deck_left", None)
    if deck_left is not None and not 0 < int(deck_left) < DECK_DRAWS:
        raise ValueError(f"deck_left={deck_left}: give a number of deck cards from 1 to {DECK_DRAWS - 1}")
    env = envs.make("match3")
    base_policy = _policy(base, env)  # the opponent and the reference
    mover = overrides.pop("mover", None)  # a policy to measure in the search's place
    if mover is None:
        searched = make_policy(spec, env, **overrides)
    else:
        spec, searched = str(mover), _policy(mover, env)
    if last_round is None and deck_left is None:
        states = measured_positions(env, int(n_positions), base_policy)
    else:  # draw enough positions, keep the first n of those asked for
        share = (1 / 3 if last_round else 1) * (int(deck_left) / DECK_DRAWS if deck_left else 1)
        pool = measured_positions(env, int(1.5 * int(n_positions) / share), base_policy)
        wanted = np.ones(pool.round_idx.shape, bool)
        if last_round:
            wanted &= np.asarray(pool.round_idx) == 2
        if deck_left:
            wanted &= N_CARDS - np.asarray(pool.round.deck_ptr, int) <= int(deck_left)
        keep = np.flatnonzero(wanted)[: int(n_positions)]
        states = jax.tree.map(lambda x: x[keep], pool)
    n = jax.tree.leaves(states)[0].shape[0]
    keys = jax.random.split(jax.random.PRNGKey(3), n)

    def run(policy):
        play = jax.jit(lambda s, k: rest_of_round(policy, base_policy, s, k))
        parts = [
            play(jax.tree.map(lambda x, i=i: x[i : i + CHUNK], states), keys[i : i + CHUNK])
            for i in range(0, n, CHUNK)
        ]
        points, done = (np.concatenate([np.asarray(p[j]) for p in parts]) for j in range(2))
        if not done.all():
            raise RuntimeError(f"{int((~done).sum())} rounds did not end within {MAX_PLIES} plies")
        return points

    start = time.perf_counter()
    search_points, base_points = run(searched), run(base_policy)
    gain = search_points - base_points
    seconds = time.perf_counter() - start
    row = {
        "agent": spec,
        "overrides": overrides,
        "positions": int(n),
        "deck_left": deck_left,
        "gain_mean": float(gain.mean()),
        "gain_se": float(gain.std(ddof=1) / np.sqrt(n)),
        "gains": [round(float(g), 3) for g in gain],  # per position, for paired comparisons
        "seconds": seconds,
        "load_average": os.getloadavg(),
    }
    if last_round is not None:
        win_gain = (np.sign(search_points) - np.sign(base_points)) / 2  # match score: 1, 1/2, 0
        row["round"] = last_round
        row["win_gain_mean"] = float(win_gain.mean())
        row["win_gain_se"] = float(win_gain.std(ddof=1) / np.sqrt(n))
        row["win_gains"] = [float(g) for g in win_gain]
    row["provenance"] = provenance(["python", *sys.orig_argv[1:]])  # as typed, also under oracle.py
    Path(out).write_text(json.dumps(row) + "\n")  # one line: the gains are 800 numbers
    wins = f", match score {row['win_gain_mean']:+.4f} (s.e. {row['win_gain_se']:.4f})" if last_round else ""
    print(
        f"{overrides}: realized gain {row['gain_mean']:+.2f} (s.e. {row['gain_se']:.2f}){wins} "
        f"over {n} positions, {seconds:.0f} s"
    )


if __name__ == "__main__":
    main()
