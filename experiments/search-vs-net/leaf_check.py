"""How well a checkpoint's critic leaf (lost_cities/search/leaf.py) predicts the final match
margin, against the margin so far as a predictor (experiments/search-vs-net/README.md).

    python experiments/search-vs-net/leaf_check.py RUN_DIR [GAMES]

Positions: GAMES net-vs-net matches (the checkpoint for both seats), each cut after a
uniform 0..119 plies; the truth: the final margin for the seat to move when the same
net plays on to the match's end. The leaf reads the true state here (no search runs).
"""

import sys

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities import agents, envs
from lost_cities.search.leaf import critic_leaf


def main():
    run_dir, games = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 128
    env = envs.make("match3")
    agent = agents.load(run_dir)

    def play(states, length):
        def ply(s, _):
            moves = jax.vmap(agent.policy)(s, jnp.zeros((games, 2), jnp.uint32))
            return jax.vmap(env.step)(s, moves)[0], s

        return jax.jit(lambda s: jax.lax.scan(ply, s, None, length=length))(states)

    starts = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(3), games))
    _, record = play(starts, 120)
    cut = np.random.default_rng(0).integers(0, 120, games)
    states = jax.tree.map(lambda x: x[cut, np.arange(games)], record)
    mover = jax.vmap(env.to_move)(states)
    margin = jax.vmap(lambda s, p: env.final_margin(s)[p])
    leaf = np.asarray(jax.jit(jax.vmap(critic_leaf(agent)))(states, mover))
    now = np.asarray(margin(states, mover))
    final_states, _ = play(states, 300)
    assert np.asarray(jax.vmap(env.done)(final_states)).all()
    final = np.asarray(margin(final_states, mover))
    live = ~np.asarray(jax.vmap(env.done)(states))
    leaf, now, final = leaf[live], now[live], final[live]
    print(f"positions {live.sum()}")
    for name, guess in (("critic leaf", leaf), ("margin so far", now)):
        corr = np.corrcoef(guess, final)[0, 1]
        print(f"{name}: corr {corr:.2f}, mean abs error {np.abs(guess - final).mean():.1f} points")
    change = np.corrcoef(leaf - now, final - now)[0, 1]
    print(f"critic leaf - margin so far vs final - margin so far: corr {change:.2f}")
    print(f"spread (s.d.): leaf {leaf.std():.1f}, final {final.std():.1f} points")


if __name__ == "__main__":
    main()
