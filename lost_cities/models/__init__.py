"""Trained networks without the training code: a checkpoint or an exported model as an agent.

| module         | contract                                                                   |
| -------------- | -------------------------------------------------------------------------- |
| ``base``       | ``matching_env`` (the env a saved model may play: same observation),       |
|                | ``check_rng`` (a sampled ``act`` needs a key), ``read_manifest``           |
| ``checkpoint`` | ``Agent`` over a training checkpoint (JAX); ``network_logits``,            |
|                | ``network_policy`` (the greedy policy training gates and evaluation use); |
|                | ``load_exported``: an ``Agent`` over an exported model's policy weights   |
| ``exported``   | the ONNX names of a policy's weights, and reading them back into JAX       |
| ``onnx``       | ``OnnxAgent`` over an exported model (onnxruntime), same interface         |

Both agent kinds import ``base`` only, never each other; :func:`load` picks one by the
path. A policy spec of any kind (a bot, a search) is resolved by :mod:`lost_cities.policies`.
"""

from pathlib import Path

from lost_cities.models.base import matching_env
from lost_cities.models.checkpoint import (
    Agent,
    load_checkpoint,
    load_exported,
    network_logits,
    network_policy,
)

RUNTIMES = ("jax", "onnxruntime")


def load(path, env=None, checkpoint="latest", runtime="jax"):
    """An agent from a checkpoint (a run dir: its ``checkpoints/<checkpoint>``, ``latest``
    (the final parameters) or ``best``; a ``checkpoints/best|latest`` dir, or one step of
    those) or an exported ``.onnx`` model; ``env`` (an Env or its name) defaults to the env
    it was trained on. An exported model runs as its JAX network (``runtime="jax"``, as
    every policy of the package does) or in onnxruntime as the web client runs it
    (``runtime="onnxruntime"``: an ``OnnxAgent``)."""
    if runtime not in RUNTIMES:
        raise ValueError(f"runtime={runtime!r}; choose one of {list(RUNTIMES)}")
    if Path(path).suffix == ".onnx":
        if not Path(path).is_file():
            raise FileNotFoundError(f"{path}: no such model file")
        if runtime == "jax":
            return load_exported(path, env)
        from lost_cities.models.onnx import load_onnx  # onnxruntime only when asked for

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
