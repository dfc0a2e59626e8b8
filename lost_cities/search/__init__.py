"""Determinized (PIMC) search on top of given policies (``agent=search:<base>`` is resolved
into them by :mod:`lost_cities.policies`).

- :mod:`~lost_cities.search.determinize`: worlds sampled from the mover's information set;
- :mod:`~lost_cities.search.belief`: a learned belief over the opponent's hand, dealing the worlds;
- :mod:`~lost_cities.search.candidates`: the base policy's top-K moves;
- :mod:`~lost_cities.search.rollout`: base-policy rollouts scored in match terms;
- :mod:`~lost_cities.search.agent`: the policy (the gate against the base move);
- :mod:`~lost_cities.search.config`: the knobs and the presets, the config group ``conf/search``;
- :mod:`~lost_cities.search.inference`, :mod:`~lost_cities.search.endgame`,
  :mod:`~lost_cities.search.leaf`: worlds kept by the opponent's moves, the end game's own
  knobs, a critic as the leaf value.
"""

from lost_cities.search.agent import prior_bonus, search_decision, search_policy, select
from lost_cities.search.candidates import BOT_SCORES, expert_scores, logit_scores, top_candidates
from lost_cities.search.config import SearchConfig, load_preset
from lost_cities.search.determinize import determinize, determinize_round, unseen_cards
from lost_cities.search.rollout import match_value, rollout_values

__all__ = [
    "BOT_SCORES",
    "SearchConfig",
    "determinize",
    "determinize_round",
    "expert_scores",
    "load_preset",
    "logit_scores",
    "match_value",
    "prior_bonus",
    "rollout_values",
    "search_decision",
    "search_policy",
    "select",
    "top_candidates",
    "unseen_cards",
]
