"""``opponent=static``: scripted bots, checkpoints, or the learner itself, one drawn per episode."""

import os

import jax.numpy as jnp

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
        weights = jnp.ones(len(self.names)) if weights is None else jnp.asarray(weights, jnp.float32)
        self.probs = weights / jnp.sum(weights)

    def build(self, env) -> OpponentSet:
        return OpponentSet(self.names, self.probs, tuple(_policy(name, env) for name in self.names))
