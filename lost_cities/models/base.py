"""What every agent shares: the env it may play in.

An agent (:class:`lost_cities.models.checkpoint.Agent`, :class:`lost_cities.models.onnx.OnnxAgent`)
carries ``meta`` naming the env and the observation version and size it was trained on,
and offers ``act(state, player, greedy=True, rng=None) -> int`` and ``policy(env_state,
rng) -> action`` (greedy, a ``jax.tree_util.Partial`` usable inside jitted evaluation).
"""

import json
from importlib import resources
from pathlib import Path

import jax

from lost_cities.envs import make as make_env
from lost_cities.envs import names as env_names
from lost_cities.networks.features import AF_VERSION


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
    if meta["env"] not in env_names():
        raise ValueError(
            f"{path}: the agent was trained on env {meta['env']!r}, which this package does not have "
            f"(it has {env_names()}); a model of another version of the package?"
        )
    env = make_env(meta["env"]) if env is None else (make_env(env) if isinstance(env, str) else env)
    if (env.obs_version, env.obs_dim) != (meta["obs_version"], meta["obs_dim"]):
        raise ValueError(
            f"{path}: the agent takes observation {meta['obs_version']} ({meta['obs_dim']} floats, "
            f"env {meta['env']}), but env {env.name} gives {env.obs_version} ({env.obs_dim}); "
            + remedy.format(trained=meta["env"])
        )
    return env


# The models the project ships (the web page's, web/public in the checkout), as package data.
SHIPPED = "lost_cities.shipped"


def shipped_models():
    """The file names of the shipped policies (``<id>.onnx``; the beliefs beside them aside)."""
    names = (p.name for p in resources.files(SHIPPED).iterdir())
    return sorted(n for n in names if n.endswith(".onnx") and not n.endswith("-belief.onnx"))


def shipped_model(name):
    """The path of the shipped model ``name`` (``<id>.onnx``), or None."""
    if Path(name).name != name or not name.endswith(".onnx"):
        return None
    path = resources.files(SHIPPED).joinpath(name)
    return Path(str(path)) if path.is_file() else None


FEATURE_BLOCKS = (None, AF_VERSION)  # the input feature blocks an exported model may take
MANIFEST_KEYS = ("env", "obs_version", "obs_dim", "network")  # what loading a model reads of its manifest


def read_manifest(path):
    """The manifest written beside an exported model (same stem, ``.json``)."""
    manifest_path = Path(path).with_suffix(".json")
    if not manifest_path.exists():
        raise FileNotFoundError(
            f"{path}: no manifest {manifest_path} beside the model; export the checkpoint again "
            "with `python -m lost_cities.export checkpoint=... out=...`, which writes both"
        )
    try:
        meta = json.loads(manifest_path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(
            f"{path}: its manifest {manifest_path} is not JSON ({error}); export the model again"
        ) from error
    missing = (
        [key for key in MANIFEST_KEYS if key not in meta] if isinstance(meta, dict) else list(MANIFEST_KEYS)
    )
    if missing:
        raise ValueError(
            f"{path}: its manifest {manifest_path} lacks {missing}: not a manifest of lost_cities.export"
        )
    if meta.get("features") not in FEATURE_BLOCKS:
        known = ", ".join(str(name) for name in FEATURE_BLOCKS if name)
        raise ValueError(
            f"{path}: the model takes input features {meta['features']!r}; this agent computes {known}"
        )
    return meta
