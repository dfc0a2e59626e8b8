"""An exported policy (``lost_cities.export``) as an agent: ``load_onnx(path).act(state, player)``.

The model runs in onnxruntime on CPU; the observation is computed in JAX with the env
the manifest names, and an env whose observation version or size differs from the
manifest's is refused. A model whose manifest names input ``features`` (``"af1"``:
ActionNet) gets them computed in JAX from the observation
(:func:`lost_cities.networks.features.batched_action_features`); a feature block this agent
does not know is refused. ``agent.policy`` is the same model as a ``policy(env_state, rng)``
(through ``jax.pure_callback``), so evaluation and tournaments accept an ``.onnx`` file
like a checkpoint.
"""

import jax
import jax.numpy as jnp
import numpy as np
import onnxruntime as ort
from jax.tree_util import Partial

from lost_cities.game.cards import N_ACTIONS
from lost_cities.models.base import check_rng, matching_env, read_manifest
from lost_cities.models.exported import REMEDY
from lost_cities.networks.features import AF_VERSION, batched_action_features

# Per manifest ``features``: the input names and the JAX function that computes them from obs.
FEATURES = {None: ((), None), AF_VERSION: (("placement", "draw"), batched_action_features)}


class OnnxAgent:
    def __init__(self, session, env, meta):
        self.session, self.env, self.meta = session, env, meta
        self.feature_names, self._features = FEATURES[meta.get("features")]
        self._observe = jax.jit(env.observe)
        self._legal = jax.jit(env.legal_mask)
        self._jit_features = jax.jit(self._features) if self._features else None
        self.policy = Partial(self._greedy_policy)

    def features(self, obs):
        """The model's input features of observations ``[..., obs_dim]`` (``()`` for the MLP)."""
        return () if self._jit_features is None else self._jit_features(jnp.asarray(obs, jnp.float32))

    def run(self, obs, mask, features=None):
        """``(probs, logits)`` float32[..., 96] for observations and legal masks of any leading
        shape; ``features`` (the model's input features of ``obs``) are computed when left out."""
        obs = np.asarray(obs, np.float32)
        lead = obs.shape[:-1]
        features = self.features(obs) if features is None else features
        inputs = {
            "obs": obs.reshape(-1, obs.shape[-1]),
            "mask": np.asarray(mask, np.float32).reshape(-1, N_ACTIONS),
        }
        for name, value in zip(self.feature_names, features, strict=True):
            value = np.asarray(value, np.float32)
            inputs[name] = value.reshape(-1, *value.shape[len(lead) :])
        probs, logits = self.session.run(["probs", "logits"], inputs)
        return probs.reshape(*lead, N_ACTIONS), logits.reshape(*lead, N_ACTIONS)

    def _greedy_policy(self, state, rng):
        obs = self.env.observe(state, self.env.to_move(state))
        mask = self.env.legal_mask(state).astype(jnp.float32)
        features = tuple(self._features(obs)) if self._features else ()  # traced: in the caller's jit
        logits = jax.pure_callback(
            lambda o, m, *f: self.run(o, m, f)[1],
            jax.ShapeDtypeStruct(mask.shape, jnp.float32),
            obs,
            mask,
            *features,
            vmap_method="broadcast_all",
        )
        return jnp.argmax(logits).astype(jnp.int32)

    def act(self, state, player, greedy=True, rng=None):
        """The action for ``player`` (who must be to move) in a State or MatchState: the most
        likely one, or with ``greedy=False`` a sample drawn with ``rng`` (required then)."""
        rng = check_rng(greedy, rng)
        _, logits = self.run(self._observe(state, jnp.int32(player)), self._legal(state))
        if greedy:
            return int(np.argmax(logits))
        return int(jax.random.categorical(rng, jnp.asarray(logits)))


def load_onnx(path, env=None):
    """An :class:`OnnxAgent`; ``env`` (an Env or its name) defaults to the manifest's env."""
    meta = read_manifest(path)  # refuses a feature block this package does not compute
    env = matching_env(path, meta, env, "play it on env {trained} or export a model trained on that env")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # one position at a time: threads cost more than they give
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime's InvalidProtobuf, Fail, ...: one message naming the file
        reason = str(error).splitlines()[0][:300]
        raise ValueError(
            f"{path}: not a readable ONNX model ({type(error).__name__}: {reason}); {REMEDY}"
        ) from error
    model_dim = session.get_inputs()[0].shape[-1]
    if model_dim != meta["obs_dim"]:
        raise ValueError(
            f"{path}: the model's input has {model_dim} floats but its manifest says {meta['obs_dim']}"
        )
    return OnnxAgent(session, env, meta)
