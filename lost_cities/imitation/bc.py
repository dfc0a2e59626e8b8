"""Behaviour cloning: the policy learns a teacher's moves on the states play reaches.

Nothing is stored: one jitted update advances ``num_envs`` games by ``rollout_length``
plies, labels every decision (both seats, every round) with the teacher's move, and
takes ``epochs x minibatches`` cross-entropy steps on those decisions. The games are
moved by the teacher, by the learner's own sample (``learner_share``: the policy also
meets the states its mistakes lead to, as in DAgger) or by a uniformly random legal
move (``random_share``: states off every policy's path). ``label_smoothing`` spreads that
share of each target over the legal moves, so the clone keeps some entropy for PPO to
work with (a clone of a deterministic teacher is nearly deterministic: its PPO
gradients vanish). Only the policy is trained;
the critic keeps its initial parameters (PPO's ``init.value_warmup_updates`` fit it).
"""

import jax
import jax.numpy as jnp
import optax
from flax import struct

from lost_cities.game.sampling import uniform_legal_action
from lost_cities.ppo.network import masked_logits
from lost_cities.ppo.rollout import select
from lost_cities.ppo.sgd import minibatch_epochs


@struct.dataclass
class BCState:
    params: dict
    opt_state: optax.OptState
    games: object
    key: jax.Array
    update: jnp.ndarray


class BehaviourCloning:
    """Pure functions of a cloning run: ``init(key, params)`` and the jitted ``update``.

    ``cfg`` holds the ``init=bc`` knobs (conf/init/bc.yaml); ``teacher`` is a policy
    ``(env_state, rng) -> action``.
    """

    def __init__(self, env, network, teacher, cfg):
        self.env, self.network, self.teacher, self.cfg = env, network, teacher, cfg
        self.optimizer = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(cfg.lr, eps=1e-5))

    def init(self, key, params):
        k_games, key = jax.random.split(key)
        games = jax.vmap(self.env.init)(jax.random.split(k_games, self.cfg.num_envs))
        return BCState(params, self.optimizer.init(params), games, key, jnp.int32(0))

    def _ply(self, params, games, key):
        """Label every game's decision with the teacher's move, then play one move."""
        env, cfg, n = self.env, self.cfg, self.cfg.num_envs
        k_teacher, k_learner, k_random, k_pick, k_reset = jax.random.split(key, 5)
        mover = jax.vmap(env.to_move)(games)
        obs = jax.vmap(env.observe)(games, mover)
        features = self.network.input_features(obs)
        mask = jax.vmap(env.legal_mask)(games)
        label = jax.vmap(self.teacher)(games, jax.random.split(k_teacher, n)).astype(jnp.int32)
        logits = masked_logits(self.network.apply(params, obs, features, method="logits"), mask)
        own = jax.random.categorical(k_learner, logits)
        random = jax.vmap(uniform_legal_action)(jax.random.split(k_random, n), mask)
        u = jax.random.uniform(k_pick, (n,))
        action = jnp.where(
            u < cfg.learner_share, own, jnp.where(u < cfg.learner_share + cfg.random_share, random, label)
        ).astype(jnp.int32)
        games, _, done = jax.vmap(env.step)(games, action)
        games = select(done, jax.vmap(env.init)(jax.random.split(k_reset, n)), games)
        return games, {"obs": obs, "features": features, "mask": mask, "label": label}

    def loss(self, params, batch):
        raw = self.network.apply(params, batch["obs"], batch["features"], method="logits")
        logits = masked_logits(raw, batch["mask"])
        log_probs = jax.nn.log_softmax(logits)
        hit = jax.nn.one_hot(batch["label"], logits.shape[-1])
        legal = batch["mask"] / jnp.sum(batch["mask"], axis=-1, keepdims=True)
        target = (1 - self.cfg.label_smoothing) * hit + self.cfg.label_smoothing * legal
        cross_entropy = -jnp.mean(jnp.sum(jnp.where(batch["mask"], target * log_probs, 0.0), axis=-1))
        accuracy = jnp.mean(jnp.argmax(logits, axis=-1) == batch["label"])
        return cross_entropy, {"bc/cross_entropy": cross_entropy, "bc/accuracy": accuracy}

    def update(self, state: BCState):
        """One cloning update. Its metrics are the first epoch's means: each minibatch is
        scored before the step that fits it, so the accuracy is on decisions not yet trained on."""
        cfg = self.cfg
        key, k_plies, k_epochs = jax.random.split(state.key, 3)
        games, batch = jax.lax.scan(
            lambda g, k: self._ply(state.params, g, k),
            state.games,
            jax.random.split(k_plies, cfg.rollout_length),
        )
        size = cfg.num_envs * cfg.rollout_length
        batch = jax.tree.map(lambda x: x.reshape((size,) + x.shape[2:]), batch)
        params, opt_state, info = minibatch_epochs(
            self.loss,
            self.optimizer,
            state.params,
            state.opt_state,
            batch,
            k_epochs,
            cfg.epochs,
            cfg.minibatches,
        )
        metrics = {name: jnp.mean(value[0]) for name, value in info.items()}
        return BCState(params, opt_state, games, key, state.update + 1), metrics
