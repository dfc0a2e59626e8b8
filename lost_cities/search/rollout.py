"""Scoring candidate actions by rollouts in sampled worlds, in match terms.

Every (world, candidate) pair is one *lane*: the candidate is applied in the world, then
the base policy plays both seats until the round ends (or ``depth`` plies have been
played, when the leaf value takes over), or, given an opponent model, the base policy
the searching seat and the model the other. All candidates of a world share that world
and the same policy keys (common random numbers), so their differences are paired.

Lanes step the round engine only (``engine.step``); the match around the round (carry,
round index, starter, coins) is fixed during a rollout and re-attached for the base
policy, which may read it (the expert shifts its opening bars by the carried lead; a
network observes v2). A rollout never crosses into the next round: the round's end is
scored in match terms instead (:func:`match_value`).
"""

import jax
import jax.numpy as jnp

from lost_cities.game.engine import board_score, seat_view, step
from lost_cities.game.match import N_ROUNDS
from lost_cities.game.views import LAST_ROUND, carry, current_round, round_index, with_round


def _round_scale(env_state, scales):
    round_idx = round_index(env_state)
    return jnp.sum(jnp.where(jnp.arange(N_ROUNDS) == round_idx, jnp.asarray(scales, jnp.float32), 0.0))


def point_utility(env_state, scales):
    """The utility of one point near a level score: ``1 / scale``, or 1 for raw points."""
    scale = _round_scale(env_state, scales)
    return jnp.where(scale > 0, 1.0 / jnp.where(scale > 0, scale, 1.0), 1.0)


def match_points(env_state, round_state, player, start_value):
    """The points of :func:`match_value` before the utility."""
    opponent = 1 - player
    boards = board_score(round_state)
    board_margin = seat_view(boards, player) - seat_view(boards, opponent)
    carried = carry(env_state)
    margin = seat_view(carried, player) - seat_view(carried, opponent) + board_margin
    last = round_index(env_state) >= LAST_ROUND
    starts_next = jnp.where(round_state.done & ~last, jnp.sign(margin), 0.0)
    return margin + start_value * starts_next


def utility(env_state, points, scales):
    """``tanh(points / scale)`` with the scale of ``env_state``'s round, or the points (scale 0)."""
    scale = _round_scale(env_state, scales)
    return jnp.where(scale > 0, jnp.tanh(points / jnp.where(scale > 0, scale, 1.0)), points)


def match_value(env_state, round_state, player, start_value, scales):
    """The value for ``player`` of a match whose current round stands at ``round_state``.

    - points: the match margin if the round ended now (carry margin plus this round's
      board difference; a lone round: the board difference);
    - the next round's start: when a round other than the last has ended, ``start_value``
      points for the seat that will start the next round (the one ahead; on a tie the
      unseen coin decides, worth 0 in expectation);
    - ``scales[round_idx]`` (if > 0) turns the points into ``tanh(points / scale)``, a
      win-probability-like utility: a small scale in the last round plays for the win,
      not the margin.
    """
    return utility(env_state, match_points(env_state, round_state, player, start_value), scales)


def rollout_values(
    worlds, actions, policy, keys, depth, start_value, scales, leaf=None, opponent=None, next_move=None
):
    """float32[W, K]: for the seat to move, the value of candidate ``actions[k]`` in world ``w``.

    ``worlds`` is a batch of W env states (leading axis), ``actions`` int32[K], ``keys``
    W policy keys (shared by the K candidates of a world). ``depth`` caps the plies
    played after the candidate (``None``: to the end of the round); a lane cut there is
    valued by ``leaf(env_state, player) -> points`` (``None``: the board as it stands).
    ``opponent`` (a policy) plays the other seat's moves; ``None``: ``policy`` plays both.
    Every lane starts with the other seat to move and the seats alternate ply by ply, so with
    an ``opponent`` the loop plays the plies in pairs (the other seat's, then the searching
    seat's) and computes only the policy of the seat to move; a ``depth`` cut between the two
    plies of a pair leaves the second unplayed.

    ``next_move`` (a policy, e.g. a search: a two-step search) makes the searching seat's
    next decision, the one after the other seat's reply; it and the reply are played before
    the loop, so that it runs once per lane rather than every ply. ``None``: the rollout
    policy makes it; with the same keys the values are then the same either way.
    """
    n_worlds = keys.shape[0]
    n_cands = actions.shape[0]
    player = current_round(worlds).to_move[0]
    lane_worlds = jax.tree.map(lambda x: jnp.repeat(x, n_cands, axis=0), worlds)  # [W*K]
    lane_keys = jnp.repeat(keys, n_cands, axis=0)
    lane_actions = jnp.tile(actions, n_worlds)
    rounds, _, _ = jax.vmap(step)(current_round(lane_worlds), lane_actions)

    def played_by(seat_policy):
        def play(round_state, world, key, t):
            return seat_policy(with_round(world, round_state), jax.random.fold_in(key, t))

        return play

    reply, mine = played_by(policy if opponent is None else opponent), played_by(policy)

    def running(carry):
        t, rounds = carry
        live = jnp.any(~rounds.done)
        return live if depth is None else live & (t < depth)

    def advance(carry, play):
        t, rounds = carry
        moves = jax.vmap(play, in_axes=(0, 0, 0, None))(rounds, lane_worlds, lane_keys, t)
        played, _, _ = jax.vmap(step)(rounds, moves)
        if depth is not None:  # the second ply of a pair may lie past the cut
            played = jax.tree.map(lambda new, old: jnp.where(t < depth, new, old), played, rounds)
        return t + 1, played

    def pair(carry):
        return advance(advance(carry, reply), mine)

    def single(carry):  # one policy plays both seats
        return advance(carry, mine)

    carry = (jnp.int32(0), rounds)
    if next_move is not None:  # the reply, then the searching seat's next decision
        carry = advance(advance(carry, reply), played_by(next_move))
    _, rounds = jax.lax.while_loop(running, single if opponent is None else pair, carry)
    points = jax.vmap(match_points, in_axes=(0, 0, None, None))(lane_worlds, rounds, player, start_value)
    if leaf is not None:
        cut = jax.vmap(with_round)(lane_worlds, rounds)
        points = jnp.where(rounds.done, points, jax.vmap(leaf, in_axes=(0, None))(cut, player))
    return jax.vmap(utility, in_axes=(0, 0, None))(lane_worlds, points, scales).reshape(n_worlds, n_cands)
