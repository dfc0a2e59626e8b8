"""The tiny training configs the PPO-mechanics and fault tests share (a few updates, one
round, the small MLP): a test that trains pays for one compile of this config."""

from hydra import compose, initialize_config_module

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


def make_cfg(overrides):
    with initialize_config_module(config_module="lost_cities.conf", version_base=None):
        return compose("config", overrides=overrides)
