"""``critic=omniscient``: a separate value network on the privileged observation.

It sees what the acting player cannot (the opponent's hand, the deck's composition),
which lowers the variance of the advantages; it only shapes training, so the policy
(trunk input: the ordinary observation) never depends on hidden information.
"""

from collections.abc import Sequence

import flax.linen as nn

from lost_cities.networks.nets import MLP


class OmniscientValueNet(nn.Module):
    hidden: Sequence[int]
    activation: str

    @nn.compact
    def __call__(self, trunk, privileged):
        features = MLP(self.hidden, self.activation)(privileged)
        return nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(features)[..., 0]


class OmniscientCritic:
    needs_privileged = True

    def __init__(self, gae_lambda: float, hidden: Sequence[int]):
        self.gae_lambda = gae_lambda
        self.hidden = tuple(hidden)

    def module(self, activation):
        return OmniscientValueNet(self.hidden, activation)
