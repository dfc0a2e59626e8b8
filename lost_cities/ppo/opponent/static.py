"""``opponent=static``: scripted bots, checkpoints, or the learner itself, one drawn per episode."""

import os

from lost_cities import bots
from lost_cities.ppo.opponent import OpponentSet

SELF = "self"


def _policy(name, env):
    if name == SELF:
        return None
    if os.path.isdir(name):
        from lost_cities.agents import load

        return load(name, env=env).policy
    return bots.make(name)


class StaticOpponent:
    def __init__(self, policies, weights=None):
        self.names = tuple(policies)
        self.weights = [1.0] * len(self.names) if weights is None else [float(w) for w in weights]

    def build(self, env) -> OpponentSet:
        return OpponentSet.from_weights(self.names, self.weights, [_policy(name, env) for name in self.names])
