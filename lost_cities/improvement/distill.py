"""The student: a network fitted to the search's labels by cross-entropy.

The student starts fresh (``student.init=fresh``: new parameters, the champion's
architecture) or from the champion's parameters (``champion``), and takes ``epochs``
shuffled passes over the pooled labels with Adam and a cosine-decayed learning rate. The
target is the search's soft target over its candidates (``targets=soft``) or its move
(``hard``). Only the policy is fitted: the search values positions by rollouts, not by a
critic, and a value head fitted to whole rounds of these games would memorise them.

One jitted function runs an epoch (a ``lax.scan`` over minibatches gathered from the
labels in place), so the student's state after each epoch is a checkpoint to resume from.
"""

import jax
import jax.numpy as jnp
import optax
from flax import struct

from lost_cities.improvement.labels import TARGETS
from lost_cities.networks.nets import masked_logits

N_ACTIONS = 96


@struct.dataclass
class StudentState:
    params: dict
    opt_state: optax.OptState
    key: jax.Array
    epoch: jnp.ndarray


def init_params(env, network, critic, key):
    """Fresh parameters of ``network`` (whose critic is ``critic``) for ``env``."""
    obs = jnp.zeros((1, env.obs_dim))
    privileged = jnp.zeros((1, env.privileged_dim if critic.needs_privileged else 0))
    return network.init(key, obs, privileged)


def full_target(actions, target, label, kind):
    """float32[n, 96]: the soft target spread from its candidates, or the hard label."""
    if kind == "hard":
        return jax.nn.one_hot(label, N_ACTIONS)
    rows = jnp.arange(actions.shape[0])[:, None]
    return jnp.zeros((actions.shape[0], N_ACTIONS)).at[rows, actions].add(target)


class Distiller:
    """``init(params, key)``, the jitted ``epoch(state, labels)`` and ``score(params, labels)``."""

    def __init__(self, network, targets, lr, epochs, minibatch_size, n_labels):
        if targets not in TARGETS:
            raise ValueError(f"student.targets={targets!r}; choose one of {list(TARGETS)}")
        if n_labels < minibatch_size:
            raise ValueError(
                f"{n_labels} training labels are fewer than student.minibatch_size={minibatch_size}: "
                "generate more (generate.chunks, generate.games, generate.plies) or shrink the minibatch"
            )
        self.network, self.targets, self.minibatch_size = network, targets, minibatch_size
        self.steps = n_labels // minibatch_size  # per epoch: the remainder waits for the next shuffle
        schedule = optax.cosine_decay_schedule(lr, decay_steps=max(epochs * self.steps, 1))
        self.optimizer = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(schedule, eps=1e-5))
        self.epoch = jax.jit(self._epoch)
        self.score = jax.jit(self._score)

    def init(self, params, key):
        return StudentState(params, self.optimizer.init(params), key, jnp.int32(0))

    def _outputs(self, params, batch):
        obs, mask = batch["obs"], batch["mask"]
        raw = self.network.apply(params, obs, self.network.input_features(obs), method="logits")
        logits = masked_logits(raw, mask)
        log_probs = jnp.where(mask, jax.nn.log_softmax(logits), 0.0)
        target = full_target(batch["actions"], batch["target"], batch["label"], self.targets)
        cross_entropy = -jnp.sum(target * log_probs, axis=-1)
        hit = jnp.argmax(logits, axis=-1) == batch["label"]
        return cross_entropy, hit

    def loss(self, params, batch):
        cross_entropy, hit = self._outputs(params, batch)
        return jnp.mean(cross_entropy), {"cross_entropy": jnp.mean(cross_entropy), "accuracy": jnp.mean(hit)}

    def _epoch(self, state, labels):
        key, k_order = jax.random.split(state.key)
        size = jax.tree.leaves(labels)[0].shape[0]
        order = jax.random.permutation(k_order, size)[: self.steps * self.minibatch_size]
        grad_fn = jax.grad(self.loss, has_aux=True)

        def step(carry, index):
            params, opt_state = carry
            grads, info = grad_fn(params, jax.tree.map(lambda x: x[index], labels))
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), info

        (params, opt_state), info = jax.lax.scan(
            step, (state.params, state.opt_state), order.reshape(self.steps, self.minibatch_size)
        )
        metrics = {name: jnp.mean(value) for name, value in info.items()}
        return StudentState(params, opt_state, key, state.epoch + 1), metrics

    def _score(self, params, labels):
        """Mean cross-entropy and accuracy (the search's move ranked first) over ``labels``."""
        cross_entropy, hit = self._outputs(params, labels)
        return {"cross_entropy": jnp.mean(cross_entropy), "accuracy": jnp.mean(hit)}
