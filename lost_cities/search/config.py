"""The search's knobs: :class:`SearchConfig` (types and checks) and the presets that hold
their values, the Hydra config group ``conf/search/<name>.yaml`` (shipped as
``lost_cities.conf``; ``default`` is the one ``search:<base>`` uses)."""

import dataclasses
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import yaml
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.errors import HydraException
from omegaconf import OmegaConf

from lost_cities.game.cards import DECK_DRAWS, N_ACTIONS
from lost_cities.game.engine import MOVE_HISTORY

# Knob values above these are refused as typos: a decision holds worlds x candidates rollouts (and
# draws worlds x pool candidate worlds) at once, and the shipped presets use 16-64 worlds.
MOST_WORLDS = 1 << 16
MOST_POOL = 64

# Knobs that name a policy or a file: resolved once per search, so the end game cannot change them.
POLICY_KNOBS = ("rollout", "opponent_rollout", "next_move", "proposer", "leaf", "belief")


@dataclass(frozen=True)
class SearchConfig:
    """Knobs of the determinized search (see lost_cities/search/agent.py).

    - ``worlds``: sampled worlds per decision (every candidate is scored on all of them).
    - ``candidates``: the base move plus the base policy's next best, ``candidates`` in all.
    - ``depth``: plies played after a candidate before the leaf value; ``None``: to the
      round's end (the leaf is then the exact round result in match terms).
    - ``leaf``: what values a rollout cut at ``depth``: ``None``, the match margin as the
      board stands; a checkpoint dir, its omniscient critic (in points, see
      :mod:`lost_cities.search.leaf`). An odd ``depth`` cuts where the searching seat is
      to move, the decision points the critic was trained on.
    - ``rollout``: the policy that plays both seats in the rollouts (a policy spec);
      ``None``: the base policy.
    - ``opponent_rollout``: the opponent's model (a policy spec): it plays the other seat
      in the rollouts and is what ``inference_pool`` asks; ``None``: ``rollout`` plays both
      seats. A search that knows whom it plays (a teacher against a fixed opponent) sets it.
    - ``next_move``: the policy (a policy spec) that makes the searching seat's next
      decision in every rollout, after the other seat's reply; a search there makes the
      search a two-step one (each candidate judged as if the search, not the rollout
      policy, played on), at that search's cost per rollout. ``None``: the rollout policy.
    - ``gate_points`` / ``gate_z``: leave the base move only for a candidate whose mean
      paired gain over it exceeds ``gate_points`` points and ``gate_z`` standard errors.
    - ``prior_points``: the proposer's (or the base's) own preference, added to each
      challenger's paired gain: points per unit of its score over the base move's (a
      network's logits: per nat of its probability ratio; 0: the rollouts alone judge).
    - ``confirm_worlds``: 0, the gate reads the worlds that chose the best candidate; > 0,
      the best candidate and the base move are rolled out again in that many fresh worlds
      and the gate reads only those (no winner's curse: the worlds that picked the best
      candidate do not also judge it).
    - ``start_value``: points for starting the next round (a round other than the last).
    - ``scales``: per round, ``tanh(points / scale)`` as the utility (0: raw points).
    - ``proposer``: what ranks the candidates other than the base move: a ``BOT_SCORES``
      name, or a checkpoint dir or exported ``.onnx`` model (its logits); ``None``: the base
      policy's own scores. The base move stays the first candidate and what the gate
      defends, so a stronger proposer offers better challengers without changing the base.
    - ``belief``: ``None``, the worlds deal the opponent's unknown hand uniformly from the
      cards the mover has not seen; a shipped belief's name or a belief file (``python -m
      lost_cities.belief``), they deal it by that learned belief (:mod:`lost_cities.search.belief`).
    - ``inference_pool``: worlds drawn per world kept; of those, the ones in which
      the opponent's model plays the most of its latest ``inference_moves`` moves of the
      round are kept first (1: no inference, :mod:`lost_cities.search.inference`).
    - ``inference_moves``: how many of the opponent's latest moves the inference checks
      (1 to ``MOVE_HISTORY // 2``, the moves a round ``State`` keeps of each seat).
    - ``endgame``: ``None``, or knobs for the round's end game: ``deck_left: N`` and any
      knobs above but those naming a policy; they replace the others once at most ``N``
      cards are left in the deck (:mod:`lost_cities.search.endgame`). There the rollouts
      are short and the unseen cards few, so many candidates cost little and the worlds
      judge them with little noise.
    """

    worlds: int
    candidates: int
    depth: int | None
    leaf: str | None
    rollout: str | None
    opponent_rollout: str | None
    next_move: str | None
    gate_points: float
    gate_z: float
    prior_points: float
    confirm_worlds: int
    start_value: float
    scales: tuple
    proposer: str | None
    belief: str | None
    inference_pool: int
    inference_moves: int
    endgame: tuple | None  # a mapping, kept as sorted (knob, value) pairs: hashable (see endgame_config)

    def __post_init__(self):
        if self.worlds < 1 or self.candidates < 1:
            raise ValueError(f"search needs worlds >= 1 and candidates >= 1, got {self}")
        if self.candidates > N_ACTIONS:
            raise ValueError(
                f"search.candidates={self.candidates}: a position has at most {N_ACTIONS} actions"
            )
        for knob in ("worlds", "confirm_worlds"):
            if getattr(self, knob) > MOST_WORLDS:
                raise ValueError(
                    f"search.{knob}={getattr(self, knob)} is above {MOST_WORLDS} (each world is a rollout "
                    "per candidate, every decision, all held in memory at once): a typo?"
                )
        if self.inference_pool > MOST_POOL:
            raise ValueError(
                f"search.inference_pool={self.inference_pool} is above {MOST_POOL} (worlds are drawn "
                "worlds x pool at a time): a typo?"
            )
        if self.depth is not None and self.depth < 0:
            raise ValueError(f"search.depth must be null or >= 0, got {self.depth}")
        if self.next_move is not None and self.depth is not None and self.depth < 2:
            raise ValueError(
                f"search.next_move={self.next_move!r} plays the rollouts' second ply: depth must be "
                f"null or >= 2, got {self.depth}"
            )
        if self.leaf is not None and self.depth is None:
            raise ValueError(f"search.leaf={self.leaf!r} values a rollout cut at depth: set search.depth")
        if self.confirm_worlds < 0 or self.confirm_worlds == 1:
            raise ValueError(f"search.confirm_worlds must be 0 (off) or >= 2, got {self.confirm_worlds}")
        if self.inference_pool < 1:
            raise ValueError(
                f"search.inference_pool must be >= 1 (1: no inference), got {self.inference_pool}"
            )
        if not 1 <= self.inference_moves <= MOVE_HISTORY // 2:
            raise ValueError(
                f"search.inference_moves must be 1 to {MOVE_HISTORY // 2} (the opponent's moves a "
                f"State keeps), got {self.inference_moves}"
            )
        if len(self.scales) != 3 or min(self.scales) < 0:
            raise ValueError(f"search.scales needs one scale >= 0 per round (3), got {self.scales}")
        object.__setattr__(self, "scales", tuple(float(s) for s in self.scales))
        if self.endgame is not None:
            knobs = dict(self.endgame)
            if "scales" in knobs:
                knobs["scales"] = tuple(knobs["scales"])
            object.__setattr__(self, "endgame", tuple(sorted(knobs.items())))
            self.endgame_config()  # checks the end game's knobs now, not at its first decision

    @property
    def endgame_deck_left(self):
        """Cards left in the deck at or below which :meth:`endgame_config` decides (``None``: never)."""
        return None if self.endgame is None else dict(self.endgame)["deck_left"]

    def deciding(self, deck_left):
        """The config that decides with ``deck_left`` cards left in the deck."""
        late = self.endgame is not None and deck_left <= self.endgame_deck_left
        return self.endgame_config() if late else self

    def endgame_config(self):
        """The :class:`SearchConfig` of the end game (``None`` without one): these knobs with
        ``endgame``'s replacing them."""
        if self.endgame is None:
            return None
        knobs = dict(self.endgame)
        deck_left = knobs.pop("deck_left", None)
        if not isinstance(deck_left, int) or not 1 <= deck_left < DECK_DRAWS:
            raise ValueError(
                f"search.endgame needs deck_left: the cards left in the deck (1 to {DECK_DRAWS - 1}) "
                f"from which its knobs decide, got {deck_left!r}"
            )
        known = {f.name for f in dataclasses.fields(SearchConfig)} - {"endgame", *POLICY_KNOBS}
        unknown = set(knobs) - known
        if unknown:
            raise ValueError(
                f"search.endgame cannot set {sorted(unknown)}; it sets deck_left and any of {sorted(known)}"
            )
        return dataclasses.replace(self, endgame=None, **knobs)

    def rollout_plies(self, plies_left):
        """Plies one decision simulates when ``plies_left`` remain in the round (its cost)."""
        depth = plies_left if self.depth is None else min(self.depth, plies_left)
        return self.rollouts() * depth

    def rollouts(self):
        """Rollouts per decision: every candidate in every world, then the confirmation pair."""
        return self.worlds * self.candidates + 2 * self.confirm_worlds

    def describe(self):
        """One line: the knobs and the cost per decision."""
        depth = (
            "the round's end" if self.depth is None else f"{self.depth} plies, leaf {self.leaf or 'board'}"
        )
        confirm = f" + 2 x {self.confirm_worlds} confirmation worlds" if self.confirm_worlds else ""
        return (
            f"search: {self.worlds} worlds x {self.candidates} candidates{confirm} = "
            f"{self.rollouts()} rollouts per decision by {self.rollout or 'the base policy'}"
            + (f" (the opponent's seat by {self.opponent_rollout})" if self.opponent_rollout else "")
            + (f" (the searching seat's next move in each by {self.next_move})" if self.next_move else "")
            + f" to {depth} "
            f"(up to {self.rollout_plies(44)} simulated plies from a fresh round); gate "
            f"{self.gate_points:g} points and {self.gate_z:g} s.e."
            + (
                f", prior {self.prior_points:g} points per unit of the proposer's score"
                if self.prior_points
                else ""
            )
            + f"; start value {self.start_value:g}; "
            f"scales {list(self.scales)}; proposer {self.proposer or 'the base policy'}"
            + (f"; the opponent's hand dealt by the belief {self.belief}" if self.belief else "")
            + (
                f"; worlds kept from {self.inference_pool}x as many by the opponent's last "
                + ("move" if self.inference_moves == 1 else f"{self.inference_moves} moves")
                if self.inference_pool > 1
                else ""
            )
            + (
                f"; with {self.endgame_deck_left} or fewer cards in the deck: "
                + ", ".join(f"{knob} {value}" for knob, value in self.endgame if knob != "deck_left")
                + f" ({self.endgame_config().rollouts()} rollouts per decision)"
                if self.endgame is not None
                else ""
            )
        )


