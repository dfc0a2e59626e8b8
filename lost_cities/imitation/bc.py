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

With an ``opponent`` (``init.opponent``), each game gives the learner one seat, drawn at
the game's start, and the opponent policy moves the other; only the learner seat's
decisions are labelled and fitted. So a teacher that knows whom it plays (a search whose
rollouts model that opponent) teaches how to beat it, not how to play both sides.
"""

import jax
import jax.numpy as jnp
import optax
from flax import struct

from lost_cities.evaluation.duplicate import mover_actions, mover_capacity
from lost_cities.game.sampling import uniform_legal_action
from lost_cities.networks.features import observer_view
from lost_cities.networks.nets import masked_logits
from lost_cities.ppo.rollout import select
from lost_cities.ppo.sgd import minibatch_epochs


@struct.dataclass
class BCState:
    params: dict
    opt_state: optax.OptState
    games: object
    key: jax.Array
    update: jnp.ndarray
    learner_seat: jnp.ndarray  # int32[num_envs]: the seat the learner holds in each game


class BehaviourCloning:
    """Pure functions of a cloning run: ``init(key, params)`` and the jitted ``update``.

    ``cfg`` holds the ``init=bc`` knobs (conf/init/bc.yaml); ``teacher`` and ``opponent``
    are policies ``(env_state, rng) -> action`` (``opponent`` None: the learner's side of
    play moves both seats and both are labelled).
    """

    def __init__(self, env, network, teacher, cfg, opponent=None):
        self.env, self.network, self.teacher, self.cfg = env, network, teacher, cfg
        self.opponent = opponent
        self.optimizer = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(cfg.lr, eps=1e-5))

    def init(self, key, params):
        k_games, k_seats, key = jax.random.split(key, 3)
        games = jax.vmap(self.env.init)(jax.random.split(k_games, self.cfg.num_envs))
        seats = self._seats(k_seats)
        return BCState(params, self.optimizer.init(params), games, key, jnp.int32(0), seats)

    def _seats(self, key):
        return jax.random.bernoulli(key, 0.5, (self.cfg.num_envs,)).astype(jnp.int32)

    def _ply(self, params, carry, key):
        """Label every game's decision with the teacher's move, then play one move."""
        games, seats = carry
        env, cfg, n = self.env, self.cfg, self.cfg.num_envs
        k_teacher, k_learner, k_random, k_pick, k_reset, k_opp, k_seats = jax.random.split(key, 7)
        mover = jax.vmap(env.to_move)(games)
        obs = jax.vmap(env.observe)(games, mover)
        features = self.network.input_features(
            obs, jax.vmap(observer_view)(jax.vmap(env.round_state)(games), mover)
        )
        mask = jax.vmap(env.legal_mask)(games)
        teacher_keys = jax.random.split(k_teacher, n)
        if self.opponent is None:
            learner_moves = jnp.ones(n, bool)
            label = jax.vmap(self.teacher)(games, teacher_keys).astype(jnp.int32)
        else:  # the teacher (a search: the costly part) only where the learner moves
            learner_moves = mover == seats
            capacity, progress = mover_capacity(n), jax.vmap(env.round_state)(games).deck_ptr
            label = mover_actions(self.teacher, games, teacher_keys, learner_moves, capacity, progress)
        logits = masked_logits(self.network.apply(params, obs, features, method="logits"), mask)
        own = jax.random.categorical(k_learner, logits)
        random = jax.vmap(uniform_legal_action)(jax.random.split(k_random, n), mask)
        u = jax.random.uniform(k_pick, (n,))
        action = jnp.where(
            u < cfg.learner_share, own, jnp.where(u < cfg.learner_share + cfg.random_share, random, label)
        ).astype(jnp.int32)
        if self.opponent is not None:
            opp_keys = jax.random.split(k_opp, n)
            theirs = mover_actions(self.opponent, games, opp_keys, ~learner_moves, capacity, progress)
            action = jnp.where(learner_moves, action, theirs)
        weight = learner_moves.astype(jnp.float32)
        games, _, done = jax.vmap(env.step)(games, action)
        games = select(done, jax.vmap(env.init)(jax.random.split(k_reset, n)), games)
        seats = jnp.where(done, self._seats(k_seats), seats)
        batch = {"obs": obs, "features": features, "mask": mask, "label": label, "weight": weight}
        return (games, seats), batch

    def loss(self, params, batch):
        raw = self.network.apply(params, batch["obs"], batch["features"], method="logits")
        logits = masked_logits(raw, batch["mask"])
        log_probs = jax.nn.log_softmax(logits)
        hit = jax.nn.one_hot(batch["label"], logits.shape[-1])
        legal = batch["mask"] / jnp.sum(batch["mask"], axis=-1, keepdims=True)
        target = (1 - self.cfg.label_smoothing) * hit + self.cfg.label_smoothing * legal
        weight = batch["weight"]
        total = jnp.maximum(jnp.sum(weight), 1.0)
        per_decision = -jnp.sum(jnp.where(batch["mask"], target * log_probs, 0.0), axis=-1)
        cross_entropy = jnp.sum(weight * per_decision) / total
        accuracy = jnp.sum(weight * (jnp.argmax(logits, axis=-1) == batch["label"])) / total
        return cross_entropy, {"bc/cross_entropy": cross_entropy, "bc/accuracy": accuracy}

    def update(self, state: BCState):
        """One cloning update. Its metrics are the first epoch's means: each minibatch is
        scored before the step that fits it, so the accuracy is on decisions not yet trained on."""
        cfg = self.cfg
        key, k_plies, k_epochs = jax.random.split(state.key, 3)
        (games, seats), batch = jax.lax.scan(
            lambda g, k: self._ply(state.params, g, k),
            (state.games, state.learner_seat),
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
        return BCState(params, opt_state, games, key, state.update + 1, seats), metrics
