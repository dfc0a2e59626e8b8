"""The training config schema (structured configs registered in Hydra's ConfigStore).

One source of truth: every value, and every ``_target_`` (the class a group option
builds), is in the YAML under ``conf/``; these dataclasses hold only the types, the
required markers (``MISSING``: a YAML must set it) and the value checks. A group option's
yaml starts from its schema (``defaults: [schema_<name>]``; ``gates`` has one schema and
is typed by ``TrainConfig.gates``), so an unknown key or a wrong type fails when Hydra
composes the config, and :func:`validate` (``OmegaConf.to_object``, which runs each
``__post_init__``) rejects missing and bad values before anything is built.

| config                         | schema                                             |
| ------------------------------ | -------------------------------------------------- |
| ``conf/config.yaml``           | ``TrainConfig``, ``CheckpointConfig``, ``EvaluationConfig``, |
|                                | ``DistributedConfig``                              |
| ``conf/env/*.yaml``            | ``EnvConfig``                                      |
| ``conf/reward/{tanh,shaped}``  | ``TanhRewardConfig``, ``ShapedRewardConfig``       |
| ``conf/critic/{shared,omniscient}`` | ``SharedCriticConfig``, ``OmniscientCriticConfig`` |
| ``conf/opponent/{static,league}``   | ``StaticOpponentConfig``, ``LeagueOpponentConfig`` |
| ``conf/ppo/default.yaml``      | ``PPOConfig``                                      |
| ``conf/network/{mlp,action}``  | ``NetworkConfig``, ``ActionNetworkConfig``         |
| ``conf/logger/{wandb,none}``   | ``WandbLoggerConfig``, ``NoneLoggerConfig``        |
| ``conf/init/{none,bc}``        | ``NoInitConfig``, ``BCInitConfig``                 |
| ``conf/gates/*.yaml``          | ``lost_cities.evaluation.gates.GatesConfig``       |
"""

from dataclasses import dataclass
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, OmegaConf

from lost_cities.bots import BOTS
from lost_cities.envs import names
from lost_cities.evaluation.gates import GatesConfig
from lost_cities.policies import BotSpec, ModelSpec, parse


def _require(condition, message):
    if not condition:
        raise ValueError(message)


@dataclass
class EnvConfig:
    name: str = MISSING

    def __post_init__(self):
        _require(
            self.name in names(),
            f"env.name={self.name!r} is not an environment; choose one of {names()}",
        )


@dataclass
class TanhRewardConfig:
    _target_: str = MISSING
    scale: float = MISSING

    def __post_init__(self):
        _require(
            self.scale > 0, f"reward.scale must be > 0 (got {self.scale}); docs/design.md suggests 30..50"
        )


@dataclass
class ShapedRewardConfig(TanhRewardConfig):
    _target_: str = MISSING
    coef: float = MISSING
    floor: float = MISSING
    anneal_decisions: int = MISSING

    def __post_init__(self):
        super().__post_init__()
        _require(
            0 <= self.floor <= self.coef,
            f"need 0 <= reward.floor <= reward.coef (got {self.floor}, {self.coef})",
        )
        _require(self.anneal_decisions > 0, "reward.anneal_decisions must be > 0")


@dataclass
class SharedCriticConfig:
    _target_: str = MISSING
    gae_lambda: float = MISSING

    def __post_init__(self):
        _require(0 < self.gae_lambda < 1, f"critic.gae_lambda must be in (0, 1) (got {self.gae_lambda})")


@dataclass
class OmniscientCriticConfig(SharedCriticConfig):
    _target_: str = MISSING
    gae_lambda: float = MISSING
    hidden: list[int] = MISSING


def check_policy_names(names, key, allowed=("self",)):
    """Each name is a bot, one of ``allowed``, or an existing checkpoint dir / ``.onnx`` file
    (:func:`lost_cities.policies.parse`; a search is too slow to train against)."""
    for name in names:
        if name in allowed:
            continue
        try:
            spec = parse(name)
        except (ValueError, FileNotFoundError):
            spec = None
        if not isinstance(spec, BotSpec | ModelSpec):
            kinds = [f"a bot {sorted(BOTS)}", *map(repr, allowed), "an existing checkpoint dir / .onnx file"]
            raise ValueError(f"{key}: unknown opponent {name!r}; expected " + " or ".join(kinds))


def _check_weights(policies, weights, others=0.0):
    """One non-negative weight per policy, not all zero (``others``: the rest of the mix's weight)."""
    _require(
        weights is None
        or (len(weights) == len(policies) and min(weights, default=0) >= 0 and sum(weights) + others > 0),
        f"opponent.weights needs one non-negative weight per policy ({len(policies)}), not all zero",
    )


