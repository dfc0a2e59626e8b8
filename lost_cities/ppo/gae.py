"""Generalised advantage estimation over interleaved seats, truncation-aware.

Every row of a rollout is one learner decision by seat ``mover``. In self-play both
seats' decisions are in the same env's rows, alternating; each seat's advantages chain
through *its own* next decision, and rewards that arrive between a seat's decisions
(e.g. the opponent's move ends the match) accrue to it. A real episode end bootstraps
with 0; a rollout cut mid-episode bootstraps each seat with the critic's value of the
state at the cut (``bootstrap[env, seat]``).
"""

import jax
import jax.numpy as jnp

SEATS = jnp.arange(2)


def per_seat_gae(values, movers, rewards, dones, bootstrap, gamma, gae_lambda):
    """Advantages and returns, each ``[T, N]``.

    ``values[t, n]``: V at decision t (the mover's view); ``rewards[t, n, seat]``: the
    reward each seat got from decision t until the next row (same episode only);
    ``dones[t, n]``: the episode ended within that interval; ``bootstrap[n, seat]``.
    """

    def backward(carry, row):
        next_value, next_advantage, pending = carry
        value, mover, reward, done = row
        alive = (1.0 - done.astype(jnp.float32))[:, None]
        next_value, next_advantage = next_value * alive, next_advantage * alive
        pending = pending * alive + reward
        is_mover = SEATS[None, :] == mover[:, None]

        def mine(x):
            return jnp.sum(jnp.where(is_mover, x, 0.0), axis=1)

        delta = mine(pending) + gamma * mine(next_value) - value
        advantage = delta + gamma * gae_lambda * mine(next_advantage)
        carry = (
            jnp.where(is_mover, value[:, None], next_value),
            jnp.where(is_mover, advantage[:, None], next_advantage),
            jnp.where(is_mover, 0.0, pending),
        )
        return carry, advantage

    zeros = jnp.zeros_like(bootstrap)
    _, advantages = jax.lax.scan(
        backward, (bootstrap, zeros, zeros), (values, movers, rewards, dones), reverse=True
    )
    return advantages, advantages + values
