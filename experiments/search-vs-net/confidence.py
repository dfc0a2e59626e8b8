"""How often a search on a net leaves the net's move, by the net's confidence in that move.

    python experiments/search-vs-net/confidence.py POSITIONS [base=SPEC] [preset=NAME] [knob=v ...]

On POSITIONS positions of the base net's self-play (every 5th ply, as realized.py draws them),
the search's decision against the net's own (its argmax), grouped by the net's probability of
its move. Why it exists: a search that skipped the positions where the net is
sure would cost less only if it rarely leaves the net's move there.
"""

import sys

import jax
import numpy as np
from realized import measured_positions

from lost_cities import envs
from lost_cities.benchmarks.search import measure
from lost_cities.policies import make_policy, network
from lost_cities.search.candidates import logit_scores
from lost_cities.search.config import knob_overrides

PAGE_NET = "web/public/bc-ppo-xi6-bal2700.onnx"
BANDS = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.01)


def main():
    n_positions, *knobs = sys.argv[1:]
    overrides = knob_overrides(knobs)
    preset, base = overrides.pop("preset", "fast"), str(overrides.pop("base", PAGE_NET))
    env = envs.make("match3")
    net = network(base, env, "base")  # a checkpoint dir or .onnx, not a bot (the error says so)
    states = measured_positions(env, int(n_positions), net.policy)
    search = make_policy(f"search/{preset}:{base}", env, **overrides)
    _, _, actions = measure(search, states, single=0)
    probs = np.asarray(jax.nn.softmax(jax.jit(jax.vmap(logit_scores(net)))(states), axis=-1))
    sure = probs.max(axis=-1)
    left = np.asarray(actions) != probs.argmax(axis=-1)
    print(f"{len(sure)} positions; the search leaves the net's move at {left.mean():.3f} of them")
    for low, high in zip(BANDS[:-1], BANDS[1:], strict=True):
        band = (sure >= low) & (sure < high)
        share = left[band].mean() if band.any() else float("nan")
        print(f"net's p of its move in [{low:.2f}, {high:.2f}): share {band.mean():.3f}, left {share:.3f}")


if __name__ == "__main__":
    main()
