"""Observation v1 (docs/encodings.md): channel invariants under random play, the known-opponent-card
channel, and every one of the 34 scalars on hand-built positions."""

from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hand_built import DECK, DISCARD, PLAY, deal, hs, num, pile, play_moves

from lost_cities import OBS_DIM, legal_action_mask, observation, reset_from_order, step

N_CHANNELS = 7
MY_HAND, MY_EXPEDITION, OPPONENT_EXPEDITION, PILE_TOP, PILE_BELOW, OPPONENT_KNOWN, UNKNOWN = range(7)

jit_observation = jax.jit(observation)


def channels(state, player):
    """Each card's one-hot row, shape [60, 7]."""
    return np.asarray(jit_observation(state, player))[: 60 * N_CHANNELS].reshape(60, N_CHANNELS)


def channel_of(state, player, card):
    row = channels(state, player)[card]
    assert sorted(row.tolist()) == [0.0] * 6 + [1.0], f"card {card} is not one-hot: {row}"
    return int(np.argmax(row))


def scalars(state, player):
    return np.asarray(jit_observation(state, player))[60 * N_CHANNELS :]


@jax.jit
def _random_ply(states, keys):
    """One uniformly random legal action per game (a no-op once a game is done)."""
    masks = jax.vmap(legal_action_mask)(states)
    logits = jnp.where(masks, 0.0, -jnp.inf)
    actions = jax.vmap(jax.random.categorical)(keys, jnp.where(masks.any(1, keepdims=True), logits, 0.0))
    states, _, _ = jax.vmap(step)(states, actions)
    both = jax.vmap(jax.vmap(observation, in_axes=(None, 0)), in_axes=(0, None))(states, jnp.arange(2))
    return states, both


@pytest.mark.slow
def test_every_card_is_in_exactly_one_channel_and_both_views_agree():
    n_games = 64
    rng = np.random.default_rng(7)
    orders = np.argsort(rng.random((n_games, 60)), axis=1)
    states = jax.vmap(reset_from_order)(orders, rng.integers(0, 2, n_games))
    key = jax.random.key(0)
    for _ in range(400):
        key, sub = jax.random.split(key)
        states, obs = _random_ply(states, jax.random.split(sub, n_games))
        obs = np.asarray(obs)
        assert obs.shape == (n_games, 2, OBS_DIM)
        one_hot = obs[:, :, : 60 * N_CHANNELS].reshape(n_games, 2, 60, N_CHANNELS)
        assert np.isin(one_hot, (0.0, 1.0)).all()
        missing = np.argwhere(one_hot.sum(axis=3) != 1)
        assert not missing.size, f"(game, player, card) without exactly one channel: {missing[:3].tolist()}"
        mine, theirs = one_hot[:, 0], one_hot[:, 1]
        # What one seat sees of a card must match the other seat's view of it.
        for a, b in ((mine, theirs), (theirs, mine)):
            hidden_from_b = b[..., OPPONENT_KNOWN] + b[..., UNKNOWN]
            assert (a[..., MY_HAND] <= hidden_from_b).all()
            assert (b[..., OPPONENT_KNOWN] <= a[..., MY_HAND]).all()
            np.testing.assert_array_equal(a[..., MY_EXPEDITION], b[..., OPPONENT_EXPEDITION])
            np.testing.assert_array_equal(a[..., PILE_TOP], b[..., PILE_TOP])
            np.testing.assert_array_equal(a[..., PILE_BELOW], b[..., PILE_BELOW])
        if np.asarray(states.done).all():
            break
    assert np.asarray(states.done).all()


