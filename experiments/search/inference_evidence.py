"""How much the opponent's recent moves say about its hand (lost_cities/search/inference.py,
experiments/search/README.md, session 8).

    python experiments/search/inference_evidence.py [GAMES]

Positions: every 5th decision at least 17 plies into a round of GAMES expert-vs-expert
matches (seed 13). For 1, 2, 4 and 8 of the opponent's latest moves, the share of them the
expert (as the model) plays again in its rebuilt decisions: in 8 worlds kept from pools of
1 (uniform), 4 and 16 times as many, and in the true state itself. The true state's share
is below 1 only where a rewound deck draw put back the wrong card.
"""

import sys

import jax
import numpy as np

from lost_cities.bots import make
from lost_cities.game.match import match_reset, match_step
from lost_cities.search.inference import explained_moves, sample_worlds

EXPERT = make("heuristic_expert")


def positions(games):
    def one_ply(states, key):
        moves = jax.vmap(EXPERT)(states, jax.random.split(key, games))
        return jax.vmap(match_step)(states, moves)[0], states

    states = jax.vmap(match_reset)(jax.random.split(jax.random.PRNGKey(13), games))
    play = jax.jit(lambda s: jax.lax.scan(one_ply, s, jax.random.split(jax.random.PRNGKey(14), 120)))
    flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), play(states)[1])
    keep = np.flatnonzero(~np.asarray(flat.round.done) & (np.asarray(flat.round.plies) >= 17))[::5]
    return jax.tree.map(lambda x: x[keep], flat)


def main():
    states = positions(int(sys.argv[1]) if len(sys.argv) > 1 else 16)
    keys = jax.random.split(jax.random.PRNGKey(5), len(states.round_idx))
    print(f"{len(keys)} positions; share of the opponent's latest moves explained (all explained)")
    for moves in (1, 2, 4, 8):

        def explained(world, key, moves=moves):
            return explained_moves(world, EXPERT, key, moves)

        def kept(state, key, pool, moves=moves, explained=explained):
            worlds = sample_worlds(key, state, 8, pool, EXPERT, moves)
            return jax.vmap(explained)(worlds, jax.random.split(jax.random.fold_in(key, 1), 8))

        row = []
        for pool in (1, 4, 16):
            counts = np.asarray(jax.jit(jax.vmap(lambda s, k, pool=pool: kept(s, k, pool)))(states, keys))
            row.append(f"pool {pool}: {counts.mean() / moves:.2f} ({(counts == moves).mean():.3f})")
        truth = np.asarray(jax.jit(jax.vmap(explained))(states, keys))
        row.append(f"true state: {truth.mean() / moves:.2f} ({(truth == moves).mean():.3f})")
        print(f"{moves} moves: " + "; ".join(row))


if __name__ == "__main__":
    main()
