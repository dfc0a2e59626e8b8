"""The policy network: an MLP trunk, masked logits over the 96 actions, and a critic."""

from collections.abc import Sequence

import flax.linen as nn
import jax.numpy as jnp

from lost_cities.game.cards import N_ACTIONS

ACTIVATION = {"relu": nn.relu, "tanh": nn.tanh, "gelu": nn.gelu}
ILLEGAL_LOGIT = -1e9  # finite, so that 0 * log p stays 0 in the entropy


class MLP(nn.Module):
    hidden: Sequence[int]
    activation: str

    @nn.compact
    def __call__(self, x):
        for width in self.hidden:
            x = ACTIVATION[self.activation](
                nn.Dense(width, kernel_init=nn.initializers.orthogonal(2**0.5))(x)
            )
        return x


class ActorCritic(nn.Module):
    """``(obs, privileged) -> (logits, value)``; the trunk sees only ``obs``."""

    hidden: Sequence[int]
    activation: str
    critic: nn.Module

    def setup(self):
        self.trunk = MLP(self.hidden, self.activation)
        self.head = nn.Dense(N_ACTIONS, kernel_init=nn.initializers.orthogonal(0.01))

    def __call__(self, obs, privileged):
        trunk = self.trunk(obs)
        return self.head(trunk), self.critic(trunk, privileged)

    def logits(self, obs):
        """The policy alone (acting needs no critic, hence no privileged input)."""
        return self.head(self.trunk(obs))


def masked_logits(logits, mask):
    return jnp.where(mask, logits, ILLEGAL_LOGIT)


def build_network(network_cfg, critic):
    """The network of a run from its ``network`` config and built critic."""
    return ActorCritic(
        tuple(network_cfg.hidden), network_cfg.activation, critic.module(network_cfg.activation)
    )
