"""``heuristic_expert``: the balanced scoring, made aware of the deck clock and the match.

- Opens a colour when its projection clears 6 points (a handshake first when it clears
  16), plays ascending, discards as the balanced player does but weighs what a discard
  gives the opponent fully.
- Deck clock: with ``ceil(deck / 2)`` placements left, a live hand card counts only by the
  chance there is still a turn to play it, so late in the round it stops opening and
  spends its turns scoring what it holds.
- Match: in the last round the carried lead moves its opening bars a little (ahead it
  opens less, behind more); a larger shift, or one in round 2, measured weaker.
- Counts more of the unseen higher cards as future support than balanced does (0.4 of
  them on a full deck, shrinking with the deck): it opens and extends earlier.
- Draws from a discard pile only a number that will be the next card of one of its
  started expeditions, so it never stalls a round: whatever the opponent does, the
  round ends at natural length.
"""

import dataclasses

import jax.numpy as jnp

from lost_cities.bots.context import best_legal, round_and_match
from lost_cities.bots.heuristic import BALANCED, action_values
from lost_cities.game.cards import N_CARDS
from lost_cities.game.engine import legal_action_mask

EXPERT = dataclasses.replace(
    BALANCED,
    open_threshold=6.0,
    handshake_threshold=16.0,
    unseen_share=0.4,
    danger_weight=1.0,
    extend_draws_only=True,
)
TURNS_FOR_FULL_HAND = 5.0  # with this many placements left every live card can still be played
LEAD_SHIFT_PER_ROUND = jnp.array([0.0, 0.0, 0.05])  # opening-bar points per carried point


def expert_values(round_state, round_idx, lead):
    """float32[96]: the expert's score of every action for the seat to move.

    ``round_idx`` and ``lead`` (the mover's carried points minus the opponent's) are the
    match context of :func:`lost_cities.bots.context.round_and_match`. The action
    features (lost_cities/networks/features.py) call this on a state rebuilt from an observation.
    """
    deck_left = N_CARDS - round_state.deck_ptr.astype(jnp.float32)
    turns_left = jnp.ceil(deck_left / 2.0)
    hand_weight = jnp.clip(turns_left / TURNS_FOR_FULL_HAND, 0.2, 1.0)
    per_point = jnp.sum(jnp.where(jnp.arange(3) == round_idx, LEAD_SHIFT_PER_ROUND, 0.0))
    open_shift = per_point * jnp.clip(lead, -60.0, 60.0)
    return action_values(round_state, EXPERT, open_shift=open_shift, hand_weight=hand_weight)


def heuristic_expert(state, rng):
    round_state, round_idx, lead = round_and_match(state)
    return best_legal(expert_values(round_state, round_idx, lead), legal_action_mask(round_state))
