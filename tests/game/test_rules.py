"""One test per rule of a round (docs/rules.md, docs/encodings.md, docs/api.md), on hand-built deck orders.

Positions are reached by stepping the engine from a deck order that puts chosen cards
in chosen hands and deck positions; expected values are worked out by hand from the
rules, never taken from the code under test.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hand_built import (
    DECK,
    DISCARD,
    PLAY,
    action_for,
    deal,
    discard_from_deck,
    hs,
    is_legal,
    jit_mask,
    jit_step,
    nth_state,
    num,
    pile,
    play_moves,
    same_state,
)
from reference_engine import build_deck_order, make_action

from lost_cities import MAX_STEPS, N_ACTIONS, board_score, reset_from_order, score, step

jit_board = jax.jit(board_score)
all_actions = jax.jit(jax.vmap(step, in_axes=(None, 0)))


# --- dealing ---------------------------------------------------------------------


@pytest.mark.parametrize("first_player", [0, 1])
def test_deal_gives_cards_0_to_7_to_seat_0_and_8_to_15_to_seat_1_sorted(first_player):
    order = np.random.default_rng(3).permutation(60)
    state = reset_from_order(jnp.asarray(order), first_player)
    assert np.asarray(state.hands[0]).tolist() == sorted(order[:8].tolist())
    assert np.asarray(state.hands[1]).tolist() == sorted(order[8:16].tolist())
    assert int(state.to_move) == first_player
    assert int(state.plies) == 0 and not bool(state.done)
    # The deck is drawn from index 16 on, in order.
    for expected in order[16:19]:
        mover = int(state.to_move)
        state, _, _ = discard_from_deck(state)
        assert int(expected) in np.asarray(state.hands[mover]).tolist()


def test_hands_stay_sorted_after_draws():
    state = deal(
        [num(4, 10), *[num(0, r) for r in range(2, 9)]],
        [num(1, r) for r in range(2, 10)],
        draws=[hs(0), hs(4, 2)],
    )
    state = play_moves(state, [(num(4, 10), DISCARD, DECK), (num(1, 2), DISCARD, pile(4))])
    hands = np.asarray(state.hands)
    assert hands[0].tolist() == sorted([hs(0), *[num(0, r) for r in range(2, 9)]])
    assert hands[1].tolist() == sorted([num(4, 10), *[num(1, r) for r in range(3, 10)]])


# --- placement rules -------------------------------------------------------------


def test_numbers_on_an_expedition_must_strictly_increase():
    hand0 = [num(0, 5), num(0, 4), num(0, 9), num(0, 6), num(1, 2), num(1, 3), num(1, 4), num(1, 5)]
    hand1 = [num(2, r) for r in range(2, 10)]
    state = deal(hand0, hand1)
    state = play_moves(state, [(num(0, 5), PLAY, DECK), (num(2, 2), DISCARD, DECK)])
    assert not is_legal(state, num(0, 4), PLAY, DECK)  # lower than the 5
    assert is_legal(state, num(0, 6), PLAY, DECK)
    state = play_moves(state, [(num(0, 9), PLAY, DECK), (num(2, 3), DISCARD, DECK)])  # skipping is fine
    assert not is_legal(state, num(0, 6), PLAY, DECK)  # lower than the 9
    assert is_legal(state, num(0, 6), DISCARD, DECK)  # discarding is always allowed
    assert is_legal(state, num(1, 2), PLAY, DECK)  # other colours are separate expeditions


def test_handshakes_only_before_numbers_and_several_allowed():
    hand0 = [hs(0, 0), hs(0, 1), hs(0, 2), num(0, 3), hs(1, 0), num(1, 2), num(1, 3), num(1, 4)]
    hand1 = [num(2, r) for r in range(2, 10)]
    state = deal(hand0, hand1)
    state = play_moves(
        state,
        [
            (hs(0, 0), PLAY, DECK),
            (num(2, 2), DISCARD, DECK),
            (hs(0, 1), PLAY, DECK),
            (num(2, 3), DISCARD, DECK),
        ],
    )
    assert is_legal(state, hs(0, 2), PLAY, DECK)  # a third handshake, still no number
    state = play_moves(state, [(num(0, 3), PLAY, DECK), (num(2, 4), DISCARD, DECK)])
    assert not is_legal(state, hs(0, 2), PLAY, DECK)  # a number is down now
    assert is_legal(state, hs(1, 0), PLAY, DECK)  # colour 1 holds no number yet
    state = play_moves(state, [(num(1, 2), PLAY, DECK), (num(2, 5), DISCARD, DECK)])
    assert not is_legal(state, hs(1, 0), PLAY, DECK)


# --- drawing rules ---------------------------------------------------------------


def test_drawing_from_an_empty_pile_is_illegal():
    state = deal([num(0, r) for r in range(2, 10)], [num(1, r) for r in range(2, 10)])
    mask = np.asarray(jit_mask(state)).reshape(8, 2, 6)
    assert not mask[:, :, 1:].any()  # no pile holds a card yet
    assert mask[:, DISCARD, DECK].all()
    state = play_moves(state, [(num(0, 2), DISCARD, DECK)])  # pile 0 now holds the 2
    mask = np.asarray(jit_mask(state)).reshape(8, 2, 6)
    assert mask[:, DISCARD, pile(0)].all() and not mask[:, :, pile(1) :].any()


def test_no_redraw_of_the_card_just_discarded():
    hand0 = [num(0, 2), num(0, 3), num(0, 4), num(1, 2), num(1, 3), num(1, 4), num(1, 5), num(1, 6)]
    hand1 = [num(2, r) for r in range(2, 10)]
    state = deal(hand0, hand1)
    # Seat 0 discards a colour-0 card; seat 1 passes; now pile 0 holds one card.
    state = play_moves(state, [(num(0, 2), DISCARD, DECK), (num(2, 2), DISCARD, DECK)])
    assert not is_legal(state, num(0, 3), DISCARD, pile(0))  # would take back the 3 just discarded
    assert is_legal(state, num(0, 3), PLAY, pile(0))  # playing it: the pile's top is the older 2
    assert is_legal(state, num(1, 2), DISCARD, pile(0))  # another colour's discard
    assert is_legal(state, num(1, 2), DISCARD, pile(2))
    before = state
    state, reward, _ = jit_step(state, action_for(state, num(0, 3), DISCARD, pile(0)))
    assert same_state(state, before) and not np.asarray(reward).any()


def test_drawing_from_a_pile_takes_its_top():
    hand0 = [num(0, 2), num(0, 3), num(0, 4), num(0, 5), num(0, 6), num(0, 7), num(0, 8), num(0, 9)]
    hand1 = [num(1, r) for r in range(2, 10)]
    state = deal(hand0, hand1)
    state = play_moves(
        state, [(num(0, 2), DISCARD, DECK), (num(1, 2), DISCARD, DECK), (num(0, 3), DISCARD, DECK)]
    )
    state = play_moves(state, [(num(1, 3), DISCARD, pile(0))])
    assert num(0, 3) in np.asarray(state.hands[1]).tolist()
    assert num(0, 2) not in np.asarray(state.hands[1]).tolist()


# --- the end of the round ----------------------------------------------------------


def test_round_ends_on_the_last_deck_card_with_the_reward_only_then():
    order = build_deck_order(
        [num(0, 10), *[num(1, r) for r in range(2, 9)]], [num(2, r) for r in range(2, 10)]
    )
    state = reset_from_order(jnp.asarray(order), 1)
    state = play_moves(state, [(num(2, 2), DISCARD, DECK), (num(0, 10), PLAY, DECK)])  # seat 0: -10
    for ply in range(3, 45):
        mover = int(state.to_move)
        state, reward, done = discard_from_deck(state)
        assert int(state.plies) == ply
        if ply < 44:
            assert not bool(done) and not np.asarray(reward).any(), (
                f"reward or end before the last draw (ply {ply})"
            )
    assert bool(done) and bool(state.done)
    assert np.asarray(reward).tolist() == [-10.0, 10.0]
    assert reward.dtype == jnp.float32
    assert int(state.to_move) == 1 - mover  # to_move advances on the ending transition
    assert order[59] in np.asarray(state.hands[mover]).tolist()  # the last card stays in hand
    assert int(state.deck_ptr) == 60
    assert_dealt_dtypes(state)


def _stalled_to_max_steps():
    """Four plays, then both seats discard and draw from a pile until ply 400.

    Seat 0 plays 5 and 7 of colour 0: (12 - 20) = -8. Seat 1 plays a handshake and the
    10 of colour 1: (10 - 20) * 2 = -20.
    """
    hand0 = [num(0, 5), num(0, 7), num(3, 2), num(3, 3), num(3, 4), num(3, 5), num(3, 6), num(3, 7)]
    hand1 = [hs(1, 0), num(1, 10), num(4, 2), num(4, 3), num(4, 4), num(4, 5), num(4, 6), num(4, 7)]
    state = deal(hand0, hand1)
    state = play_moves(
        state,
        [
            (num(0, 5), PLAY, DECK),
            (hs(1, 0), PLAY, DECK),
            (num(0, 7), PLAY, DECK),
            (num(1, 10), PLAY, DECK),
            (num(3, 2), DISCARD, DECK),
            (num(4, 2), DISCARD, DECK),
        ],
    )
    pile_draw_discard = np.zeros(N_ACTIONS, bool)
    pile_draw_discard[[make_action(s, DISCARD, d) for s in range(8) for d in range(1, 6)]] = True
    rewards = []
    while int(state.plies) < MAX_STEPS:
        assert not bool(state.done), f"ended early at ply {int(state.plies)}"
        choices = np.flatnonzero(np.asarray(jit_mask(state)) & pile_draw_discard)
        assert choices.size, "no discard with a pile draw left"
        state, reward, done = jit_step(state, int(choices[0]))
        rewards.append(np.asarray(reward))
    return state, rewards, bool(done)


def test_forced_end_at_400_plies_is_scored_like_a_natural_end():
    state, rewards, done = _stalled_to_max_steps()
    assert done and bool(state.done) and int(state.plies) == MAX_STEPS
    assert int(state.deck_ptr) == 16 + 6  # only the first six plies drew from the deck
    assert not np.any(rewards[:-1]), "reward before the forced end"
    assert rewards[-1].tolist() == [12.0, -12.0]  # (-8) - (-20)
    assert np.asarray(jit_board(state)).tolist() == [-8.0, -20.0]
    assert int(state.to_move) == MAX_STEPS % 2  # seat 0 started; advanced past the last ply
    assert not np.asarray(jit_mask(state)).any()
    assert_dealt_dtypes(state)


# --- scoring -----------------------------------------------------------------------


def test_scoring_with_multiplier_bonus_and_empty_expeditions():
    colour0 = [hs(0, 0), hs(0, 1), hs(0, 2), num(0, 2), num(0, 3), num(0, 4), num(0, 5), num(0, 6)]
    hand1 = [hs(1, 0), hs(1, 1), num(1, 10), num(2, 9), num(2, 10), num(3, 2), num(3, 3), hs(3, 0)]
    state = deal(colour0, hand1)
    assert np.asarray(jit_board(state)).tolist() == [0.0, 0.0]  # empty expeditions score 0, not -20
    seat1 = [
        (hs(1, 0), PLAY, DECK),
        (hs(1, 1), PLAY, DECK),
        (num(1, 10), PLAY, DECK),
        (num(2, 9), PLAY, DECK),
        (num(2, 10), PLAY, DECK),
        (num(3, 2), DISCARD, DECK),
        (num(3, 3), DISCARD, DECK),
    ]
    for i in range(7):
        state = play_moves(state, [(colour0[i], PLAY, DECK), seat1[i]])
    # Seat 0: three handshakes and 2..5, 7 cards: (14 - 20) * 4, no bonus yet.
    # Seat 1: two handshakes and the 10 of colour 1: (10 - 20) * 3; 9 and 10 of colour 2: -1.
    assert np.asarray(jit_board(state)).tolist() == [-24.0, -31.0]
    state = play_moves(state, [(colour0[7], PLAY, DECK)])
    # 8 cards counting the handshakes: (20 - 20) * 4 + 20.
    assert np.asarray(jit_board(state)).tolist() == [20.0, -31.0]
    assert np.asarray(score(state)).tolist() == [51.0, -51.0]
    state = play_moves(state, [(hs(3, 0), PLAY, DECK)])  # a lone handshake: (0 - 20) * 2
    assert np.asarray(jit_board(state)).tolist() == [20.0, -71.0]


# --- no-ops --------------------------------------------------------------------------


def _mid_game_state():
    hand0 = [num(0, 5), num(0, 4), hs(1, 0), num(1, 3), num(2, 2), num(3, 3), num(4, 4), num(4, 6)]
    hand1 = [num(2, r) for r in range(3, 11)]
    state = deal(hand0, hand1)
    return play_moves(state, [(num(0, 5), PLAY, DECK), (num(2, 3), DISCARD, DECK)])


def test_illegal_actions_are_exact_no_ops():
    state = _mid_game_state()
    mask = np.asarray(jit_mask(state))
    assert 0 < mask.sum() < N_ACTIONS
    illegal = np.concatenate([np.flatnonzero(~mask), [-1, N_ACTIONS, 1_000]]).astype(np.int32)
    after, rewards, done = all_actions(state, jnp.asarray(illegal))
    for i in range(len(illegal)):
        assert same_state(nth_state(after, i), state), f"action {illegal[i]}"
    assert not np.asarray(rewards).any() and not np.asarray(done).any()


def test_actions_after_the_end_are_exact_no_ops():
    state, _, _ = _stalled_to_max_steps()
    after, rewards, done = all_actions(state, jnp.arange(-1, N_ACTIONS + 1, dtype=jnp.int32))
    for i in range(N_ACTIONS + 2):
        assert same_state(nth_state(after, i), state), f"action {i - 1}"
    assert not np.asarray(rewards).any()
    assert np.asarray(done).all()


# --- types -------------------------------------------------------------------------


def assert_dealt_dtypes(state):
    """Every field keeps the dtype and shape it was dealt with (a silent int8 -> int32
    promotion in ``step`` would show here)."""
    dealt = reset_from_order(jnp.arange(60, dtype=jnp.int32), 0)
    for name in dealt.__dataclass_fields__:
        want, got = getattr(dealt, name), getattr(state, name)
        assert got.dtype == want.dtype, f"{name}: dealt as {want.dtype}, now {got.dtype}"
        assert got.shape == want.shape, f"{name}: dealt as {want.shape}, now {got.shape}"
    assert state.to_move.dtype == jnp.int32 and state.plies.dtype == jnp.int32
    assert state.done.dtype == jnp.bool_


@pytest.mark.parametrize("jitted", [True, False])
def test_step_preserves_every_field_dtype(jitted):
    step_fn = jit_step if jitted else step
    state = deal([num(0, r) for r in range(2, 10)], [num(1, r) for r in range(2, 10)])
    assert_dealt_dtypes(state)
    for card, place_type, draw_source in [
        (num(0, 2), PLAY, DECK),
        (num(1, 2), DISCARD, DECK),
        (num(0, 3), DISCARD, pile(1)),  # a pile draw
        (num(0, 2), PLAY, DECK),  # seat 1 does not hold it: illegal, a no-op
    ]:
        hand = np.asarray(state.hands[int(state.to_move)]).tolist()
        action = make_action(hand.index(card), place_type, draw_source) if card in hand else N_ACTIONS
        state, reward, done = step_fn(state, action)
        assert_dealt_dtypes(state)
        assert reward.dtype == jnp.float32 and reward.shape == (2,)
        assert done.dtype == jnp.bool_ and done.shape == ()
    assert int(state.plies) == 3