@dataclass
class StaticOpponentConfig:
    _target_: str = MISSING
    policies: list[str] = MISSING
    weights: list[float] | None = MISSING

    def __post_init__(self):
        _require(len(self.policies) > 0, "opponent.policies must name at least one opponent")
        check_policy_names(self.policies, "opponent.policies")
        _check_weights(self.policies, self.weights)


@dataclass
class LeagueOpponentConfig:
    """``static``'s fixed mix plus ``league`` (a past snapshot), drawn with ``league_weight``."""

    _target_: str = MISSING
    policies: list[str] = MISSING
    weights: list[float] | None = MISSING
    league_weight: float = MISSING
    pool_size: int = MISSING
    snapshot_every_updates: int = MISSING

    def __post_init__(self):
        _require(
            "league" not in self.policies,
            "opponent.policies lists fixed opponents; the pool joins as `league` by opponent.league_weight",
        )
        _require(
            self.league_weight > 0,
            f"opponent.league_weight must be > 0 (got {self.league_weight}); "
            "for no snapshots use opponent=static",
        )
        check_policy_names(self.policies, "opponent.policies")
        _check_weights(self.policies, self.weights, self.league_weight)
        _require(self.pool_size >= 1, f"opponent.pool_size must be >= 1 (got {self.pool_size})")
        _require(
            self.snapshot_every_updates >= 1,
            f"opponent.snapshot_every_updates must be >= 1 (got {self.snapshot_every_updates})",
        )


@dataclass
class PPOConfig:
    num_envs: int = MISSING
    rollout_length: int = MISSING
    total_decisions: int = MISSING  # learner decisions in the run (env steps are ~1.65x: replies)
    epochs: int = MISSING
    minibatches: int = MISSING
    lr: float = MISSING
    anneal_lr: bool = MISSING
    gamma: float = MISSING
    gae_lambda: float | None = MISSING  # None: the critic's default (docs/design.md)
    clip_eps: float = MISSING
    ent_coef: float = MISSING
    vf_coef: float = MISSING
    max_grad_norm: float = MISSING
    anchor_kl: float = MISSING  # weight of KL(warm start || learner); needs init=bc
    magnet_kl: float = MISSING  # weight of KL(learner || magnet): regularised self-play
    magnet_reset_updates: int = MISSING  # the magnet becomes the learner every this many updates (0: never)
    lr_warmup_updates: int = MISSING  # the rate rises linearly from 0 over these first updates
    anneal_restarts: list[int] = MISSING  # updates where the annealed rate restarts (trainer.annealed)
    total_steps: int | None = None  # renamed ppo.total_decisions; set, it is an error naming the new key

    def __post_init__(self):
        _require(
            self.total_steps is None,
            f"ppo.total_steps={self.total_steps}: renamed ppo.total_decisions (it counts learner "
            "decisions, not env steps); write ppo.total_decisions instead",
        )
        for name in ("num_envs", "rollout_length", "total_decisions", "epochs", "minibatches"):
            _require(getattr(self, name) > 0, f"ppo.{name} must be > 0 (got {getattr(self, name)})")
        batch = self.num_envs * self.rollout_length
        _require(
            batch % self.minibatches == 0,
            f"ppo.minibatches={self.minibatches} must divide num_envs*rollout_length={batch}",
        )
        _require(
            self.total_decisions >= batch,
            f"ppo.total_decisions={self.total_decisions} is less than one update ({batch})",
        )

        _require(
            self.gae_lambda is None or 0 < self.gae_lambda < 1,
            f"ppo.gae_lambda must be in (0, 1), never 1 (got {self.gae_lambda})",
        )
        _require(0 < self.gamma <= 1, f"ppo.gamma must be in (0, 1] (got {self.gamma})")
        _require(self.lr > 0 and self.clip_eps > 0, "ppo.lr and ppo.clip_eps must be > 0")
        _require(self.ent_coef >= 0 and self.vf_coef >= 0, "ppo.ent_coef and ppo.vf_coef must be >= 0")
        _require(self.anchor_kl >= 0, f"ppo.anchor_kl must be >= 0 (got {self.anchor_kl})")
        _require(self.magnet_kl >= 0, f"ppo.magnet_kl must be >= 0 (got {self.magnet_kl})")
        _require(
            self.magnet_reset_updates >= 0,
            f"ppo.magnet_reset_updates must be >= 0 (0: never reset; got {self.magnet_reset_updates})",
        )
        updates = self.total_decisions // batch
        _require(
            0 <= self.lr_warmup_updates < updates,
            f"ppo.lr_warmup_updates={self.lr_warmup_updates} must be >= 0 and less than the run's "
            f"{updates} updates",
        )
        restarts = list(self.anneal_restarts)
        _require(
            not restarts or self.anneal_lr,
            f"ppo.anneal_restarts={restarts} restarts the annealing: it needs ppo.anneal_lr=true",
        )
        _require(
            all(
                a < b for a, b in zip([self.lr_warmup_updates, *restarts], [*restarts, updates], strict=True)
            ),
            f"ppo.anneal_restarts={restarts} must rise strictly, after the warm-up "
            f"({self.lr_warmup_updates} updates) and before the run's end ({updates} updates)",
        )


