"""Rates of the two learning steps that make their own data: a PPO update (learner decisions
and env steps per second, :func:`lost_cities.benchmarks.training.measure_throughput`) and a
cloning update (decisions labelled by ``init.teacher`` and fitted, per second)."""

import jax

from lost_cities.benchmarks.profile import median_seconds
from lost_cities.imitation.bc import BehaviourCloning
from lost_cities.imitation.warm_start import teacher_and_opponent
from lost_cities.ppo.config import compose
from lost_cities.ppo.trainer import Trainer


def bc_label_rate(overrides=(), runs=3):
    """``{bc_labels_per_sec, bc_update_seconds}``: whole cloning updates of the default
    ``init=bc`` (teacher ``heuristic_expert``: label, play and fit ``num_envs x rollout_length``
    decisions), the median of ``runs`` after compile."""
    cfg = compose(["logger=none", "init=bc", *overrides])
    trainer = Trainer.from_config(cfg)
    teacher, opponent = teacher_and_opponent(cfg.init, trainer.env)
    bc = BehaviourCloning(trainer.env, trainer.network, teacher, cfg.init, opponent)
    state = bc.init(jax.random.PRNGKey(cfg.seed), trainer.init_params())
    seconds = median_seconds(lambda s: bc.update(s)[1], state, runs=runs)
    return {
        "bc_labels_per_sec": cfg.init.num_envs * cfg.init.rollout_length / seconds,
        "bc_update_seconds": seconds,
    }
