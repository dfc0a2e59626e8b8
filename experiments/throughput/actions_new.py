"""The search's moves (preset belief on the shipped bc-ppo-xi6-bal2700) on N positions of expert
self-play, with this tree's code: ``python actions_new.py OUT.npy N`` (README.md)."""

import sys

import numpy as np

from lost_cities import envs
from lost_cities.benchmarks.search import measure
from lost_cities.evaluation.positions import positions
from lost_cities.policies import make_policy

env = envs.make("match3")
states = positions(env, int(sys.argv[2]))
policy = make_policy("search/belief:bc-ppo-xi6-bal2700.onnx", env)
_, _, actions = measure(policy, states, 0)
np.save(sys.argv[1], np.asarray(actions))
