"""Inference from the opponent's moves (lost_cities/search/inference.py): a move undone
exactly, and worlds kept because they explain the opponent's latest moves."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import EXPERT, PUBLIC_ROUND_FIELDS, _take

from lost_cities.game.engine import LOC_HAND, LOC_KNOWN
from lost_cities.game.match import match_legal_action_mask, match_reset, match_step
from lost_cities.game.sampling import uniform_legal_action

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("inference")


def test_the_first_moves_of_a_round_are_undone_exactly():
    """``previous_decision`` on the first two moves of a dealt round, a deck draw and then a
    pile draw of the card just discarded: each rebuilds the state before it, every field,
    the move history included (so the two rewinds chain back to the deal)."""
    from lost_cities.game.engine import legal_action_mask, reset_from_order, step
    from lost_cities.search.inference import previous_decision

    order = np.random.default_rng(11).permutation(60).astype(np.int32)
    deal = reset_from_order(order, 0)
    step, undo = jax.jit(step), jax.jit(previous_decision)
    first = step(deal, 6)[0]  # seat 0 discards its slot 0 card and draws the deck's top, order[16]
    colour = int(deal.hands[0][0]) // 12
    slot = next(i for i, card in enumerate(np.asarray(deal.hands[1]).tolist()) if card // 12 != colour)
    take = slot * 12 + 6 + 1 + colour  # seat 1 discards another colour and takes that card
    assert bool(legal_action_mask(first)[take])
    second = step(first, take)[0]
    assert int(second.loc[int(deal.hands[0][0])]) == LOC_KNOWN + 1  # now known to be seat 1's
    for after, before, deck_card in ((first, deal, int(order[16])), (second, first, 0)):
        rebuilt = undo(after, deck_card)
        for field in before.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(rebuilt, field), getattr(before, field), err_msg=field)


@pytest.fixture(scope="module")
def expert_plies():
    """``(before, action, by_expert, after)`` of every move of 8 matches that did not end a
    round (so ``after`` holds it as its round's last move): heuristic_expert's moves, and a
    third uniform random ones (which draw from the discard piles, as the expert rarely does)."""

    def one_ply(states, key):
        move_key, coin_key = jax.random.split(key)
        masks = jax.vmap(match_legal_action_mask)(states)
        random_moves = jax.vmap(uniform_legal_action)(jax.random.split(move_key, 8), masks)
        by_expert = jax.random.bernoulli(coin_key, 2 / 3, (8,))
        moves = jnp.where(by_expert, jax.vmap(EXPERT)(states, jax.random.split(key, 8)), random_moves)
        after, _, _ = jax.vmap(match_step)(states, moves)
        return after, (states, moves, by_expert, after)

    states = jax.vmap(match_reset)(jax.random.split(jax.random.PRNGKey(3), 8))
    _, record = jax.jit(lambda s: jax.lax.scan(one_ply, s, jax.random.split(jax.random.PRNGKey(4), 130)))(
        states
    )
    before, moves, by_expert, after = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), record)
    same_round = (np.asarray(after.round_idx) == np.asarray(before.round_idx)) & ~np.asarray(after.round.done)
    keep = np.flatnonzero(same_round & ~np.asarray(before.round.done))
    return _take(before, keep), np.asarray(moves)[keep], np.asarray(by_expert)[keep], _take(after, keep)


@pytest.mark.slow
def test_the_rebuilt_decision_is_the_state_the_move_was_made_in(expert_plies):
    """``previous_decision`` undoes a move exactly, given the card drawn from the deck (in
    a world it is one of the opponent's unknown cards): every field, the move history one
    move shorter (so rewinds chain), and whether the placed card was known to the other
    seat, except when the pile draw that made it known is older than the history keeps."""
    from lost_cities.search.inference import previous_decision

    before, moves, by_expert, after = expert_plies
    pile_draws = (np.asarray(after.round.recent_drawn[:, 0]) >= 0).sum()
    assert len(moves) > 500 and pile_draws >= 50
    deck_card = jnp.argmax(before.round.loc == before.round.deck_ptr[:, None], axis=1)
    rebuilt = jax.jit(jax.vmap(previous_decision))(after.round, deck_card)
    mover = np.asarray(before.round.to_move)
    card = np.asarray(after.round.recent_cards[:, 0])
    rows = np.arange(len(moves))
    was_known = np.asarray(before.round.loc)[rows, card] == LOC_KNOWN + mover
    in_window = (np.asarray(after.round.recent_drawn)[:, 2::2] == card[:, None]).any(axis=1)
    forgotten = was_known & ~in_window
    assert (was_known & in_window).sum() >= 50  # known cards placed again: their status is rebuilt
    exact = np.asarray(rebuilt.loc)[~forgotten]
    np.testing.assert_array_equal(exact, np.asarray(before.round.loc)[~forgotten])
    loc = np.asarray(rebuilt.loc)[forgotten]
    np.testing.assert_array_equal(loc[np.arange(len(loc)), card[forgotten]], LOC_HAND + mover[forgotten])
    for field in ("hands", "to_move", *PUBLIC_ROUND_FIELDS):
        np.testing.assert_array_equal(getattr(rebuilt, field), getattr(before.round, field), err_msg=field)
    for field in ("recent_actions", "recent_cards", "recent_drawn"):
        np.testing.assert_array_equal(getattr(rebuilt, field)[:, :-1], getattr(before.round, field)[:, :-1])
    replay = jax.jit(jax.vmap(EXPERT))(
        before.replace(round=rebuilt), jax.random.split(jax.random.PRNGKey(0), len(moves))
    )
    np.testing.assert_array_equal(replay[by_expert], moves[by_expert])  # the expert's moves: made again there


@pytest.fixture(scope="module")
def expert_positions():
    """Decisions of 16 expert-vs-expert matches, at least 9 plies into a round."""
    games = 16

    def one_ply(states, key):
        moves = jax.vmap(EXPERT)(states, jax.random.split(key, games))
        return jax.vmap(match_step)(states, moves)[0], states

    states = jax.vmap(match_reset)(jax.random.split(jax.random.PRNGKey(13), games))
    _, record = jax.jit(lambda s: jax.lax.scan(one_ply, s, jax.random.split(jax.random.PRNGKey(14), 120)))(
        states
    )
    flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), record)
    keep = np.flatnonzero(~np.asarray(flat.round.done) & (np.asarray(flat.round.plies) >= 9))
    return _take(flat, keep[::7])


@pytest.mark.parametrize("moves", [1, 4])
@pytest.mark.slow
def test_worlds_kept_by_inference_explain_the_opponents_moves_more_often(expert_positions, moves):
    """Against the expert, with the expert as the model: the true world explains more of the
    opponent's latest moves than a uniform world does (the evidence is real), and the worlds
    kept from a pool of 4x explain more of them than uniform ones."""
    from lost_cities.search.inference import explained_moves, sample_worlds

    def explained(world, key):
        return explained_moves(world, EXPERT, key, moves)

    def rate(state, key, pool):
        worlds = sample_worlds(key, state, 8, pool, EXPERT, moves)
        keys = jax.random.split(jax.random.fold_in(key, 1), 8)
        return jnp.mean(jax.vmap(explained)(worlds, keys)) / moves

    states = expert_positions
    keys = jax.random.split(jax.random.PRNGKey(5), len(states.round_idx))
    truth = np.asarray(jax.jit(jax.vmap(explained))(states, keys)) / moves
    uniform = np.asarray(jax.jit(jax.vmap(lambda s, k: rate(s, k, 1)))(states, keys))
    kept = np.asarray(jax.jit(jax.vmap(lambda s, k: rate(s, k, 4)))(states, keys))
    assert len(keys) >= 100 and uniform.mean() < 0.8
    assert truth.mean() > uniform.mean() + 0.1 and kept.mean() > uniform.mean() + 0.1
