"""A learned leaf value: a checkpoint's omniscient critic, in points of the final match margin.

The critic sees the privileged observation (the opponent's whole hand, the deck). In a
search this is the *sampled world's* state, drawn from the mover's information set, so
the leaf reads nothing of the true hidden cards (the no-cheat tests cover a search with
this leaf too).

The critic predicts the training return from a decision point of the seat it is asked
about: ``tanh(M / scale)`` of the final match margin ``M`` plus, under ``reward=shaped``,
the shaping still to come, ``coef * (M - Phi(s)) / scale`` (``Phi``: the margin so far,
``env.final_margin``). So ``V + coef * Phi / scale`` estimates ``g(M) = tanh(M / scale) +
coef * M / scale``, which is increasing in ``M``; the leaf is ``g``'s inverse of it
(bisection), an estimate of the final margin in points, the unit of the exact values of
rollouts that reach the round's end and of the gate. ``coef`` is the one the run
trained with at its last decision (the annealed coefficient at ``ppo.total_decisions``).
"""

import jax
import jax.numpy as jnp
from jax.tree_util import Partial

BISECTION_STEPS = 40
MAX_MARGIN = 600.0  # points: beyond any match margin between sensible players


def margin_of_return(target, scale, coef):
    """``M`` with ``tanh(M / scale) + coef * M / scale = target`` (clipped to +-MAX_MARGIN)."""

    def halve(_, bounds):
        low, high = bounds
        mid = 0.5 * (low + high)
        above = jnp.tanh(mid / scale) + coef * mid / scale > target
        return jnp.where(above, low, mid), jnp.where(above, mid, high)

    low, high = jax.lax.fori_loop(0, BISECTION_STEPS, halve, (-MAX_MARGIN, MAX_MARGIN))
    return 0.5 * (low + high)


def _critic_value(module, privileged):
    return module.critic(None, privileged)  # the omniscient critic reads no trunk output


def critic_leaf(agent):
    """``leaf(env_state, player) -> points`` from a checkpoint ``agent``'s omniscient critic
    (its parameters stay traced leaves of the returned ``Partial``)."""
    if "omniscient" not in agent.meta["critic"]["_target_"]:
        raise ValueError(
            f"search.leaf needs a checkpoint with the omniscient critic, not {agent.meta['critic']}"
        )
    reward = agent.meta["config"]["reward"]
    scale, coef = float(reward["scale"]), 0.0
    if "coef" in reward:
        progress = min(agent.meta["config"]["ppo"]["total_decisions"] / reward["anneal_decisions"], 1.0)
        coef = float(reward["coef"] + (reward["floor"] - reward["coef"]) * progress)
    env, network = agent.env, agent.network

    def leaf(params, state, player):
        value = network.apply(params, env.privileged(state, player)[None], method=_critic_value)[0]
        phi = env.final_margin(state)[player]
        return margin_of_return(value + coef * phi / scale, scale, coef)

    return Partial(leaf, agent.params)