ACTIVATIONS = ("relu", "tanh", "gelu")


@dataclass
class NetworkConfig:
    _target_: str = MISSING
    hidden: list[int] = MISSING
    activation: str = MISSING

    def __post_init__(self):
        _require(len(self.hidden) > 0 and min(self.hidden) > 0, "network.hidden needs positive layer widths")
        _require(
            self.activation in ACTIVATIONS,
            f"network.activation={self.activation!r}; choose one of {list(ACTIVATIONS)}",
        )


@dataclass
class ActionNetworkConfig(NetworkConfig):
    placement_hidden: list[int] = MISSING

    def __post_init__(self):
        super().__post_init__()
        _require(
            len(self.placement_hidden) > 0 and min(self.placement_hidden) > 0,
            "network.placement_hidden needs positive layer widths",
        )


@dataclass
class NoInitConfig:
    name: str = MISSING
    value_warmup_updates: int = MISSING

    def __post_init__(self):
        _require(self.value_warmup_updates >= 0, "init.value_warmup_updates must be >= 0")


@dataclass
class BCInitConfig(NoInitConfig):
    teacher: str = MISSING
    checkpoint: str | None = MISSING
    start: str | None = MISSING
    updates: int = MISSING
    num_envs: int = MISSING
    rollout_length: int = MISSING
    lr: float = MISSING
    epochs: int = MISSING
    minibatches: int = MISSING
    learner_share: float = MISSING
    random_share: float = MISSING
    label_smoothing: float = MISSING
    opponent: str | None = MISSING

    def __post_init__(self):
        super().__post_init__()
        _require(0 <= self.label_smoothing < 1, "init.label_smoothing must be in [0, 1)")
        for name in ("updates", "num_envs", "rollout_length", "epochs", "minibatches"):
            _require(getattr(self, name) > 0, f"init.{name} must be > 0 (got {getattr(self, name)})")
        _require(
            (self.num_envs * self.rollout_length) % self.minibatches == 0,
            f"init.minibatches={self.minibatches} must divide init.num_envs*init.rollout_length",
        )
        _require(self.lr > 0, "init.lr must be > 0")
        _require(
            not self.teacher.endswith(":None"),  # `search/fast:${init.start}` with no start
            f"init.teacher={self.teacher!r} searches on nothing: experiment=expert_iteration needs "
            "init.start=<the run dir to improve>",
        )
        _require(
            self.start is None or self.checkpoint is None,
            "init.start (the run dir cloning starts from) and init.checkpoint (a finished clone, "
            "read instead of cloning) exclude each other: set one",
        )
        _require(
            0 <= self.learner_share
            and 0 <= self.random_share
            and self.learner_share + self.random_share <= 1,
            "init.learner_share and init.random_share must be >= 0 and add up to at most 1",
        )


@dataclass
class WandbLoggerConfig:
    _target_: str = MISSING
    project: str = MISSING
    entity: str | None = MISSING
    mode: str = MISSING
    tags: list[str] = MISSING

    def __post_init__(self):
        _require(
            self.mode in ("offline", "online", "disabled"),
            f"logger.mode={self.mode!r}; choose offline, online or disabled",
        )


@dataclass
class NoneLoggerConfig:
    _target_: str = MISSING


@dataclass
class CheckpointConfig:
    every_updates: int = MISSING
    max_to_keep: int = MISSING
    best_metric: str = MISSING

    def __post_init__(self):
        _require(
            self.every_updates > 0 and self.max_to_keep > 0,
            "checkpoint.every_updates and checkpoint.max_to_keep must be > 0",
        )
        _require(bool(self.best_metric), "checkpoint.best_metric must name a metrics.jsonl key")


