"""The tiny training configs the PPO-mechanics, training-run and fault tests share (a few
updates, one round, the small MLP; a test that trains pays for one compile of this config),
the progress bar that interrupts a run, and what the run tests (tests/training/test_loop.py,
tests/ppo/test_train.py, tests/ppo/test_league.py) share: a run trained from overrides and
its metrics rows. (tests/conftest.py's session-wide compilation cache makes a repeated
config's compile a read.)"""

from lost_cities.ppo.config import compose as make_cfg  # noqa: F401  (the tests compose with it)

TINY = [
    "network=mlp",  # PPO mechanics: the small network, fresh parameters (tests/imitation covers init=bc)
    "init=none",
    "logger=none",
    "progress=false",
    "ppo.num_envs=8",
    "ppo.rollout_length=128",
    "ppo.total_decisions=3072",  # 3 updates
    "ppo.epochs=1",
    "ppo.minibatches=1",
    "network.hidden=[16]",
    "checkpoint.every_updates=1",
    "gates=smoke",  # one 4-deal gate every other update and at the end
]
# The shared training config: shaped reward (so returns test the telescoping), a fixed
# bot and self-play mixed (so both rollout paths run), one round (shortest episodes).
SHARED = [
    "env=single_round",
    "reward=shaped",
    "opponent.policies=[random,self]",
    "opponent.weights=null",
    *TINY,
]

# The shared run with shorter rollouts and 2 epochs of 2 minibatches (so the shuffles are
# exercised): the data-parallel and launcher tests' run (tests/test_parallel.py,
# tests/training/test_launchers.py).
_LONGER = (
    "ppo.rollout_length",
    "ppo.total_decisions",
    "ppo.epochs",
    "ppo.minibatches",
    "checkpoint.every_updates",
)
SHORT = [
    *(o for o in SHARED if o.split("=")[0] not in _LONGER),
    "ppo.rollout_length=32",
    "ppo.total_decisions=768",  # 3 updates
    "ppo.epochs=2",
    "ppo.minibatches=2",
    "checkpoint.every_updates=3",
    "checkpoint.best_metric=gates/random/win_rate",  # no episode ends in 32-decision rollouts
]


class Interrupt(Exception):
    pass


class StopAfter:
    """A progress bar that kills the run after ``n`` updates, between the metrics row and
    the checkpoint (the worst moment: a row exists that no checkpoint covers)."""

    def __init__(self, n):
        self.n, self.seen = n, 0

    def update(self, k):
        self.seen += k
        if self.seen == self.n:
            raise Interrupt

    def set_postfix(self, **_):
        pass

    def close(self):
        pass


def _train(overrides, run_dir, progress=None):
    from lost_cities.training.loop import train

    cfg = make_cfg(overrides)
    return train(cfg, run_dir, progress=progress)


def _rows(run_dir):
    from lost_cities.training.run_dir import read_metrics

    return [{k: v for k, v in row.items() if not k.startswith("time/")} for row in read_metrics(run_dir)]
