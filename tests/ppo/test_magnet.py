"""Regularised self-play (``ppo.magnet_kl``, magnetic mirror descent): the learner is pulled
toward a magnet policy, which becomes the learner every ``ppo.magnet_reset_updates``."""

import functools

import jax
import jax.flatten_util
import numpy as np
import pytest
from tiny_runs import SHARED, make_cfg

from lost_cities.ppo.config import validate
from lost_cities.ppo.trainer import Trainer


def flat(params):
    return np.asarray(jax.flatten_util.ravel_pytree(params)[0])


@functools.lru_cache(maxsize=4)
def trained(coef, reset, updates=4):
    cfg = validate(make_cfg([*SHARED, f"ppo.magnet_kl={coef}", f"ppo.magnet_reset_updates={reset}"]))
    trainer = Trainer.from_config(cfg)
    ts = trainer.init(cfg.seed)
    first = flat(ts.params)
    update = jax.jit(trainer.update)
    history = []
    for _ in range(updates):
        ts, metrics = update(ts)
        history.append((flat(ts.params), flat(ts.magnet), float(metrics["learner/magnet_kl"])))
    return first, history


@pytest.mark.slow
def test_the_magnet_is_reset_to_the_learner_every_few_updates():
    first, history = trained(1.0, reset=3)
    (p1, m1, _), (p2, m2, _), (p3, m3, _), (p4, m4, _) = history
    np.testing.assert_array_equal(m1, first)  # held until the reset
    np.testing.assert_array_equal(m2, first)
    np.testing.assert_array_equal(m3, p3)  # update 3: the learner becomes the magnet
    np.testing.assert_array_equal(m4, p3)  # and is held again
    assert not np.array_equal(p4, p3)


@pytest.mark.slow
def test_a_stronger_magnet_holds_the_learner_closer():
    # KL(learner || magnet) in update 3, at the learner of update 2 (the KL's gradient is 0
    # while the learner is the magnet, so update 1 moves both runs alike)
    _, loose = trained(1.0, reset=3)  # the first test's run
    _, tight = trained(30.0, reset=3)
    assert tight[2][2] < loose[2][2]
    assert not np.array_equal(tight[1][0], loose[1][0])


def test_magnet_knobs_are_checked():
    with pytest.raises(ValueError, match="ppo.magnet_kl"):
        validate(make_cfg([*SHARED, "ppo.magnet_kl=-1"]))
    with pytest.raises(ValueError, match="ppo.magnet_reset_updates"):
        validate(make_cfg([*SHARED, "ppo.magnet_reset_updates=-2"]))
