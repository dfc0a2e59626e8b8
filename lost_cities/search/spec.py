"""``search:<base>`` and ``search/<preset>:<base>``: a search policy from a policy spec.

``<base>`` is anything the policy resolver accepts (a bot name, a checkpoint dir, an
``.onnx`` file); ``<preset>`` names ``conf/search/<preset>.yaml`` (default: ``default``).
Candidates are ranked by the base's own scores where it has them (the heuristic bots'
action values, a network's logits) and by the expert's action values otherwise (the other
bots), unless the preset names a ``proposer`` (a bot's scores or a network's logits). An
``.onnx`` base (an exported network, e.g. a shipped agent of web/public) runs as its JAX
network (``agents.load_exported``), so its rollouts cost what a checkpoint's do. The
preset's ``rollout`` (a policy spec) plays the rollouts in the base's place, its
``opponent_rollout`` the other seat's moves in them, its ``next_move`` the searching seat's
next decision in them (a ``search...`` spec there: a two-step search), its ``leaf`` (a checkpoint dir)
values the rollouts cut at ``depth`` by that checkpoint's critic, and its ``belief`` (a file of
``python -m lost_cities.search.belief train``) deals the worlds' opponent hands.
"""

from pathlib import Path

import jax
import jax.numpy as jnp

from lost_cities.search.agent import search_policy
from lost_cities.search.belief import load as load_belief
from lost_cities.search.belief import world_sampler
from lost_cities.search.candidates import BOT_SCORES, expert_scores, logit_scores
from lost_cities.search.config import load_preset

PREFIX = "search"


def is_search_spec(spec):
    """Whether ``spec`` reads ``search:<base>`` or ``search/<preset>:<base>``."""
    if not isinstance(spec, str | Path) or ":" not in str(spec):
        return False
    return str(spec).split(":", 1)[0].split("/", 1)[0] == PREFIX


def parse(spec):
    """``(preset, base)`` of ``search[/<preset>]:<base>``."""
    head, base = str(spec).split(":", 1)
    preset = head.split("/", 1)[1] if "/" in head else "default"
    if not base or not preset:
        raise ValueError(
            f"{spec!r}: write search:<base> or search/<preset>:<base>, e.g. search:heuristic_expert"
        )
    return preset, base


def network_of(spec, env):
    """The network ``spec`` names for ``env`` (a checkpoint dir, or an exported model run as
    its JAX network), or ``None`` when it names none (a bot) or one of another env."""
    from lost_cities import agents

    agent, path = None, Path(spec).expanduser()
    if path.suffix == ".onnx" and path.is_file():
        agent = agents.load_exported(path)
    elif path.is_dir():
        agent = agents.load(path)
    return agent if agent is not None and agent.env.name == env.name else None


def _proposer(proposer, env):
    """``scores`` of the ``proposer`` knob: a :data:`BOT_SCORES` name, or a network's logits."""
    if proposer in BOT_SCORES:
        return BOT_SCORES[proposer]
    network = network_of(proposer, env)
    if network is None:
        raise ValueError(
            f"unknown search proposer {proposer!r}: name one of {sorted(BOT_SCORES)}, or a "
            f"{env.name} checkpoint dir or exported .onnx model (its logits rank the candidates; "
            f"a relative path is read from {Path.cwd()})"
        )
    return logit_scores(network)


def _base(base, env, proposer=None):
    """``(policy, scores)`` of the search's base: a network (a checkpoint, or an exported
    model run as its JAX network) plays and ranks by its logits, a bot by its action values
    where it has them; the expert's values rank for the rest (``proposer``: a bot's values or
    a network's logits instead)."""
    from lost_cities.evaluation.policies import resolve_policy

    network = network_of(base, env)
    policy = resolve_policy(base, env) if network is None else network.policy
    if proposer is not None:
        return policy, _proposer(proposer, env)
    if base in BOT_SCORES:
        return policy, BOT_SCORES[base]
    return policy, expert_scores if network is None else logit_scores(network)


def resolve_search(spec, env, directory=None, **overrides):
    """The search policy named by ``spec`` for ``env`` (prints its cost line).

    ``directory`` holds the presets (default: the shipped ``conf/search``); ``overrides``
    replace the preset's knobs."""
    from lost_cities.evaluation.policies import resolve_policy

    preset, base = parse(spec)
    cfg = load_preset(preset, directory, **overrides)
    print(f"{spec}: {cfg.describe()}")
    rollout, opponent, next_move = (
        None if name is None else resolve_policy(name, env)
        for name in (cfg.rollout, cfg.opponent_rollout, cfg.next_move)
    )
    leaf = None if cfg.leaf is None else _leaf(cfg.leaf, env)
    deal = None if cfg.belief is None else world_sampler(load_belief(cfg.belief, env.name))
    return search_policy(*_base(base, env, cfg.proposer), cfg, rollout, leaf, opponent, next_move, deal)


def _leaf(path, env):
    from lost_cities import agents
    from lost_cities.search.leaf import critic_leaf

    agent = agents.load(Path(path).expanduser(), env=env)
    if not hasattr(agent, "params"):
        raise ValueError(
            f"search.leaf={path!r}: a checkpoint dir (its critic is the leaf), not {type(agent).__name__}"
        )
    return critic_leaf(agent)


class SearchAgent:
    """``lost_cities.agents.load("search:<base>")``: ``act(state, player)`` like any agent.

    The search samples its worlds from ``rng``; without one it uses a fixed key, so a
    position always gets the same answer."""

    def __init__(self, spec, env=None, directory=None, **overrides):
        from lost_cities.envs import make as make_env

        self.spec = str(spec)
        self.env = make_env("match3" if env is None else env) if isinstance(env, str | None) else env
        self.policy = resolve_search(self.spec, self.env, directory, **overrides)
        self._act = jax.jit(self.policy)

    def act(self, state, player, greedy=True, rng=None):
        """The search's action for ``player`` (who must be to move); ``greedy`` is accepted for
        the agent interface (the search has no sampled mode)."""
        if int(self.env.to_move(state)) != int(player):
            raise ValueError(f"player {player} is not to move")
        return int(self._act(state, jax.random.PRNGKey(0) if rng is None else rng).astype(jnp.int32))
