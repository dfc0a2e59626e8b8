"""The one environment interface everything above the engine uses.

Training, evaluation, search and export see an :class:`Env`: a bundle of pure functions
over the environment's own state pytree. Which game is played (one round, or the
3-round match) is chosen by name in :func:`lost_cities.envs.make`; no code above this
interface branches on it. What the scripted players and the search read of any state
(its current round, the round's index, the carry, the state with a round replaced or its
unseen cards dealt afresh) is :mod:`lost_cities.game.views`, the one place that tells the
two kinds of state apart.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax

EnvState = Any


@dataclass(frozen=True)
class Env:
    """Pure, jit/vmap-able functions of one game.

    - ``init(key)``: a fresh episode (all randomness drawn here).
    - ``init_from_deal(deck_orders int32[3, 60], coins int32[3])``: a fixed deal, as in
      the evaluation deal banks; one-round games use ``deck_orders[0]`` and ``coins[0]``
      as the starting seat.
    - ``step(state, action) -> (state, reward float32[2], done)``: reward is the final
      margin, on the ending transition only; illegal and post-done actions are no-ops.
    - ``observe(state, player)``: the policy observation (``obs_dim`` floats).
    - ``privileged(state, player)``: the critic-only observation (``privileged_dim``).
    - ``legal_mask(state)``: bool[96] of the player to move.
    - ``to_move(state)``, ``done(state)``.
    - ``final_margin(state)``: float32[2], each seat's margin so far in points: the carry
      of the finished rounds plus the current round's board-score difference (one round:
      the board difference). Once done it equals the terminal reward; it never jumps at a
      round change. It is also the shaping potential ``Phi`` of docs/design.md (``reward=shaped``).
    - ``round_state(state)``: the current round :class:`lost_cities.State`, for
      scripted policies and displays.
    - ``rounds``: how many rounds an episode has; ``state_type``: the class of its states.
    """

    name: str
    obs_version: str
    obs_dim: int
    privileged_dim: int
    rounds: int
    state_type: type
    init: Callable[[jax.Array], EnvState]
    init_from_deal: Callable[[jax.Array, jax.Array], EnvState]
    step: Callable[[EnvState, jax.Array], tuple[EnvState, jax.Array, jax.Array]]
    observe: Callable[[EnvState, jax.Array], jax.Array]
    privileged: Callable[[EnvState, jax.Array], jax.Array]
    legal_mask: Callable[[EnvState], jax.Array]
    to_move: Callable[[EnvState], jax.Array]
    done: Callable[[EnvState], jax.Array]
    final_margin: Callable[[EnvState], jax.Array]
    round_state: Callable[[EnvState], Any]
