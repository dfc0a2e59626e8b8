"""From what a user types (a bot name, a checkpoint directory, an ``.onnx`` file, or
``search:<one of those>``, lost_cities/search/spec.py) to a policy.

Shared by ``lost_cities.tournament``, ``lost_cities.evaluate`` and the gates, so that
every command accepts the same kinds of opponents with the same errors.
"""

import functools
from pathlib import Path

from jax.tree_util import Partial


@functools.lru_cache(maxsize=32)
def _bot(name):
    """Bots are cached so that repeated gate runs reuse the compiled evaluation loop."""
    from lost_cities import bots

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


def resolve_policy(spec, env):
    """``policy(env_state, rng) -> action`` for a bot name, a checkpoint dir or an ``.onnx`` file,
    or the determinized search on top of one of them (``search[/<preset>]:<base>``).

    A policy passed in (a callable, e.g. a league snapshot) is returned as it is. A
    checkpoint trained on ``single_round`` plays a multi-round ``env`` through
    :func:`current_round_only`.
    """
    if callable(spec):
        return spec
    spec = str(spec)
    if spec.startswith("search"):
        from lost_cities.search.spec import is_search_spec, resolve_search

        if is_search_spec(spec):
            return resolve_search(spec, env)
    if Path(spec).expanduser().exists():
        from lost_cities import agents

        agent = agents.load(Path(spec).expanduser())
        if agent.env.name == env.name:
            return agent.policy
        if agent.env.rounds == 1:
            return current_round_only(agent.policy, env)
        raise ValueError(f"{spec} was trained on env {agent.env.name}; it cannot play env {env.name}")
    try:
        return _bot(spec)
    except (ValueError, KeyError) as error:
        raise ValueError(
            f"{spec!r} is neither an existing checkpoint directory / .onnx file nor a bot name ({error})"
        ) from error
