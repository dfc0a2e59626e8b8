"""A training checkpoint as an agent: ``load_checkpoint(path).act(state, player)``.

``load_checkpoint`` accepts a run dir, a ``checkpoints/best`` or ``checkpoints/latest`` dir. The
checkpoint's metadata names the env and the observation version and size; an agent
asked to play an env whose observation differs fails with a clear message instead of
feeding the network the wrong features.
"""

from pathlib import Path

import hydra
import jax
import jax.numpy as jnp
from jax.tree_util import Partial
from omegaconf import OmegaConf

from lost_cities.agents.base import check_rng, matching_env
from lost_cities.ppo.network import build_network, masked_logits


def network_logits(env, network):
    """``logits(params, env_state, player) -> float32[96]``: the policy's masked logits for ``player``."""

    def logits(params, state, player):
        obs = env.observe(state, player)[None]
        raw = network.apply(params, obs, method="logits")[0]
        return masked_logits(raw, env.legal_mask(state))

    return logits


def network_policy(env, network):
    """``policy(params, env_state, rng) -> action``; greedy (``rng`` unused) so evaluation is reproducible."""
    logits = network_logits(env, network)

    def policy(params, state, rng):
        return jnp.argmax(logits(params, state, env.to_move(state))).astype(jnp.int32)

    return policy


class Agent:
    def __init__(self, env, network, params, meta):
        self.env, self.network, self.params, self.meta = env, network, params, meta
        self._logits = network_logits(env, network)
        self.policy = Partial(network_policy(env, network), params)
        self._act = jax.jit(self._act_impl, static_argnums=3)

    def _act_impl(self, state, player, rng, greedy):
        logits = self._logits(self.params, state, player)
        return jnp.argmax(logits) if greedy else jax.random.categorical(rng, logits)

    def act(self, state, player, greedy=True, rng=None):
        """The action for ``player`` (who must be to move) in a State or MatchState: the most
        likely one, or with ``greedy=False`` a sample drawn with ``rng`` (required then)."""
        rng = check_rng(greedy, rng)
        return int(self._act(state, jnp.int32(player), rng, greedy))


def checkpoint_dir(path):
    """The checkpoint dir of a run dir (its ``best``, else ``latest``) or the dir itself."""
    path = Path(path)
    for candidate in (path / "checkpoints" / "best", path / "checkpoints" / "latest", path):
        if candidate.is_dir() and any(p.name.isdigit() for p in candidate.iterdir()):
            return candidate
    raise FileNotFoundError(f"{path} holds no checkpoint (expected a run dir or its checkpoints/best|latest)")


def load_checkpoint(path, env=None):
    """An :class:`Agent` from a run dir or its ``checkpoints/best|latest``; ``env`` (an Env
    or its name) defaults to the training env."""
    from lost_cities.ppo.checkpoint import restore_params

    params, meta = restore_params(checkpoint_dir(path))
    env = matching_env(path, meta, env, "evaluate it on env {trained} or retrain")
    critic = hydra.utils.instantiate(OmegaConf.create(meta["critic"]))
    network = build_network(OmegaConf.create(meta["network"]), critic)
    return Agent(env, network, params, meta)
