"""Candidate actions: the base policy's own preferences, pruned to its top K.

A search over every legal action (~48) with a few sampled worlds picks the action that
was luckiest in those worlds (the winner's curse); scoring only the base policy's best
few keeps the comparison among moves the base policy already rates, where the sampled
worlds decide between close calls. Scores come from the base policy itself:

- the heuristic bots: their own ``action_values`` (the expert's with its deck clock and
  match shift, computed exactly as ``bots/expert.py`` does; a test checks that its best
  legal action is the expert's move);
- a network: its logits (:func:`logit_scores`);
- any other policy: the expert's scores, as a proposal list (the base move itself is
  always a candidate, see :func:`top_candidates`);
- or, by the ``proposer`` knob, any scorer of :data:`BOT_SCORES` (e.g.
  ``heuristic_expert_all_draws``, the expert's values with every pile draw rated) or a
  network's logits.

``scores(env_state) -> float32[96]`` is higher-is-better; only the order matters.
"""

import dataclasses

import jax
import jax.numpy as jnp
from jax.tree_util import Partial

from lost_cities.bots.context import round_and_match
from lost_cities.bots.expert import EXPERT, LEAD_SHIFT_PER_ROUND, TURNS_FOR_FULL_HAND
from lost_cities.bots.heuristic import BALANCED, CAUTIOUS, action_values
from lost_cities.game.cards import N_ACTIONS, N_CARDS
from lost_cities.game.engine import legal_action_mask
from lost_cities.models import network_logits


def expert_scores(state, style=EXPERT):
    """float32[96]: ``heuristic_expert``'s action values (see lost_cities/bots/expert.py)."""
    round_state, round_idx, lead = round_and_match(state)
    deck_left = N_CARDS - round_state.deck_ptr.astype(jnp.float32)
    hand_weight = jnp.clip(jnp.ceil(deck_left / 2.0) / TURNS_FOR_FULL_HAND, 0.2, 1.0)
    per_point = jnp.sum(jnp.where(jnp.arange(3) == round_idx, LEAD_SHIFT_PER_ROUND, 0.0))
    open_shift = per_point * jnp.clip(lead, -60.0, 60.0)
    return action_values(round_state, style, open_shift=open_shift, hand_weight=hand_weight)


# The expert without its rule that a pile draw must extend an expedition: it rates every
# pile draw (as the balanced player does), so a search can weigh draws the expert never
# makes (taking a card the opponent wants, drawing from a pile to shift the deck clock).
EXPERT_ALL_DRAWS = dataclasses.replace(EXPERT, extend_draws_only=False)


def expert_all_draws_scores(state):
    return expert_scores(state, EXPERT_ALL_DRAWS)


def style_scores(style):
    """``scores(state)`` of a plain heuristic style (the style is static, not a pytree leaf)."""

    def scores(state):
        round_state, _, _ = round_and_match(state)
        return action_values(round_state, style)

    return scores


BOT_SCORES = {
    "heuristic_expert": Partial(expert_scores),
    "heuristic_expert_all_draws": Partial(expert_all_draws_scores),
    "heuristic_balanced": Partial(style_scores(BALANCED)),
    "heuristic_cautious": Partial(style_scores(CAUTIOUS)),
}


def _logits(logits, params, state):
    return logits(params, state, state.to_move)


def logit_scores(agent):
    """``scores(env_state)`` of a checkpoint ``agent``: its masked logits (the params are traced leaves)."""
    return Partial(_logits, Partial(network_logits(agent.env, agent.network)), agent.params)


def top_candidates(scores, legal, base_action, k):
    """``(actions int32[k], valid bool[k])``: the base move first, then the best other legal
    actions by ``scores``; ``valid`` is false past the last legal action."""
    ids = jnp.arange(N_ACTIONS)
    rest = jnp.where(legal & (ids != base_action), scores, -jnp.inf)
    rest = jnp.where(jnp.isneginf(rest) & legal & (ids != base_action), -1e30, rest)  # legal, unrated
    top_values, top_ids = jax.lax.top_k(rest, k - 1)
    actions = jnp.concatenate([jnp.asarray(base_action, jnp.int32)[None], top_ids.astype(jnp.int32)])
    valid = jnp.concatenate([jnp.ones((1,), bool), ~jnp.isneginf(top_values)])
    return actions, valid


def legal_mask_of(state):
    round_state, _, _ = round_and_match(state)
    return legal_action_mask(round_state)
