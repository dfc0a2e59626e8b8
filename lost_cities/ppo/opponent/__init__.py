"""Opponents (``conf/opponent/``): ``static`` fixed policies, ``league`` snapshot pool."""

from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class OpponentSet:
    """The opponents one episode is drawn from.

    ``policies[k]`` is a ``policy(env_state, rng) -> action`` or ``None`` for ``self``
    (the learner plays that episode's both seats, and both seats' decisions train it).
    """

    names: tuple[str, ...]
    probs: jnp.ndarray
    policies: tuple

    @property
    def is_self(self):
        return np.array([policy is None for policy in self.policies])

    @property
    def has_fixed(self):
        return not bool(self.is_self.all())
