"""What every agent shares: the env it may play in.

An agent (:class:`lost_cities.agents.checkpoint.Agent`, :class:`lost_cities.agents.onnx.OnnxAgent`)
carries ``meta`` naming the env and the observation version and size it was trained on,
and offers ``act(state, player, greedy=True, rng=None) -> int`` and ``policy(env_state,
rng) -> action`` (greedy, a ``jax.tree_util.Partial`` usable inside jitted evaluation).
"""

import json
from pathlib import Path

import jax

from lost_cities.envs import make as make_env


def check_rng(greedy, rng):
    """The key ``act`` uses: ``rng``; a sample (``greedy=False``) without one is an error, since
    a fixed default key would return the same "sample" on every call."""
    if rng is not None:
        return rng
    if not greedy:
        raise ValueError(
            "act(..., greedy=False) samples an action: pass rng=jax.random.key(...) (a new one per call)"
        )
    return jax.random.PRNGKey(0)  # unused by a greedy act


def matching_env(path, meta, env, remedy):
    """The env to play a saved agent in: ``env`` (an Env or its name), else the one it was
    trained on; refuses an env whose observation differs from the agent's (``meta``).
    ``remedy`` says what to do instead, with ``{trained}`` for the agent's env name."""
    env = make_env(meta["env"]) if env is None else (make_env(env) if isinstance(env, str) else env)
    if (env.obs_version, env.obs_dim) != (meta["obs_version"], meta["obs_dim"]):
        raise ValueError(
            f"{path}: the agent takes observation {meta['obs_version']} ({meta['obs_dim']} floats, "
            f"env {meta['env']}), but env {env.name} gives {env.obs_version} ({env.obs_dim}); "
            + remedy.format(trained=meta["env"])
        )
    return env


def read_manifest(path):
    """The manifest written beside an exported model (same stem, ``.json``)."""
    manifest_path = Path(path).with_suffix(".json")
    if not manifest_path.exists():
        raise FileNotFoundError(
            f"{path}: no manifest {manifest_path} beside the model; export the checkpoint again "
            "with `python -m lost_cities.export checkpoint=... out=...`, which writes both"
        )
    return json.loads(manifest_path.read_text())