def test_known_opponent_card_channel():
    hand0 = [num(2, 10), num(0, 2), num(0, 3), num(0, 4), num(0, 5), num(0, 6), num(0, 7), num(0, 8)]
    hand1 = [num(1, r) for r in range(2, 10)]
    state = deal(hand0, hand1)
    card = num(2, 10)
    state = play_moves(state, [(card, DISCARD, DECK)])
    assert channel_of(state, 0, card) == PILE_TOP and channel_of(state, 1, card) == PILE_TOP
    state = play_moves(state, [(num(1, 2), DISCARD, pile(2))])  # seat 1 takes it from the pile
    assert channel_of(state, 1, card) == MY_HAND
    assert channel_of(state, 0, card) == OPPONENT_KNOWN
    assert scalars(state, 0)[1] == np.float32(7 / 8)  # one opponent card is known
    assert scalars(state, 1)[1] == 1.0  # seat 0 drew only from the deck
    deck_card = int(np.setdiff1d(np.asarray(state.hands[0]), hand0)[0])
    assert channel_of(state, 1, deck_card) == UNKNOWN  # a deck draw stays unknown to the other seat
    state = play_moves(state, [(num(0, 2), PLAY, DECK), (card, PLAY, DECK)])  # it leaves the hand
    assert channel_of(state, 0, card) == OPPONENT_EXPEDITION
    assert channel_of(state, 1, card) == MY_EXPEDITION
    assert scalars(state, 0)[1] == 1.0
    assert not channels(state, 0)[:, OPPONENT_KNOWN].any()


def _expected(fractions):
    return np.array([float(f) for f in fractions], np.float32)


def _assert_scalars(got, expected):
    """Each scalar within one float32 ulp of the exact quotient: XLA compiles a division
    by a constant into a multiplication by the rounded reciprocal."""
    np.testing.assert_array_max_ulp(got, _expected(expected), maxulp=1)


def test_scalars_at_the_deal():
    state = deal([num(0, r) for r in range(2, 10)], [num(1, r) for r in range(2, 10)])
    for player in (0, 1):
        np.testing.assert_array_equal(scalars(state, player), _expected([1, 1, 0] + [0] * 31))


def test_every_scalar_on_a_played_position():
    hand0 = [hs(0, 0), num(0, 4), num(0, 8), num(2, 10), hs(2, 1), num(3, 2), num(1, 5), num(4, 6)]
    hand1 = [hs(1, 0), hs(1, 1), num(1, 3), num(1, 9), num(4, 7), num(4, 9), num(3, 10), num(3, 9)]
    state = deal(hand0, hand1)
    state = play_moves(
        state,
        [
            (hs(0, 0), PLAY, DECK),
            (hs(1, 0), PLAY, DECK),
            (num(0, 4), PLAY, DECK),
            (hs(1, 1), PLAY, DECK),
            (num(0, 8), PLAY, DECK),
            (num(1, 3), PLAY, DECK),
            (num(2, 10), DISCARD, DECK),
            (num(4, 7), DISCARD, pile(2)),  # seat 1 takes the 10 of colour 2: known to seat 0
            (num(1, 5), PLAY, pile(4)),  # seat 0 takes the 7 of colour 4: known to seat 1
            (num(1, 9), PLAY, DECK),
        ],
    )
    F = Fraction
    # Seat 0: colour 0 holds a handshake, 4 and 8; colour 1 the 5.
    seat0 = [F(8, 10), F(5, 10), 0, 0, 0] + [F(1, 3), 0, 0, 0, 0] + [F(3, 12), F(1, 12), 0, 0, 0]
    # Seat 1: colour 1 holds two handshakes, 3 and 9.
    seat1 = [0, F(9, 10), 0, 0, 0] + [0, F(2, 3), 0, 0, 0] + [0, F(4, 12), 0, 0, 0]
    # Boards: seat 0 (12 - 20) * 2 + (5 - 20) = -31; seat 1 (12 - 20) * 3 = -24.
    # Eight deck draws in ten plies leave 36 cards; each seat holds one card the other knows.
    common = [F(36, 44), F(7, 8), F(10, 400)]
    _assert_scalars(scalars(state, 0), common + seat0 + seat1 + [F(-7, 780)])
    _assert_scalars(scalars(state, 1), common + seat1 + seat0 + [F(7, 780)])
    assert channel_of(state, 0, num(2, 10)) == OPPONENT_KNOWN
    assert channel_of(state, 1, num(4, 7)) == OPPONENT_KNOWN