def conf_dir():
    """Where the presets are: ``search/`` in the shipped configs (``conf/search`` in a checkout)."""
    return Path(str(resources.files("lost_cities.conf"))) / "search"


def _preset_values(name, directory):
    """The knobs of preset ``name``: ``<directory>/<name>.yaml`` composed by Hydra (a preset's
    defaults list names the preset it builds on). From inside a running Hydra app too: its
    global state is put back afterwards."""
    directory = Path(directory).absolute()
    if not (directory / f"{name}.yaml").is_file():
        names = sorted(p.stem for p in directory.glob("*.yaml"))
        raise ValueError(f"unknown search preset {name!r} in {directory}; choose one of {names}")
    app = GlobalHydra.instance().hydra  # a running app's (None outside one)
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(directory), version_base=None):
            cfg = compose(config_name=name)
    except HydraException as error:
        raise ValueError(f"search preset {name!r} in {directory}: {error}") from error
    except RecursionError as error:  # Hydra follows a defaults list that names itself until the stack ends
        cycle = "its defaults lists name each other in a cycle"
        raise ValueError(f"search preset {name!r} in {directory}: {cycle}") from error
    finally:
        GlobalHydra.instance().clear()
        if app is not None:
            GlobalHydra.instance().initialize(app)
    return OmegaConf.to_container(cfg, resolve=True)


