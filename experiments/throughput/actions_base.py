"""The same moves with bb7f962's code (its search bench and resolver), run with the base tree as
the working directory: ``PYTHONPATH=. python .../actions_base.py OUT.npy N`` (README.md)."""

import sys

import numpy as np
from lost_cities.search.bench import measure, positions
from lost_cities.search.spec import resolve_search

from lost_cities import envs

env = envs.make("match3")
states = positions(env, int(sys.argv[2]))
policy = resolve_search("search/belief:web/public/bc-ppo-xi6-bal2700.onnx", env)
_, _, actions = measure(policy, states, 0)
np.save(sys.argv[1], np.asarray(actions))
