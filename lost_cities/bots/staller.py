"""``staller``: the stalling test opponent. It places like ``heuristic_balanced`` but draws
from a discard pile whenever it legally can (the best pile top by the balanced scoring),
so against a player who never closes the round it runs the round to ``MAX_STEPS``."""

import dataclasses

from lost_cities.bots.heuristic import BALANCED, heuristic_policy

ALWAYS_FROM_A_PILE = -1000.0  # a pile draw outweighs any placement difference

STALLER = dataclasses.replace(BALANCED, pile_draw_cost=ALWAYS_FROM_A_PILE)
staller = heuristic_policy(STALLER)
