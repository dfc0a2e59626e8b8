"""Agents: anything a policy spec names, as ``act(state, player) -> action``.

``load(spec)`` takes what every command takes (a run dir, a checkpoint or step dir, an
exported ``.onnx`` model, or ``search[/<preset>]:<base>``), resolved by
:mod:`lost_cities.policies`; a trained model is a :class:`lost_cities.models.Agent`
(or, with ``runtime="onnxruntime"``, the exported graph itself run as the web client runs
it), a search a :class:`SearchAgent`.
"""

import jax
import jax.numpy as jnp

from lost_cities import envs, models
from lost_cities.models import Agent, load_checkpoint, load_exported, network_logits, network_policy
from lost_cities.policies import is_search, make_policy


class SearchAgent:
    """``load("search:<base>")``: ``act(state, player)`` like any agent.

    The search samples its worlds from ``rng``; without one it uses a fixed key, so a
    position always gets the same answer."""

    def __init__(self, spec, env=None, presets=None, **knobs):
        self.spec = str(spec)
        self.env = envs.make("match3" if env is None else env) if isinstance(env, str | None) else env
        self.policy = make_policy(self.spec, self.env, presets, **knobs)
        self._act = jax.jit(self.policy)

    def act(self, state, player, greedy=True, rng=None):
        """The search's action for ``player`` (who must be to move); ``greedy`` is accepted for
        the agent interface (the search has no sampled mode)."""
        if int(self.env.to_move(state)) != int(player):
            raise ValueError(f"player {player} is not to move")
        return int(self._act(state, jax.random.PRNGKey(0) if rng is None else rng).astype(jnp.int32))


def load(spec, env=None, checkpoint="latest", runtime="jax"):
    """The agent ``spec`` names (see the module doc); ``env`` (an Env or its name) defaults to
    the env a model was trained on (match3 for a search); ``checkpoint`` (``latest`` or
    ``best``) picks a run dir's checkpoint."""
    if is_search(spec):
        return SearchAgent(spec, env)
    return models.load(spec, env, checkpoint, runtime)


__all__ = [
    "Agent",
    "SearchAgent",
    "load",
    "load_checkpoint",
    "load_exported",
    "network_logits",
    "network_policy",
]
