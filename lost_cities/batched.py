"""Batched engine entry points: ``jax.jit(jax.vmap(...))`` of the single-game functions."""

import jax

from lost_cities.engine import legal_action_mask, reset, step
from lost_cities.observation import observation

batched_reset = jax.jit(jax.vmap(reset))
batched_step = jax.jit(jax.vmap(step))
batched_legal_mask = jax.jit(jax.vmap(legal_action_mask))
batched_obs = jax.jit(jax.vmap(observation))
