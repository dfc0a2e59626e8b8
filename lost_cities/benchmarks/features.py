"""The ``af1`` action features' rate: states whose rows are computed per second, from the
observation alone (what an exported model's caller has) and with the state's own view
(what rollouts, the learner and agents pass), over live positions of expert self-play."""

import jax

from lost_cities import envs
from lost_cities.benchmarks.profile import median_seconds
from lost_cities.evaluation.positions import positions
from lost_cities.networks.features import batched_action_features, observer_view


def feature_rates(lanes=4096, runs=7, env_name="match3"):
    """``{features_from_obs_per_sec, features_per_sec}`` over ``lanes`` positions."""
    env = envs.make(env_name)
    states = positions(env, lanes)
    rounds = jax.vmap(env.round_state)(states)
    obs = jax.jit(jax.vmap(env.observe))(states, rounds.to_move)
    views = jax.jit(jax.vmap(observer_view))(rounds, rounds.to_move)
    n = obs.shape[0]
    return {
        "features_from_obs_per_sec": n / median_seconds(batched_action_features, obs, runs=runs),
        "features_per_sec": n / median_seconds(batched_action_features, obs, views, runs=runs),
    }