@dataclass
class EvaluationConfig:
    """The short duplicate evaluation printed at the end of a run."""

    deals: int = MISSING
    opponents: list[str] = MISSING
    batch_size: int = MISSING

    def __post_init__(self):
        _require(self.deals > 0, f"evaluation.deals must be > 0 (got {self.deals})")
        _require(self.batch_size > 0, f"evaluation.batch_size must be > 0 (got {self.batch_size})")
        check_policy_names(self.opponents, "evaluation.opponents", allowed=())


@dataclass
class DistributedConfig:
    """Multi-host (:mod:`lost_cities.distributed`): unset, a single process or the launcher's."""

    coordinator: str | None = MISSING  # host:port of process 0
    num_processes: int | None = MISSING
    process_id: int | None = MISSING

    def __post_init__(self):
        given = [self.num_processes is not None, self.process_id is not None]
        if self.coordinator is None:
            _require(not any(given), "distributed.num_processes/process_id need distributed.coordinator")
            return
        _require(all(given), "distributed.coordinator needs distributed.num_processes and process_id")
        _require(
            0 <= self.process_id < self.num_processes,
            f"distributed.process_id={self.process_id} must be in 0..num_processes-1 ({self.num_processes})",
        )


def _is_bc(init):
    """``init=bc``: its schema's object, or a dict where a resume read the group from the run's
    config.yaml (a group's node is typed only when its yaml names its schema)."""
    return isinstance(init, BCInitConfig) or (isinstance(init, dict) and init.get("name") == "bc")


@dataclass
class TrainConfig:
    env: Any = MISSING
    reward: Any = MISSING
    critic: Any = MISSING
    opponent: Any = MISSING
    ppo: PPOConfig = MISSING
    network: Any = MISSING
    init: Any = MISSING
    logger: Any = MISSING
    checkpoint: CheckpointConfig = MISSING
    evaluation: EvaluationConfig = MISSING
    gates: GatesConfig = MISSING
    experiment_name: str = MISSING
    seed: int = MISSING
    resume: str | None = MISSING
    progress: bool = MISSING
    devices: Any = MISSING  # "all" or a count (lost_cities.parallel.make_mesh)
    distributed: DistributedConfig = MISSING

    def __post_init__(self):
        _require(
            self.devices == "all" or (isinstance(self.devices, int) and self.devices > 0),
            f"devices={self.devices!r}: pass devices=all or a device count >= 1",
        )
        _require(
            self.ppo.anchor_kl == 0 or _is_bc(self.init),
            f"ppo.anchor_kl={self.ppo.anchor_kl} pulls the learner toward its warm start: it needs init=bc",
        )
        if isinstance(self.opponent, LeagueOpponentConfig):
            _require(
                self.ppo.num_envs % self.opponent.pool_size == 0,
                f"opponent.pool_size={self.opponent.pool_size} must divide ppo.num_envs={self.ppo.num_envs} "
                "(each pool entry plays an equal block of env slots)",
            )


SCHEMAS = {
    "env": {"env": EnvConfig},
    "reward": {"tanh": TanhRewardConfig, "shaped": ShapedRewardConfig},
    "critic": {"shared": SharedCriticConfig, "omniscient": OmniscientCriticConfig},
    "opponent": {"static": StaticOpponentConfig, "league": LeagueOpponentConfig},
    "ppo": {"ppo": PPOConfig},
    "network": {"mlp": NetworkConfig, "action": ActionNetworkConfig},
    "logger": {"wandb": WandbLoggerConfig, "none": NoneLoggerConfig},
    "init": {"init_none": NoInitConfig, "init_bc": BCInitConfig},
}


def register_schemas():
    """Store the schemas as ``<group>/schema_<name>`` for the yaml files to extend."""
    store = ConfigStore.instance()
    store.store(name="schema_train", node=TrainConfig)
    for group, options in SCHEMAS.items():
        for name, node in options.items():
            store.store(group=group, name=f"schema_{name}", node=node)


def compose(overrides=(), return_hydra_config=False):
    """The training config with ``overrides``, composed outside an entry point (tests,
    benchmarks): what ``python -m lost_cities.train <overrides>`` would run."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module

    with initialize_config_module(config_module="lost_cities.conf", version_base=None):
        return hydra_compose("config", overrides=list(overrides), return_hydra_config=return_hydra_config)


def validate(cfg):
    """Run every schema's value checks (``__post_init__``); raises ValueError with the fix."""
    OmegaConf.to_object(cfg)
    return cfg


register_schemas()
