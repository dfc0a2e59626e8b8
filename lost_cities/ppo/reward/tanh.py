"""``reward=tanh``: the terminal reward ``tanh(final margin / scale)`` (docs/design.md)."""

import jax.numpy as jnp


class TanhReward:
    """Zero-sum and bounded; a scale of 30..50 points keeps margins informative (a small
    scale turns it into a near-``sign`` reward, a known bad choice)."""

    needs_potential = False

    def __init__(self, scale: float):
        self.scale = scale

    def coefficient(self, learner_decisions):
        return jnp.float32(0.0)

    def __call__(self, env_reward, potential_before, potential_after, coefficient):
        """float32[2] per seat; the env's reward is the final margin on the ending transition, else 0."""
        return jnp.tanh(env_reward / self.scale)
