"""Training throughput for the bench: env steps per second and the engine's share of it."""

import time

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities import parallel
from lost_cities.game.sampling import uniform_legal_action
from lost_cities.ppo.trainer import Trainer


def _timed(fn, *args, repeats):
    """``(median seconds of repeats calls, the last output)``, after a compile and warm-up call."""
    out = jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def measure_throughput(cfg, repeats=3):
    """``{train_env_steps_per_sec, train_learner_decisions_per_sec, update_seconds, engine_share, ...}``.

    ``train_env_steps_per_sec``: moves played by both seats per second of whole PPO
    updates (rollout, GAE and the epochs), the median of ``repeats``;
    ``train_learner_decisions_per_sec``: the learner's decisions (``num_envs x
    rollout_length`` an update) per second of them. The engine's share is the time the same
    number of moves takes with the network replaced by uniform-random actions (legal
    mask, observation and step, batched and scanned alike, on one device), over the update's
    time. The update runs as training runs it, data-parallel over ``cfg.devices``.
    """
    trainer = Trainer.from_config(cfg)
    mesh = parallel.make_mesh(cfg.devices)
    parallel.check_divides(mesh, cfg.ppo.num_envs, "ppo.num_envs")
    state = trainer.init(cfg.seed)
    shardings = parallel.state_shardings(state, mesh)
    state = parallel.place(state, shardings)
    update = parallel.parallel_update(trainer, shardings, mesh)
    state, _ = update(state)  # past the first rollout's start-up
    update_seconds, (after, _) = _timed(update, state, repeats=repeats)
    moves_per_update = int(after.env_steps) - int(state.env_steps)

    env, n = trainer.env, cfg.ppo.num_envs
    length = max(1, round(moves_per_update / n))

    def engine_only(states, key):
        def one_move(states, key):
            mask = jax.vmap(env.legal_mask)(states)
            obs = jax.vmap(env.observe)(states, jax.vmap(env.to_move)(states))
            action = jax.vmap(uniform_legal_action)(jax.random.split(key, n), mask)
            states, _, done = jax.vmap(env.step)(states, action)
            return states, jnp.sum(obs[:, 0]) + jnp.sum(done)

        return jax.lax.scan(one_move, states, jax.random.split(key, length))

    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), n))
    engine_seconds, _ = _timed(jax.jit(engine_only), states, jax.random.PRNGKey(1), repeats=repeats)
    return {
        "train_env_steps_per_sec": moves_per_update / update_seconds,
        "train_learner_decisions_per_sec": n * cfg.ppo.rollout_length / update_seconds,
        "update_seconds": update_seconds,
        "engine_seconds": engine_seconds,
        "engine_share": engine_seconds / update_seconds,
        "moves_per_update": moves_per_update,
        "devices": mesh.devices.size,
    }
