"""Trained agents usable without the training code: ``load(path).act(state, player)`` (SPEC §5).

| module         | contract                                                                   |
| -------------- | -------------------------------------------------------------------------- |
| ``base``       | ``matching_env`` (the env a saved agent may play: same observation),       |
|                | ``check_rng`` (a sampled ``act`` needs a key)                              |
| ``checkpoint`` | ``Agent`` over a training checkpoint (JAX); ``network_logits``,            |
|                | ``network_policy`` (the greedy policy training gates and evaluation use); |
|                | ``load_exported``: an ``Agent`` over an exported model's policy weights   |
| ``onnx``       | ``OnnxAgent`` over an exported model (onnxruntime), same interface         |

Both agent kinds import ``base`` only, never each other; :func:`load` picks one by the path.
"""

from pathlib import Path

from lost_cities.agents.base import matching_env
from lost_cities.agents.checkpoint import (
    Agent,
    load_checkpoint,
    load_exported,
    network_logits,
    network_policy,
)


def load(path, env=None, checkpoint="latest"):
    """An :class:`Agent` from a checkpoint (a run dir: its ``checkpoints/<checkpoint>``,
    ``latest`` (the final parameters) or ``best``; or a ``checkpoints/best|latest`` dir), or
    an ``OnnxAgent`` from an exported ``.onnx`` file; ``env`` (an Env or its name) defaults
    to the env the agent was trained on. ``search:<base>`` (lost_cities/search/spec.py) gives
    the determinized search on top of ``<base>`` (``env`` defaults to match3 there)."""
    if str(path).startswith("search"):
        from lost_cities.search.spec import SearchAgent, is_search_spec

        if is_search_spec(path):
            return SearchAgent(path, env)
    if Path(path).suffix == ".onnx":
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such model file")
        from lost_cities.agents.onnx import load_onnx  # onnxruntime only when asked for

        return load_onnx(path, env)
    return load_checkpoint(path, env, checkpoint)


__all__ = [
    "Agent",
    "load",
    "load_checkpoint",
    "load_exported",
    "matching_env",
    "network_logits",
    "network_policy",
]
