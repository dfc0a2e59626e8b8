"""From what a user types (a bot name, a checkpoint directory, an ``.onnx`` file) to a policy.

Shared by ``lost_cities.tournament``, ``lost_cities.evaluate`` and the gates, so that
every command accepts the same kinds of opponents with the same errors.
"""

import functools
from pathlib import Path


@functools.lru_cache(maxsize=32)
def _bot(name):
    """Bots are cached so that repeated gate runs reuse the compiled evaluation loop."""
    from lost_cities import bots

    return bots.make(name)


def resolve_policy(spec, env):
    """``policy(env_state, rng) -> action`` for a bot name, a checkpoint dir or an ``.onnx`` file.

    A policy passed in (a callable, e.g. a league snapshot) is returned as it is.
    """
    if callable(spec):
        return spec
    spec = str(spec)
    path = Path(spec).expanduser()
    if path.exists():
        from lost_cities import agents

        agent = agents.load(path)
        if not hasattr(agent, "policy"):
            raise TypeError(f"{spec}: the loaded agent has no `policy` to play inside JAX loops")
        return agent.policy
    try:
        return _bot(spec)
    except (ValueError, KeyError) as error:
        raise ValueError(
            f"{spec!r} is neither an existing checkpoint directory / .onnx file nor a bot name ({error})"
        ) from error
