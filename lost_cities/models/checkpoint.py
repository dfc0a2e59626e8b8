"""A training checkpoint as an agent: ``load_checkpoint(path).act(state, player)``.

``load_checkpoint`` accepts a run dir (its ``checkpoints/latest``, the final parameters,
unless ``checkpoint="best"``), a ``checkpoints/best`` or ``checkpoints/latest`` dir, or one
step of those (``<run>/checkpoints/latest/900``: the run as it was at update 900), and
says which checkpoint and update it loaded. The checkpoint is verified (its digest, finite
parameters; a corrupt newest step falls back to the newest good one, saying so). The
checkpoint's metadata names the env and the observation version and size; an agent
asked to play an env whose observation differs fails with a clear message instead of
feeding the network the wrong features. ``load_exported`` makes the same agent from an
exported model's policy weights (the shipped agents in web/public are models, not checkpoints).
"""

import sys
from pathlib import Path

import hydra
import jax
import jax.numpy as jnp
from jax.tree_util import Partial
from omegaconf import OmegaConf

from lost_cities.checkpoints import restore_params
from lost_cities.models.base import check_rng, matching_env, read_manifest
from lost_cities.models.exported import read_policy_params
from lost_cities.networks import current_targets
from lost_cities.networks.critic.shared import SharedCritic
from lost_cities.networks.features import observer_view
from lost_cities.networks.nets import build_network, masked_logits


def network_logits(env, network):
    """``logits(params, env_state, player) -> float32[96]``: the policy's masked logits for ``player``."""

    def logits(params, state, player):
        obs = env.observe(state, player)[None]
        view = jax.tree.map(lambda x: x[None], observer_view(env.round_state(state), player))
        raw = network.apply(params, obs, network.input_features(obs, view), method="logits")[0]
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
        check_state(self.env, state, player)
        return int(self._act(state, jnp.int32(player), rng, greedy))


def check_state(env, state, player):
    """``act``'s input: a state of the agent's env kind, and ``player`` the seat to move."""
    if not isinstance(state, env.state_type):
        if env.rounds == 1:
            raise TypeError(
                "this agent was trained on single_round and plays one round's State; pass the current "
                "round (lost_cities.envs.make('match3').round_state(match_state)) or evaluate it with "
                "lost_cities.policies.make_policy, which plays a match round by round"
            )
        raise TypeError(
            f"this agent plays env {env.name}: pass a {env.state_type.__name__}, not a {type(state).__name__}"
        )
    if isinstance(player, bool) or int(player) not in (0, 1) or int(player) != player:
        raise ValueError(f"player={player!r}: a seat is 0 or 1")
    to_move = int(env.to_move(state))
    if int(player) != to_move:
        raise ValueError(f"player {player} is not to move (seat {to_move} is); an agent acts for the mover")


CHECKPOINT_KINDS = ("latest", "best")


def checkpoint_dir(path, checkpoint="latest"):
    """The checkpoint dir of a run dir (its ``checkpoints/<checkpoint>``: ``latest``, the
    final parameters, or ``best``) or the dir itself when it holds checkpoint steps."""
    if checkpoint not in CHECKPOINT_KINDS:
        raise ValueError(f"checkpoint={checkpoint!r}; choose one of {list(CHECKPOINT_KINDS)}")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist (expected a run dir or its checkpoints/best|latest)")
    for candidate in (path / "checkpoints" / checkpoint, path):
        if candidate.is_dir() and any(p.name.isdigit() for p in candidate.iterdir()):
            return candidate
    if (path / "checkpoints").is_dir():
        raise FileNotFoundError(
            f"{path} has no checkpoints/{checkpoint} (a run whose best_metric never appeared keeps no "
            "best); pass checkpoint=latest"
        )
    raise FileNotFoundError(f"{path} holds no checkpoint (expected a run dir or its checkpoints/best|latest)")


def checkpoint_step(path, checkpoint="latest"):
    """``(checkpoint dir, step)``: a step dir (``<run>/checkpoints/latest/900``) is that exact
    step of its parent; anything else is :func:`checkpoint_dir`'s newest good step (None)."""
    path = Path(path)
    if path.name.isdigit() and path.is_dir() and path.parent.parent.name == "checkpoints":
        return path.parent, int(path.name)
    return checkpoint_dir(path, checkpoint), None


def load_checkpoint(path, env=None, checkpoint="latest"):
    """An :class:`Agent` from a run dir (``checkpoint``: its ``latest`` or ``best``), its
    ``checkpoints/best|latest`` or one step of those; ``env`` (an Env or its name) defaults
    to the training env. Says on stderr which checkpoint and update it loaded."""
    directory, step = checkpoint_step(path, checkpoint)
    params, meta = restore_params(directory, step)
    print(f"loaded {directory} update {meta.get('update')}", file=sys.stderr)
    env = matching_env(path, meta, env, "evaluate it on env {trained} or retrain")
    critic = hydra.utils.instantiate(OmegaConf.create(current_targets(meta["critic"])))
    network = build_network(OmegaConf.create(meta["network"]), critic)
    return Agent(env, network, params, meta)


def load_exported(path, env=None):
    """An :class:`Agent` in JAX over an exported model's weights (``.onnx`` plus its manifest,
    which names the network), so that code that runs a policy inside XLA (search rollouts, a
    teacher, ``init.start``) can use a shipped agent as fast as a checkpoint; ``agents.load``
    keeps running a model in onnxruntime, as the web client does. The model holds no critic:
    the agent's value head is a fresh, untrained one (``meta["critic"]`` is None)."""
    meta = {**read_manifest(path), "critic": None}
    env = matching_env(path, meta, env, "play it on env {trained}")
    network = build_network(OmegaConf.create(meta["network"]), SharedCritic(gae_lambda=0.0))
    template = network.init(jax.random.PRNGKey(0), jnp.zeros((1, env.obs_dim)), jnp.zeros((1, 0)))
    params = read_policy_params(path, template)
    print(f"loaded {path} (its policy's weights, in JAX)", file=sys.stderr)
    return Agent(env, network, params, meta)
