"""``random``: a uniformly random legal action (places and draws anywhere it may).

Sampled from the legal moves' structure (``sampling.random_legal_action``), not from the
96-entry mask, which costs more to build and search than the move itself.
"""

from lost_cities.bots.context import round_and_match
from lost_cities.game.sampling import random_legal_action


def random_policy(state, rng):
    round_state, _, _ = round_and_match(state)
    return random_legal_action(rng, round_state)
