"""PPO: components built from the config, and ONE jitted update (rollout, GAE, epochs).

The whole training state is one pytree (:class:`TrainState`), so a checkpoint restores
a run exactly: a resumed run computes the same updates as an uninterrupted one.
"""

from dataclasses import dataclass

import hydra
import jax
import jax.numpy as jnp
import optax
from flax import struct

from lost_cities.envs import make as make_env
from lost_cities.networks.nets import build_network, masked_logits
from lost_cities.ppo.episodes import summarize
from lost_cities.ppo.gae import per_seat_gae
from lost_cities.ppo.opponent.league import init_pool, pool_metrics, refresh
from lost_cities.ppo.rollout import Rollout
from lost_cities.ppo.sgd import minibatch_epochs


@struct.dataclass
class TrainState:
    params: dict
    opt_state: optax.OptState
    slots: object
    key: jax.Array
    update: jnp.ndarray  # updates done
    decisions: jnp.ndarray  # learner decisions trained on (anneals the shaping)
    env_steps: jnp.ndarray  # moves played by both seats
    league: object = None  # opponent=league: the snapshot pool (league.Pool)
    anchor: object = None  # ppo.anchor_kl > 0: the warm start's parameters, held fixed
    magnet: object = None  # ppo.magnet_kl > 0: the reference policy's parameters, reset every few updates


def num_updates(ppo):
    return ppo.total_decisions // (ppo.num_envs * ppo.rollout_length)


def learning_rate_schedule(ppo):
    """The rate per SGD step: an optional linear warm-up over ``ppo.lr_warmup_updates``
    (from a clone, the first policy update is the run's largest: Adam's first steps move
    every weight by about the full rate), then constant or annealed linearly to 0 at the
    run's last step, restarted at each of ``ppo.anneal_restarts`` (:func:`annealed`)."""
    per_update = ppo.epochs * ppo.minibatches
    steps = num_updates(ppo) * per_update
    warmup = ppo.lr_warmup_updates * per_update
    if ppo.anneal_lr:
        ends = [update * per_update - warmup for update in ppo.anneal_restarts]
        main = annealed(ppo.lr, [*ends, steps - warmup])
    else:
        main = optax.constant_schedule(ppo.lr)
    if warmup == 0:
        return main
    return optax.join_schedules([optax.linear_schedule(0.0, ppo.lr, warmup), main], [warmup])


def annealed(lr, ends):
    """Linear from ``lr`` towards 0 at ``ends[0]``; from there on the line from ``lr`` to 0
    at ``ends[1]``, and so on: at each end but the last the rate jumps back up (a warm
    restart). It is the schedule of a run extended by ``resume=`` at each of those ends,
    step for step and float for float (each piece is that run's own ``linear_schedule``)."""
    pieces = [optax.linear_schedule(lr, 0.0, end) for end in ends]
    if len(pieces) == 1:
        return pieces[0]
    starts = jnp.asarray(ends[:-1])

    def schedule(count):
        return jax.lax.switch(jnp.searchsorted(starts, count, side="right"), pieces, count)

    return schedule


