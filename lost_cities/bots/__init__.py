"""Scripted opponents: ``make(name)`` returns ``policy(state, rng) -> int32 action``.

Every policy acts for the seat to move of a round ``State`` or a ``MatchState``, picks a
legal action by construction (while the game runs), and is pure JAX (jit/vmap-able).
The strength ladder they form is measured in experiments/bot-ladder/.
"""

from lost_cities.bots.discard_only import discard_only
from lost_cities.bots.expert import heuristic_expert
from lost_cities.bots.heuristic import BALANCED, CAUTIOUS, Style, action_values, heuristic_policy
from lost_cities.bots.random_policy import random_policy
from lost_cities.bots.staller import staller

BOTS = {
    "random": random_policy,
    "discard_only": discard_only,
    "heuristic_balanced": heuristic_policy(BALANCED),
    "heuristic_cautious": heuristic_policy(CAUTIOUS),
    "heuristic_expert": heuristic_expert,
    "staller": staller,
}


def make(name: str):
    """The scripted policy called ``name`` (see ``BOTS`` for the names)."""
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; choose one of {sorted(BOTS)}")
    return BOTS[name]


__all__ = ["BOTS", "Style", "action_values", "make"]
