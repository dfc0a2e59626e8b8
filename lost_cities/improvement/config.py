"""The schema of ``conf/improve.yaml`` (types, required markers and value checks; the
values are in the YAML). Registered as ``schema_improve``; the ``env``, ``network``,
``critic`` and ``logger`` groups are the training config's (:mod:`lost_cities.ppo.config`)."""

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from lost_cities.improvement.judge import HANDS, TEACHER_HANDS
from lost_cities.improvement.labels import PLAY, TARGETS
from lost_cities.ppo import config as train_schema  # registers the shared groups' schemas

STUDENT_INITS = ("fresh", "champion")
PROMOTION_RULES = ("margin", "win_rate")


def _require(condition, message):
    if not condition:
        raise ValueError(message)


def _positive(owner, **values):
    for name, value in values.items():
        _require(
            isinstance(value, int) and not isinstance(value, bool) and value > 0,
            f"{owner + '.' if owner else ''}{name}={value!r} must be a whole number > 0",
        )


@dataclass
class EscalateConfig:
    share: float = MISSING  # of each ply's positions
    worlds: int = MISSING  # more worlds for each of them

    def __post_init__(self):
        _require(0 <= self.share <= 1, f"teacher.escalate.share={self.share}: a share, 0 to 1")
        _require(
            isinstance(self.worlds, int) and self.worlds >= 0,
            f"teacher.escalate.worlds={self.worlds!r} must be a whole number >= 0",
        )
        _require(
            (self.share > 0) == (self.worlds > 0),
            f"teacher.escalate: share={self.share} and worlds={self.worlds} are both set or both 0 (off)",
        )


@dataclass
class JudgeConfig:
    positions: int = MISSING  # of the iteration's chunk carries; 0: off
    worlds: int = MISSING  # fresh worlds judging each changed label
    hand: str = MISSING  # the opponent's hand in them: real (only the deck dealt afresh) or uniform

    def __post_init__(self):
        _require(self.hand in HANDS, f"teacher.judge.hand={self.hand!r}; choose one of {list(HANDS)}")
        _require(
            isinstance(self.positions, int) and self.positions >= 0,
            f"teacher.judge.positions={self.positions!r} must be a whole number >= 0 (0: off)",
        )
        _require(
            isinstance(self.worlds, int) and self.worlds >= 2,
            f"teacher.judge.worlds={self.worlds!r} must be a whole number >= 2",
        )


@dataclass
class TeacherConfig:
    search: str = MISSING  # a preset of conf/search
    knobs: dict[str, Any] = field(default_factory=dict)
    hand: str = MISSING  # the opponent's hand in its worlds: model (the search's) or real (an oracle)
    escalate: EscalateConfig = MISSING
    judge: JudgeConfig = MISSING
    temperature: float = MISSING

    def __post_init__(self):
        _require(self.temperature > 0, f"teacher.temperature={self.temperature} must be > 0 (points)")
        hands = list(TEACHER_HANDS)
        _require(self.hand in hands, f"teacher.hand={self.hand!r}; choose one of {hands}")


@dataclass
class GenerateConfig:
    games: int = MISSING
    plies: int = MISSING
    chunks: int = MISSING
    play: str = MISSING
    opponents: dict[str, float] = field(default_factory=dict)

    def __post_init__(self):
        _positive("generate", games=self.games, plies=self.plies, chunks=self.chunks)
        _require(self.play in PLAY, f"generate.play={self.play!r}; choose one of {list(PLAY)}")
        train_schema.check_policy_names(list(self.opponents), "generate.opponents", allowed=())
        shares = list(self.opponents.values())
        _require(
            all(share > 0 for share in shares) and sum(shares) <= 1,
            f"generate.opponents={dict(self.opponents)}: each a share of the games > 0, together at most 1",
        )


@dataclass
class StudentConfig:
    init: str = MISSING
    targets: str = MISSING
    window: int = MISSING
    epochs: int = MISSING
    minibatch_size: int = MISSING
    lr: float = MISSING
    holdout: int = MISSING

    def __post_init__(self):
        _positive("student", window=self.window, epochs=self.epochs, minibatch_size=self.minibatch_size)
        _require(
            self.init in STUDENT_INITS, f"student.init={self.init!r}; choose one of {list(STUDENT_INITS)}"
        )
        _require(self.targets in TARGETS, f"student.targets={self.targets!r}; choose one of {list(TARGETS)}")
        _require(self.lr > 0, f"student.lr={self.lr} must be > 0")
        _require(self.holdout >= 0, f"student.holdout={self.holdout} must be >= 0")


