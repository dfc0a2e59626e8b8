"""Policy networks (``conf/network/``): ``(obs, privileged, features) -> (logits, value)``.

| option   | class         | policy                                                            |
| -------- | ------------- | ----------------------------------------------------------------- |
| ``mlp``  | ActorCritic   | an MLP trunk over the observation, one 96-way linear head         |
| ``action`` | ActionNet   | per-action features (lost_cities/networks/features.py) scored with      |
|          |               | weights shared across hand slots and draw sources                 |

A network's ``input_features(obs, views=None)`` is what it reads beside the observation
(nothing for the MLP); the rollout computes it once per decision and keeps it for the
update's epochs, and acting code may leave it out (it is then computed from ``obs``).
Code that holds the states passes their ``observer_view``s (lost_cities/networks/features.py),
which spares the features decoding the observation. Both feed
the critic module (``conf/critic/``) their trunk output and the privileged observation.
"""

from collections.abc import Sequence

import flax.linen as nn
import hydra
import jax.numpy as jnp
from omegaconf import OmegaConf

from lost_cities.game.cards import N_ACTIONS, N_DRAW_SOURCES
from lost_cities.networks import current_target
from lost_cities.networks.features import N_DRAW_FEATURES, N_PLACEMENTS, batched_action_features

ACTIVATION = {"relu": nn.relu, "tanh": nn.tanh, "gelu": nn.gelu}
# The network of a saved config that names none: models exported before the network was a
# choice (conf/network/) were all this MLP (web/public/policy.onnx).
MLP_TARGET = "lost_cities.networks.nets.ActorCritic"
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


def no_features(obs, views=None):
    return ()


class ActorCritic(nn.Module):
    """``(obs, privileged) -> (logits, value)``; the trunk sees only ``obs``."""

    hidden: Sequence[int]
    activation: str
    critic: nn.Module
    input_features = staticmethod(no_features)

    def setup(self):
        self.trunk = MLP(self.hidden, self.activation)
        self.head = nn.Dense(N_ACTIONS, kernel_init=nn.initializers.orthogonal(0.01))

    def __call__(self, obs, privileged, features=()):
        trunk = self.trunk(obs)
        return self.head(trunk), self.critic(trunk, privileged)

    def logits(self, obs, features=()):
        """The policy alone (acting needs no critic, hence no privileged input)."""
        return self.head(self.trunk(obs))


class ActionNet(nn.Module):
    """Scores every action from its ``af1`` rows with weights shared across slots and draws.

    ``logit(action) = placement_score(slot, place) + <draw_row(action), draw_weights(context)>``:

    - a context MLP reads the observation (its output also feeds a shared critic);
    - one MLP, whose first layer also receives the context, scores each of the 16
      placements (a hand slot's card played or discarded) from its placement row;
    - each action adds a linear function of its draw row whose weights the context
      sets. The expert's scores are in the rows, so behaviour cloning finds the
      teacher's ranking in a few weights and the rest learns the corrections.

    Measured on the 2-core CPU (gradient of a 2,048-decision minibatch): an MLP over all
    96 action rows cost ~10x the 96-way MLP head; this form costs ~3x.
    """

    hidden: Sequence[int]  # the context MLP over the observation
    placement_hidden: Sequence[int]  # the placement MLP
    activation: str
    critic: nn.Module
    input_features = staticmethod(batched_action_features)

    def setup(self):
        orthogonal = nn.initializers.orthogonal(2**0.5)
        small = nn.initializers.orthogonal(0.01)
        self.trunk = MLP(self.hidden, self.activation)
        self.context_in = nn.Dense(self.placement_hidden[0], kernel_init=orthogonal)
        self.placement_in = nn.Dense(self.placement_hidden[0], use_bias=False, kernel_init=orthogonal)
        self.placement_layers = [nn.Dense(w, kernel_init=orthogonal) for w in self.placement_hidden[1:]]
        self.placement_score = nn.Dense(1, kernel_init=small)
        self.draw_weights = nn.Dense(N_DRAW_FEATURES, kernel_init=small)

    def _policy(self, obs, features):
        placement, draw = self.input_features(obs) if features is None else features
        act = ACTIVATION[self.activation]
        context = self.trunk(obs)
        h = act(self.placement_in(placement) + self.context_in(context)[..., None, :])  # [..., 16, H]
        for layer in self.placement_layers:
            h = act(layer(h))
        draws = draw.reshape(draw.shape[:-2] + (N_PLACEMENTS, N_DRAW_SOURCES, N_DRAW_FEATURES))
        draw_term = jnp.einsum("...pdf,...f->...pd", draws, self.draw_weights(context))
        logits = self.placement_score(h) + draw_term  # [..., 16, 6]: action = 6 * placement + draw
        return logits.reshape(logits.shape[:-2] + (N_ACTIONS,)), context

    def __call__(self, obs, privileged, features=None):
        logits, context = self._policy(obs, features)
        return logits, self.critic(context, privileged)

    def logits(self, obs, features=None):
        return self._policy(obs, features)[0]


def masked_logits(logits, mask):
    return jnp.where(mask, logits, ILLEGAL_LOGIT)


def build_network(network_cfg, critic):
    """The network of a run from its ``network`` config (``_target_``: the class) and built critic."""
    # Not hydra.utils.instantiate: it merges its arguments into the config, and OmegaConf
    # reads the (dataclass) critic module as a structured config.
    arguments = {
        k: tuple(v) if isinstance(v, Sequence) and not isinstance(v, str) else v
        for k, v in OmegaConf.to_container(network_cfg, resolve=True).items()
        if k != "_target_"
    }
    target = network_cfg.get("_target_") or MLP_TARGET  # no target: a manifest from before the choice
    return hydra.utils.get_class(current_target(target))(
        critic=critic.module(network_cfg.activation), **arguments
    )
