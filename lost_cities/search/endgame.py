"""A search with other knobs for the round's end game (``search.endgame``).

Once at most ``deck_left`` cards are left in the deck, the unseen cards are few (the
opponent's 8 and the deck's rest) and a rollout is a few plies long, so a search there can
afford many more candidates and worlds than one at the round's start: on the page's search net,
24 candidates and 64 worlds with at most 8 cards left realize about three times what 4 x 16
do there (experiments/search-vs-net/).

:class:`EndgamePolicy` holds the two searches. One game at a time it asks ``lax.cond``
which one decides (only that one runs). Under ``vmap`` a ``cond`` on a per-game predicate
computes both branches for every game, and the end game's wide search on a position far
from the round's end costs many full-length rollouts; so :meth:`EndgamePolicy.batched`
decides per batch instead: a batch wholly in one phase runs that phase's search alone, a
mixed batch both. The duplicate evaluation gathers its movers by the deck pointer
(``evaluation.duplicate.mover_actions``), so nearly every batch it computes is in one phase.
"""

from collections.abc import Callable

import jax
import jax.numpy as jnp
from flax import struct

from lost_cities.game.cards import N_CARDS
from lost_cities.game.views import current_round


@struct.dataclass
class EndgamePolicy:
    """``policy(env_state, rng) -> action``: ``endgame`` decides once at most ``deck_left``
    cards are left in the round's deck, ``opening`` before (both policies of one game)."""

    opening: Callable
    endgame: Callable
    deck_left: int = struct.field(pytree_node=False)

    def in_endgame(self, env_state):
        """Whether ``endgame`` decides at ``env_state`` (public: the deck's size)."""
        return N_CARDS - current_round(env_state).deck_ptr.astype(jnp.int32) <= self.deck_left

    def __call__(self, env_state, rng):
        return jax.lax.cond(self.in_endgame(env_state), self.endgame, self.opening, env_state, rng)

    def batched(self, env_states, keys, need):
        """int32[B]: the action of each of a batch of games (leading axis) where ``need``
        holds, each as ``self(state, key)`` would give it; a phase's search runs only when a
        game that needs an action is in that phase."""
        late = jax.vmap(self.in_endgame)(env_states)

        def opening():
            return jax.vmap(self.opening)(env_states, keys).astype(jnp.int32)

        def endgame():
            return jax.vmap(self.endgame)(env_states, keys).astype(jnp.int32)

        def mixed():
            return jnp.where(late, endgame(), opening())

        def not_all_late():
            return jax.lax.cond(jnp.all(~late | ~need), opening, mixed)

        return jax.lax.cond(jnp.all(late | ~need), endgame, not_all_late)
