"""``opponent=static``: scripted bots, checkpoints, exported ``.onnx`` models, or the learner
itself (``self``), one drawn per episode. Names resolve as everywhere else
(:func:`lost_cities.policies.make_policy`)."""

from lost_cities.policies import make_policy
from lost_cities.ppo.opponent import OpponentSet

SELF = "self"


def _policy(name, env):
    return None if name == SELF else make_policy(name, env)


class StaticOpponent:
    def __init__(self, policies, weights=None):
        self.names = tuple(policies)
        self.weights = [1.0] * len(self.names) if weights is None else [float(w) for w in weights]

    def build(self, env) -> OpponentSet:
        return OpponentSet.from_weights(self.names, self.weights, [_policy(name, env) for name in self.names])
