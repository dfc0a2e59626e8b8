"""``critic=shared``: a value head on the policy trunk (one network, one set of features)."""

import flax.linen as nn


class SharedValueHead(nn.Module):
    @nn.compact
    def __call__(self, trunk, privileged):
        return nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(trunk)[..., 0]


class SharedCritic:
    needs_privileged = False

    def __init__(self, gae_lambda: float):
        self.gae_lambda = gae_lambda

    def module(self, activation):
        return SharedValueHead()