def knob_overrides(knobs):
    """``{name: value}`` from command-line ``name=value`` strings, each value read as YAML
    (``worlds=24``, ``scales=[0,0,10]``, ``belief=null``)."""
    malformed = [knob for knob in knobs if "=" not in knob]
    if malformed:
        raise ValueError(f"{malformed}: give search knobs as name=value, e.g. worlds=24")
    return {name: yaml.safe_load(value) for name, value in (knob.split("=", 1) for knob in knobs)}


def load_preset(name="default", directory=None, **overrides):
    """``<directory or conf_dir()>/<name>.yaml`` as a :class:`SearchConfig`, ``overrides``
    applied. A preset builds on another by its defaults list and sets only the knobs it changes."""
    directory = conf_dir() if directory is None else Path(directory)
    values = _preset_values(name, directory)
    known = {f.name for f in dataclasses.fields(SearchConfig)}
    unknown = (set(values) | set(overrides)) - known
    if unknown:
        raise ValueError(f"unknown search knobs {sorted(unknown)}; the knobs are {sorted(known)}")
    values.update(overrides)
    missing = known - set(values)
    if missing:
        raise ValueError(f"search preset {name!r} in {directory} lacks the search knobs {sorted(missing)}")
    values["scales"] = tuple(values["scales"])
    return SearchConfig(**values)
