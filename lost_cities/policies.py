"""The one policy resolver: what a user types, parsed once into a typed spec, then made a
policy for an env.

A spec is one of:

- a bot name (``heuristic_expert``, ...): :class:`BotSpec`;
- a trained model, a checkpoint (a run dir, its ``checkpoints/best|latest``, or one step
  of those) or an exported ``.onnx`` model, a file or one the package ships by its name
  (the page's models, ``bc-ppo-xi6-bal2700.onnx``): :class:`ModelSpec`. Both run as their JAX
  network, wherever they are used (an exported model is read back into the network it was
  exported from), so a model plays the same games under ``evaluate``, as an opponent, a
  teacher or a search's base;
- ``search[/<preset>]:<base>``, the determinized search (:mod:`lost_cities.search`) with a
  preset of ``conf/search/`` (default: ``default``) over any of these: :class:`SearchSpec`.

Every consumer goes through :func:`make_policy` (evaluate, tournament, gates, training
opponents, teachers, a search's base, proposer and rollout policies, ``agents.load``), so
each kind of spec is accepted everywhere with the same errors. A network of another env
is an error, except that a one-round model plays a match round by round
(:func:`current_round_only`); a search never falls back to another scorer than the net
it was given.
"""

import functools
from dataclasses import dataclass
from pathlib import Path

from jax.tree_util import Partial

from lost_cities import bots, models
from lost_cities.models.base import shipped_model, shipped_models
from lost_cities.search.agent import search_policy
from lost_cities.search.belief import load as load_belief
from lost_cities.search.belief import world_sampler
from lost_cities.search.candidates import BOT_SCORES, expert_scores, logit_scores
from lost_cities.search.config import load_preset
from lost_cities.search.leaf import critic_leaf

SEARCH_PREFIX = "search"
DEFAULT_PRESET = "default"


@dataclass(frozen=True)
class BotSpec:
    """A scripted player of :mod:`lost_cities.bots`."""

    text: str

    @property
    def name(self):
        return self.text


@dataclass(frozen=True)
class ModelSpec:
    """A trained network: a checkpoint dir (or run dir, or step dir) or an exported ``.onnx``."""

    text: str

    @property
    def path(self):
        path = Path(self.text).expanduser()
        return path if path.exists() else (shipped_model(self.text) or path)

    @property
    def exported(self):
        return self.path.suffix == ".onnx"


@dataclass(frozen=True)
class SearchSpec:
    """The determinized search with preset ``preset`` on top of ``base``."""

    text: str
    preset: str
    base: "BotSpec | ModelSpec | SearchSpec"


Spec = BotSpec | ModelSpec | SearchSpec


def is_search(text):
    """Whether ``text`` reads ``search:<base>`` or ``search/<preset>:<base>``."""
    if not isinstance(text, str | Path) or ":" not in str(text):
        return False
    return str(text).split(":", 1)[0].split("/", 1)[0] == SEARCH_PREFIX


def parse(spec) -> Spec:
    """The typed spec of ``spec`` (a string or path; a parsed spec is returned as it is).
    A model path must exist and a bot must be known: an error here names the input."""
    if isinstance(spec, BotSpec | ModelSpec | SearchSpec):
        return spec
    text = str(spec)
    if is_search(text):
        head, base = text.split(":", 1)
        preset = head.split("/", 1)[1] if "/" in head else DEFAULT_PRESET
        if not base or not preset:
            raise ValueError(
                f"{text!r}: write search:<base> or search/<preset>:<base>, e.g. search:heuristic_expert"
            )
        return SearchSpec(text, preset, parse(base))
    path = Path(text).expanduser()
    if path.exists() or shipped_model(text) is not None:
        return ModelSpec(text)
    if path.suffix == ".onnx":
        raise FileNotFoundError(
            f"{text}: no such model file (nor a shipped model: {', '.join(shipped_models())})"
        )
    if text in bots.BOTS:
        return BotSpec(text)
    raise ValueError(
        f"{text!r} is neither an existing checkpoint directory / .onnx file nor a bot name "
        f"(unknown bot {text!r}; choose one of {sorted(bots.BOTS)})"
    )


@functools.lru_cache(maxsize=32)
def _bot(name):
    """Bots are cached so that repeated gate runs reuse the compiled evaluation loop."""
    return bots.make(name)


def _on_current_round(round_state, policy, state, rng):
    return policy(round_state(state), rng)


def current_round_only(policy, env):
    """A one-round policy (observation v1) playing inside ``env``: it sees the current round only.

    This is the legacy baseline: a ``single_round``-trained agent measured in match3,
    blind to the carry, the round index and the deck clock across rounds.
    """
    inner = policy if isinstance(policy, Partial) else Partial(policy)  # a pytree with no array leaves
    return Partial(_on_current_round, Partial(env.round_state), inner)


