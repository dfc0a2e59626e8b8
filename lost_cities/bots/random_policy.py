"""``random``: a uniformly random legal action (places and draws anywhere it may)."""

from lost_cities.bots.context import round_and_match
from lost_cities.engine import legal_action_mask
from lost_cities.sampling import uniform_legal_action


def random_policy(state, rng):
    round_state, _, _ = round_and_match(state)
    return uniform_legal_action(rng, legal_action_mask(round_state))