@dataclass
class GateConfig:
    deals: int = MISSING
    first: int = MISSING
    batch_size: int = MISSING
    rule: str = MISSING
    opponent: str | None = MISSING

    def __post_init__(self):
        if self.opponent is not None:
            train_schema.check_policy_names([self.opponent], "gate.opponent", allowed=())
        _positive("gate", deals=self.deals, batch_size=self.batch_size)
        _require(self.first >= 0, f"gate.first={self.first} must be a deal bank index >= 0")
        _require(
            self.rule in PROMOTION_RULES, f"gate.rule={self.rule!r}; choose one of {list(PROMOTION_RULES)}"
        )


@dataclass
class AnchorsConfig:
    opponents: list[str] = MISSING
    deals: int = MISSING
    first: int = MISSING
    batch_size: int = MISSING

    def __post_init__(self):
        _positive("anchors", deals=self.deals, batch_size=self.batch_size)
        _require(self.first >= 0, f"anchors.first={self.first} must be a deal bank index >= 0")
        train_schema.check_policy_names(self.opponents, "anchors.opponents", allowed=())


@dataclass
class PriorConfig:
    run: str | None = MISSING
    iterations: int | None = MISSING

    def __post_init__(self):
        _require(
            self.iterations is None or (self.run is not None and self.iterations > 0),
            f"prior.iterations={self.iterations!r} needs prior.run and must be > 0 (null: all it finished)",
        )


@dataclass
class ExploitersConfig:
    updates: int = MISSING  # PPO updates of each champion's best response; 0: off
    share: float = MISSING  # of generation's games it then plays
    deals: int = MISSING  # its evaluation's duplicate deals
    overrides: list[str] = field(default_factory=list)  # keys of conf/exploit.yaml

    def __post_init__(self):
        _require(
            isinstance(self.updates, int) and not isinstance(self.updates, bool) and self.updates >= 0,
            f"exploiters.updates={self.updates!r} must be a whole number >= 0 (0: off)",
        )
        _require(0 < self.share <= 1, f"exploiters.share={self.share}: a share of the games, in (0, 1]")
        _positive("exploiters", deals=self.deals)
        malformed = [o for o in self.overrides if "=" not in o]
        _require(
            not malformed,
            f"exploiters.overrides={malformed}: keys of conf/exploit.yaml as key=value, e.g. ppo.lr=3e-4",
        )
        owned = [o for o in self.overrides if o.split("=", 1)[0].lstrip("+~") in EXPLOITER_OWN]
        _require(
            not owned,
            f"exploiters.overrides={owned}: the loop sets these (exploiters.updates, exploiters.deals, the "
            "champion as the agent, the seed from the run's)",
        )


EXPLOITER_OWN = ("agent", "updates", "deals", "seed", "resume", "progress", "logger")


@dataclass
class ImproveConfig:
    env: Any = MISSING
    network: Any = MISSING
    critic: Any = MISSING
    logger: Any = MISSING
    teacher: TeacherConfig = MISSING
    generate: GenerateConfig = MISSING
    student: StudentConfig = MISSING
    gate: GateConfig = MISSING
    anchors: AnchorsConfig = MISSING
    prior: PriorConfig = MISSING
    exploiters: ExploitersConfig = MISSING
    experiment_name: str = MISSING
    start: str | None = MISSING
    resume: str | None = MISSING
    iterations: int = MISSING
    time_limit_minutes: float | None = MISSING
    seed: int = MISSING
    progress: bool = MISSING
    devices: Any = MISSING

    def __post_init__(self):
        _positive("", iterations=self.iterations)
        _require(
            self.time_limit_minutes is None or self.time_limit_minutes > 0,
            f"time_limit_minutes={self.time_limit_minutes} must be > 0 (or null: no limit)",
        )
        _require(
            self.devices == "all" or (isinstance(self.devices, int) and self.devices > 0),
            f"devices={self.devices!r}: pass devices=all or a device count >= 1",
        )
        mixed = sum(self.generate.opponents.values())
        _require(
            self.exploiters.updates == 0 or mixed + self.exploiters.share <= 1,
            f"exploiters.share={self.exploiters.share} and generate.opponents (together {mixed}) "
            "are shares of the same games: together at most 1",
        )


ConfigStore.instance().store(name="schema_improve", node=ImproveConfig)
