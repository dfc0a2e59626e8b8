"""``reward=shaped``: tanh terminal reward plus potential-based shaping (docs/design.md).

``Phi = env.final_margin / scale`` (carry + current board-score difference, in terminal
units); the shaping term ``coef * (Phi(s') - Phi(s))`` telescopes over an episode, so
it guides credit assignment without changing which policies are optimal. ``coef``
anneals linearly with counted learner decisions to a floor (not to zero).
"""

import jax.numpy as jnp

from lost_cities.ppo.reward.tanh import TanhReward


class ShapedReward(TanhReward):
    needs_potential = True

    def __init__(self, scale: float, coef: float, floor: float, anneal_decisions: int):
        super().__init__(scale)
        self.coef, self.floor, self.anneal_decisions = coef, floor, anneal_decisions

    def coefficient(self, learner_decisions):
        progress = jnp.minimum(learner_decisions / self.anneal_decisions, 1.0)
        return jnp.float32(self.coef + (self.floor - self.coef) * progress)

    def __call__(self, env_reward, potential_before, potential_after, coefficient):
        shaping = coefficient * (potential_after - potential_before) / self.scale
        return super().__call__(env_reward, potential_before, potential_after, coefficient) + shaping
