"""How much the opponent's recent moves say about its hand (lost_cities/search/inference.py,
experiments/search-inference/README.md).

    python experiments/search-inference/inference_evidence.py [GAMES] [base=SPEC] [belief=FILE]

Positions: every 5th decision at least 17 plies into a round of GAMES matches of the base
(``heuristic_expert`` unless ``base=`` names a bot, a checkpoint dir or an exported .onnx,
run as its JAX network) against itself (seed 13). For 1, 2, 4 and 8 of the opponent's
latest moves, the share of them the base (as the model) plays again in its rebuilt
decisions: in 8 worlds kept from pools of 1 (uniform), 4 and 16 times as many, with
``belief=`` also in 8 worlds dealt by that learned belief (pool 1), and in the true state
itself. The true state's share is below 1 only where a rewound deck draw put back the
wrong card. With a net and its belief: how much the moves still say that the belief does
not know.
"""

import sys

import jax
import numpy as np

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.game.match import match_reset, match_step
from lost_cities.policies import ModelSpec, network, parse
from lost_cities.search.belief import load, world_sampler
from lost_cities.search.config import knob_overrides
from lost_cities.search.inference import explained_moves, sample_worlds


def positions(games, model):
    def one_ply(states, key):
        moves = jax.vmap(model)(states, jax.random.split(key, games))
        return jax.vmap(match_step)(states, moves)[0], states

    states = jax.vmap(match_reset)(jax.random.split(jax.random.PRNGKey(13), games))
    play = jax.jit(lambda s: jax.lax.scan(one_ply, s, jax.random.split(jax.random.PRNGKey(14), 120)))
    flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), play(states)[1])
    keep = np.flatnonzero(~np.asarray(flat.round.done) & (np.asarray(flat.round.plies) >= 17))[::5]
    return jax.tree.map(lambda x: x[keep], flat)


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    knobs = knob_overrides(sys.argv[2:])
    base, belief = str(knobs.pop("base", "heuristic_expert")), knobs.pop("belief", None)
    if knobs:
        raise ValueError(f"unknown knobs {sorted(knobs)}: give base= and belief= only")
    env = envs.make("match3")
    model = network(base, env).policy if isinstance(parse(base), ModelSpec) else make(base)
    deals = {f"pool {pool}": (pool, None) for pool in (1, 4, 16)}
    if belief is not None:
        deals["belief"] = (1, world_sampler(load(belief, env.name)))
    states = positions(games, model)
    keys = jax.random.split(jax.random.PRNGKey(5), len(states.round_idx))
    print(f"{len(keys)} positions; share of the opponent's latest moves explained (all explained)")
    for moves in (1, 2, 4, 8):

        def explained(world, key, moves=moves):
            return explained_moves(world, model, key, moves)

        def kept(state, key, pool, deal, moves=moves, explained=explained):
            worlds = sample_worlds(key, state, 8, pool, model, moves, deal)
            return jax.vmap(explained)(worlds, jax.random.split(jax.random.fold_in(key, 1), 8))

        row = []
        for name, (pool, deal) in deals.items():
            counts = np.asarray(
                jax.jit(jax.vmap(lambda s, k, pool=pool, deal=deal: kept(s, k, pool, deal)))(states, keys)
            )
            row.append(f"{name}: {counts.mean() / moves:.2f} ({(counts == moves).mean():.3f})")
        truth = np.asarray(jax.jit(jax.vmap(explained))(states, keys))
        row.append(f"true state: {truth.mean() / moves:.2f} ({(truth == moves).mean():.3f})")
        print(f"{moves} moves: " + "; ".join(row))


if __name__ == "__main__":
    main()
