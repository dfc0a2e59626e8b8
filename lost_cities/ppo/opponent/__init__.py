"""Opponents (``conf/opponent/``): ``static`` fixed policies, ``league`` snapshot pool."""

from dataclasses import dataclass

import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class League:
    """Marks the opponent entry played by a past snapshot of the learner (``opponent=league``)."""

    pool_size: int
    snapshot_every_updates: int


@dataclass(frozen=True)
class OpponentSet:
    """The opponents one episode is drawn from.

    ``policies[k]`` is a ``policy(env_state, rng) -> action``, ``None`` for ``self``
    (the learner plays that episode's both seats, and both seats' decisions train it),
    or a :class:`League` (a snapshot from the pool replies; its moves are not trained on).
    """

    names: tuple[str, ...]
    probs: jnp.ndarray
    policies: tuple

    @classmethod
    def from_weights(cls, names, weights, policies):
        weights = jnp.asarray(weights, jnp.float32)
        return cls(tuple(names), weights / jnp.sum(weights), tuple(policies))

    @property
    def is_self(self):
        return np.array([policy is None for policy in self.policies])

    @property
    def has_fixed(self):
        """Some opponent replies to the learner (a scripted or checkpoint policy, or the league)."""
        return not bool(self.is_self.all())

    @property
    def scripted(self):
        """``(index, policy)`` of the opponents that are plain ``policy(env_state, rng)`` functions."""
        return [(k, p) for k, p in enumerate(self.policies) if p is not None and not isinstance(p, League)]

    @property
    def league(self):
        """``(index, League)`` of the snapshot pool's entry, or ``None`` without one."""
        return next(((k, p) for k, p in enumerate(self.policies) if isinstance(p, League)), None)