@dataclass
class Trainer:
    """Everything a run needs, built from the composed config."""

    cfg: object
    env: object
    network: object
    reward: object
    critic: object
    opponents: object
    rollout: Rollout
    optimizer: object
    schedule: object
    gae_lambda: float

    @classmethod
    def from_config(cls, cfg):
        env = make_env(cfg.env.name)
        critic = hydra.utils.instantiate(cfg.critic)
        reward = hydra.utils.instantiate(cfg.reward)
        opponents = hydra.utils.instantiate(cfg.opponent).build(env)
        network = build_network(cfg.network, critic)
        ppo = cfg.ppo
        rollout = Rollout(
            env, network, critic.needs_privileged, reward, opponents, ppo.num_envs, ppo.rollout_length
        )
        schedule = learning_rate_schedule(ppo)
        optimizer = optax.chain(optax.clip_by_global_norm(ppo.max_grad_norm), optax.adam(schedule, eps=1e-5))
        gae_lambda = critic.gae_lambda if ppo.gae_lambda is None else ppo.gae_lambda
        return cls(cfg, env, network, reward, critic, opponents, rollout, optimizer, schedule, gae_lambda)

    def init_params(self, key=None):
        """Fresh network parameters (``key`` defaults to a fixed one: shapes are what matter then)."""
        key = jax.random.PRNGKey(0) if key is None else key
        obs = jnp.zeros((1, self.env.obs_dim))
        privileged = jnp.zeros((1, self.env.privileged_dim if self.critic.needs_privileged else 0))
        return self.network.init(key, obs, privileged)

    def init(self, seed) -> TrainState:
        key = jax.random.PRNGKey(seed)
        k_params, k_slots, key = jax.random.split(key, 3)
        params = self.init_params(k_params)
        league = (
            None if self.opponents.league is None else init_pool(params, self.opponents.league[1].pool_size)
        )
        slots = jax.jit(self.rollout.first_slots)(k_slots, _pool_params(league))
        zero = jnp.int32(0)
        anchor = params if self.cfg.ppo.anchor_kl > 0 else None  # warm_start puts the clone here
        magnet = params if self.cfg.ppo.magnet_kl > 0 else None  # and the warm start here
        return TrainState(
            params, self.optimizer.init(params), slots, key, zero, zero, zero, league, anchor, magnet
        )

    def loss(self, params, batch, policy_on=1.0, anchor=None, magnet=None):
        """The PPO loss; ``policy_on`` 0 leaves only the value term (the critic warm-up).

        ``anchor``: parameters whose policy the learner is pulled toward by ``ppo.anchor_kl``
        times KL(anchor || learner), so that PPO improves on a clone without drifting from it.
        ``magnet``: the reference of regularised self-play (magnetic mirror descent), the
        learner pulled toward it by ``ppo.magnet_kl`` times KL(learner || magnet); reset to the
        learner every ``ppo.magnet_reset_updates``, it damps the cycling of self-play without
        holding the learner near any one policy for long.
        """
        ppo = self.cfg.ppo
        logits, value = self.network.apply(params, batch["obs"], batch["privileged"], batch["features"])
        log_probs = jax.nn.log_softmax(masked_logits(logits, batch["mask"]))
        logp = jnp.sum(
            jnp.where(jax.nn.one_hot(batch["action"], logits.shape[-1]) > 0, log_probs, 0.0), axis=-1
        )
        ratio = jnp.exp(logp - batch["logp"])
        advantage = batch["advantage"]
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        clipped = jnp.clip(ratio, 1 - ppo.clip_eps, 1 + ppo.clip_eps)
        policy_loss = -jnp.mean(jnp.minimum(ratio * advantage, clipped * advantage))
        value_loss = 0.5 * jnp.mean((value - batch["return"]) ** 2)
        entropy = -jnp.mean(jnp.sum(jnp.exp(log_probs) * log_probs, axis=-1))
        # init.value_warmup_updates: the first updates fit the critic only (a cloned policy is held).
        total = policy_on * (policy_loss - ppo.ent_coef * entropy) + ppo.vf_coef * value_loss
        extra = {}
        if anchor is not None:
            anchor_logits, _ = self.network.apply(
                anchor, batch["obs"], batch["privileged"], batch["features"]
            )
            anchor_log_probs = jax.nn.log_softmax(masked_logits(anchor_logits, batch["mask"]))
            anchor_probs = jnp.exp(anchor_log_probs)
            kl = jnp.mean(
                jnp.sum(jnp.where(batch["mask"], anchor_probs * (anchor_log_probs - log_probs), 0.0), -1)
            )
            total = total + policy_on * ppo.anchor_kl * kl
            extra["learner/anchor_kl"] = kl
        if magnet is not None:
            magnet_logits, _ = self.network.apply(
                magnet, batch["obs"], batch["privileged"], batch["features"]
            )
            magnet_log_probs = jax.nn.log_softmax(masked_logits(magnet_logits, batch["mask"]))
            kl = jnp.mean(
                jnp.sum(
                    jnp.where(batch["mask"], jnp.exp(log_probs) * (log_probs - magnet_log_probs), 0.0), -1
                )
            )
            total = total + policy_on * ppo.magnet_kl * kl
            extra["learner/magnet_kl"] = kl
        return total, extra | {
            "learner/policy_loss": policy_loss,
            "learner/value_loss": value_loss,
            "learner/entropy": entropy,
            "learner/approx_kl": jnp.mean((ratio - 1) - jnp.log(ratio)),
            "learner/clip_fraction": jnp.mean(jnp.abs(ratio - 1) > ppo.clip_eps),
        }

    def update(self, ts: TrainState):
        """One PPO update: a rollout, per-seat GAE, ``epochs`` x ``minibatches`` steps."""
        ppo = self.cfg.ppo
        key, k_rollout, k_epochs = jax.random.split(ts.key, 3)
        coefficient = self.reward.coefficient(ts.decisions)
        slots, rows, finished, bootstrap = self.rollout.run(
            ts.params, ts.slots, k_rollout, coefficient, _pool_params(ts.league)
        )
        advantage, returns = per_seat_gae(
            rows.value, rows.mover, rows.reward, rows.done, bootstrap, ppo.gamma, self.gae_lambda
        )
        batch = sgd_batch(rows, advantage, returns)
        size = ppo.num_envs * ppo.rollout_length
        policy_on = (ts.update >= self.cfg.init.value_warmup_updates).astype(jnp.float32)
        params, opt_state, info = minibatch_epochs(
            lambda p, b: self.loss(p, b, policy_on, ts.anchor, ts.magnet),
            self.optimizer,
            ts.params,
            ts.opt_state,
            batch,
            k_epochs,
            ppo.epochs,
            ppo.minibatches,
        )
        steps_per_update = ppo.epochs * ppo.minibatches
        metrics = {name: jnp.mean(value) for name, value in info.items()}
        metrics["learner/lr"] = self.schedule((ts.update + 1) * steps_per_update - 1)
        metrics["learner/shaping_coef"] = coefficient
        metrics["learner/value_mean"] = jnp.mean(rows.value)
        metrics.update(summarize(finished, self.opponents.names, self.opponents.is_self))
        plies = jnp.sum(rows.moves)
        update = ts.update + 1
        league = ts.league
        if league is not None:
            league = refresh(league, params, update, self.opponents.league[1].snapshot_every_updates)
            metrics.update(pool_metrics(league, update))
        magnet = ts.magnet
        if magnet is not None and ppo.magnet_reset_updates > 0:
            reset = update % ppo.magnet_reset_updates == 0
            magnet = jax.tree.map(lambda new, old: jnp.where(reset, new, old), params, magnet)
        ts = ts.replace(
            magnet=magnet,
            params=params,
            opt_state=opt_state,
            slots=slots,
            key=key,
            update=update,
            decisions=ts.decisions + size,
            env_steps=ts.env_steps + plies,
            league=league,
        )
        metrics["learner/decisions"] = ts.decisions
        metrics["learner/env_steps"] = ts.env_steps
        return ts, metrics


def sgd_batch(rows, advantage, returns):
    """The epochs' samples from a rollout's rows ``[T, N]``: one leading axis of ``T * N``."""
    batch = {
        "obs": rows.obs,
        "features": rows.features,
        "privileged": rows.privileged,
        "mask": rows.mask,
        "action": rows.action,
        "logp": rows.logp,
        "advantage": advantage,
        "return": returns,
    }
    size = rows.action.shape[0] * rows.action.shape[1]  # not -1: the privileged rows may hold 0 floats
    return jax.tree.map(lambda x: x.reshape((size,) + x.shape[2:]), batch)


def _pool_params(league):
    return None if league is None else league.params