def network(spec, env, role="policy"):
    """The trained network ``spec`` names, for ``env`` (its JAX agent: params, network, meta);
    a network of another env is an error naming ``role`` (the setting that named it)."""
    spec = parse(spec)
    if not isinstance(spec, ModelSpec):
        raise ValueError(
            f"{role}={spec.text!r}: a checkpoint dir or exported .onnx model, not a {_kind(spec)}"
        )
    model = models.load(spec.path)
    if model.env.name != env.name:
        raise ValueError(
            f"{role}={spec.text!r} is a network of env {model.env.name}; this plays env {env.name} "
            "(a search ranks and rolls out with the net it is given, so the net must play the search's env)"
        )
    return model


def _kind(spec):
    return {BotSpec: "bot", ModelSpec: "model", SearchSpec: "search"}[type(spec)]


def scores(spec, env, role="proposer"):
    """``scores(env_state) -> float32[96]`` that rank a search's candidates: a scorer of
    :data:`~lost_cities.search.candidates.BOT_SCORES` by name, or a network's logits."""
    if isinstance(spec, str) and spec in BOT_SCORES:
        return BOT_SCORES[spec]
    text = spec.text if isinstance(spec, BotSpec | ModelSpec | SearchSpec) else str(spec)
    try:
        spec = parse(spec)
    except (ValueError, FileNotFoundError):
        spec = None
    if isinstance(spec, BotSpec) and spec.name in BOT_SCORES:
        return BOT_SCORES[spec.name]
    if isinstance(spec, ModelSpec):
        return logit_scores(network(spec, env, f"search.{role}"))
    raise ValueError(
        f"unknown search {role} {text!r}: name one of {sorted(BOT_SCORES)}, or a "
        f"{env.name} checkpoint dir or exported .onnx model (its logits rank the candidates; "
        f"a relative path is read from {Path.cwd()})"
    )


def make_policy(spec, env, presets=None, **search_knobs):
    """``policy(env_state, rng) -> action`` for ``spec`` in ``env``.

    A callable (e.g. a league snapshot) is returned as it is. ``presets`` (a directory of
    search presets; default the shipped ``conf/search``) and ``search_knobs`` (knobs over
    the preset's) apply to a search spec only."""
    if callable(spec):
        return spec
    spec = parse(spec)
    if isinstance(spec, SearchSpec):
        return _search(spec, env, presets, **search_knobs)
    if search_knobs:
        raise ValueError(f"{spec.text!r} is not a search; search knobs {sorted(search_knobs)} do not apply")
    if isinstance(spec, BotSpec):
        return _bot(spec.name)
    model = models.load(spec.path)
    if model.env.name == env.name:
        return model.policy
    if model.env.rounds == 1:
        return current_round_only(model.policy, env)
    raise ValueError(f"{spec.text} was trained on env {model.env.name}; it cannot play env {env.name}")


def _base(spec, env, proposer):
    """``(policy, scores)`` of a search's base: a network plays and ranks by its logits, a
    bot by its action values where it has them; the expert's values rank for the rest
    (``proposer``: a bot's values or a network's logits instead)."""
    spec = parse(spec)
    if isinstance(spec, ModelSpec):
        model = network(spec, env, "search base")
        policy, ranking = model.policy, logit_scores(model)
    else:
        policy = make_policy(spec, env)
        ranking = BOT_SCORES.get(spec.text, expert_scores) if isinstance(spec, BotSpec) else expert_scores
    return policy, ranking if proposer is None else scores(proposer, env)


def _leaf(text, env):
    """``search.leaf``: a checkpoint's omniscient critic (an exported model has no critic)."""
    spec = parse(text)
    if not isinstance(spec, ModelSpec) or spec.exported:
        raise ValueError(
            f"search.leaf={text!r}: a checkpoint dir (its critic is the leaf), not a {_kind(spec)}"
        )
    return critic_leaf(models.load_checkpoint(spec.path, env))


def _search(spec, env, presets=None, **knobs):
    """The search policy of ``spec`` for ``env`` (prints its cost line)."""
    cfg = load_preset(spec.preset, presets, **knobs)
    print(f"{spec.text}: {cfg.describe()}")
    rollout, opponent, next_move = (
        None if name is None else make_policy(name, env)
        for name in (cfg.rollout, cfg.opponent_rollout, cfg.next_move)
    )
    leaf = None if cfg.leaf is None else _leaf(cfg.leaf, env)
    deal = None if cfg.belief is None else world_sampler(load_belief(cfg.belief, env.name))
    policy, ranking = _base(spec.base, env, cfg.proposer)
    return search_policy(policy, ranking, cfg, rollout, leaf, opponent, next_move, deal)
