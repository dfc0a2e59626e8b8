"""Scripted bots: always legal (batched, round and match states) and doing what their
docstrings say on positions built by hand."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lost_cities.bots import BOTS, make
from lost_cities.game.cards import N_SLOTS, decode_action, encode_action
from lost_cities.game.engine import (
    LOC_EXPEDITION,
    LOC_HAND,
    LOC_PILE,
    State,
    legal_action_mask,
    reset,
    step,
)
from lost_cities.game.match import match_legal_action_mask, match_reset, match_step
from lost_cities.game.sampling import uniform_legal_action
from lost_cities.obs.v1 import pile_tops

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("bots")

GAMES = 48
PLIES = 240  # enough for three rounds of the mixed driver below


def _drive(init, step_fn, mask_fn, round_of, key):
    """Play GAMES games for PLIES plies (a finished game restarts) with a driver that
    mixes uniform random moves with discard-and-draw-from-deck (so rounds do end),
    recording at every ply each bot's action, the round state and its legal mask."""
    bots = [make(name) for name in BOTS]

    def one_ply(states, ply_key):
        driver_key, coin_key, bot_key, restart_key = jax.random.split(ply_key, 4)
        masks = jax.vmap(mask_fn)(states)
        rounds = jax.vmap(round_of)(states)
        chosen = jnp.stack([jax.vmap(bot)(states, jax.random.split(bot_key, GAMES)) for bot in bots], axis=1)
        random_moves = jax.vmap(uniform_legal_action)(jax.random.split(driver_key, GAMES), masks)
        use_random = jax.random.bernoulli(coin_key, 0.5, (GAMES,))
        move = jnp.where(use_random, random_moves, chosen[:, 1])  # column 1: discard_only
        states, _, done = jax.vmap(step_fn)(states, move)
        fresh = jax.vmap(init)(jax.random.split(restart_key, GAMES))
        states = jax.tree.map(
            lambda new, old: jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old), fresh, states
        )
        return states, (rounds, masks, chosen)

    init_key, play_key = jax.random.split(key)
    states = jax.vmap(init)(jax.random.split(init_key, GAMES))
    _, record = jax.lax.scan(one_ply, states, jax.random.split(play_key, PLIES))
    return jax.tree.map(lambda x: np.asarray(x).reshape(PLIES * GAMES, *x.shape[2:]), record)


@pytest.fixture(scope="module")
def round_record():
    return _drive(reset, step, legal_action_mask, lambda s: s, jax.random.PRNGKey(0))


@pytest.fixture(scope="module")
def match_record():
    return _drive(
        match_reset, match_step, match_legal_action_mask, lambda ms: ms.round, jax.random.PRNGKey(1)
    )


def _live(record):
    _, masks, _ = record
    return masks.any(axis=1)


@pytest.mark.parametrize("record_name", ["round_record", "match_record"])
@pytest.mark.slow
def test_every_bot_is_always_legal(record_name, request):
    record = request.getfixturevalue(record_name)
    _, masks, chosen = record
    live = _live(record)
    assert live.sum() > 5000
    for column, name in enumerate(BOTS):
        legal = np.take_along_axis(masks, chosen[:, column : column + 1], axis=1)[:, 0]
        assert legal[live].all(), f"{name} chose an illegal action in {int((~legal[live]).sum())} positions"


@pytest.mark.slow
def test_match_positions_reach_every_round(match_record):
    """The match drive exercises later rounds: a round restarts (16 cards drawn, no ply
    yet) at least twice per game on average."""
    rounds, _, _ = match_record
    restarts = (rounds.deck_ptr == 16) & (rounds.plies == 0)
    assert restarts.sum() >= 3 * GAMES


def _decoded(actions):
    hand_slot, place_type, draw_source = decode_action(np.asarray(actions))
    return hand_slot, place_type, draw_source


def _mover(rounds, index):
    return int(rounds.to_move[index])


@pytest.mark.slow
def test_discard_only_discards_its_lowest_card_and_draws_from_the_deck(round_record):
    rounds, _, chosen = round_record
    live = _live(round_record)
    hand_slot, place_type, draw_source = _decoded(chosen[:, list(BOTS).index("discard_only")])
    assert (place_type[live] == 1).all() and (draw_source[live] == 0).all()
    hands = np.where(rounds.to_move[:, None] == 0, rounds.hands[:, 0], rounds.hands[:, 1])
    slots = hands.astype(int) % N_SLOTS
    picked = np.take_along_axis(slots, hand_slot[:, None], axis=1)[:, 0]
    assert (picked[live] == slots[live].min(axis=1)).all()


def _pile_top_extends(rounds, i, hand_slot, place_type, draw_source):
    """Plain-Python check that the drawn pile top is the next card of a started expedition."""
    me = _mover(rounds, i)
    colour = draw_source - 1
    top = int(np.asarray(pile_tops(jax.tree.map(lambda x: x[i], rounds)))[colour])
    slot = top % N_SLOTS
    hand = [int(c) for c in rounds.hands[i, me]]
    placed = hand.pop(hand_slot)
    exp_top = int(rounds.exp_top[i, me, colour])
    started = int(rounds.exp_count[i, me, colour]) > 0
    if place_type == 0 and placed // N_SLOTS == colour:
        started = True
        exp_top = max(exp_top, placed % N_SLOTS)
    between = [
        c for c in hand if c // N_SLOTS == colour and exp_top < c % N_SLOTS < slot and c % N_SLOTS >= 3
    ]
    return slot >= 3 and started and slot > exp_top and not between


@pytest.mark.parametrize("record_name", ["round_record", "match_record"])
@pytest.mark.slow
def test_expert_draws_a_discard_only_when_it_extends_an_expedition(record_name, request):
    record = request.getfixturevalue(record_name)
    rounds, _, chosen = record
    live = _live(record)
    hand_slot, place_type, draw_source = _decoded(chosen[:, list(BOTS).index("heuristic_expert")])
    pile_draws = np.flatnonzero(live & (draw_source > 0))
    assert len(pile_draws) >= 30  # the drive offers it useful discards often enough to check the rule
    for i in pile_draws:
        assert _pile_top_extends(rounds, i, int(hand_slot[i]), int(place_type[i]), int(draw_source[i])), i


@pytest.mark.parametrize("record_name", ["round_record", "match_record"])
@pytest.mark.slow
def test_staller_draws_from_a_pile_whenever_it_can(record_name, request):
    record = request.getfixturevalue(record_name)
    _, masks, chosen = record
    live = _live(record)
    action = chosen[:, list(BOTS).index("staller")]
    hand_slot, place_type, draw_source = _decoded(action)
    placement = (hand_slot * 2 + place_type) * 6
    pile_legal = np.stack([masks[np.arange(len(action)), placement + d] for d in range(1, 6)], axis=1)
    could = live & pile_legal.any(axis=1)
    assert could.sum() > 1000
    assert (draw_source[could] > 0).all()


def _card(colour, number):
    """Card id of a number card (2..10) or, with number 0..2, of handshake ``number``."""
    return colour * N_SLOTS + (number + 1 if number >= 2 else number)


def _position(hands, expeditions=(), piles=(), to_move=0):
    """A round State from hand-placed cards; every other card is in the deck.

    ``hands``: two lists of 8 card ids; ``expeditions``: (seat, card) pairs in play order;
    ``piles``: (colour, [cards bottom to top]) pairs.
    """
    loc = np.full(60, -1)
    exp = {name: np.zeros((2, 5), np.int8) for name in ("top", "sum", "handshakes", "count")}
    for seat, hand in enumerate(hands):
        loc[hand] = LOC_HAND + seat
    for seat, card in expeditions:
        colour, slot = divmod(card, N_SLOTS)
        loc[card] = LOC_EXPEDITION + seat
        exp["count"][seat, colour] += 1
        if slot >= 3:
            exp["top"][seat, colour] = slot
            exp["sum"][seat, colour] += slot - 1
        else:
            exp["handshakes"][seat, colour] += 1
    pile_size = np.zeros(5, np.int8)
    for colour, cards in piles:
        loc[cards] = LOC_PILE + np.arange(len(cards))
        pile_size[colour] = len(cards)
    rest = np.flatnonzero(loc < 0)
    deck_ptr = 60 - len(rest)
    loc[rest] = np.arange(deck_ptr, 60)
    return State(
        loc=jnp.asarray(loc, jnp.int8),
        hands=jnp.asarray(np.sort(np.asarray(hands), axis=1), jnp.int8),
        pile_size=jnp.asarray(pile_size),
        exp_top=jnp.asarray(exp["top"]),
        exp_sum=jnp.asarray(exp["sum"]),
        exp_handshakes=jnp.asarray(exp["handshakes"]),
        exp_count=jnp.asarray(exp["count"]),
        deck_ptr=jnp.int8(deck_ptr),
        plies=jnp.int32(0),
        to_move=jnp.int32(to_move),
        done=jnp.bool_(False),
    )


JITTED = {name: jax.jit(make(name)) for name in BOTS}


def _act(name, state):
    action = int(JITTED[name](state, jax.random.PRNGKey(0)))
    assert bool(legal_action_mask(state)[action])
    hand_slot, place_type, draw_source = decode_action(action)
    hand = sorted(int(c) for c in state.hands[int(state.to_move)])
    return hand[hand_slot], int(place_type), int(draw_source)


RED, GREEN, BLUE, WHITE, YELLOW = range(5)
OPPONENT_HAND = [_card(WHITE, n) for n in (2, 3, 4, 5, 6, 7, 8, 9)]


@pytest.mark.slow
def test_cautious_needs_more_support_than_balanced_to_open():
    """Blue 6, 8, 10 and scattered low singles: balanced opens blue with the 6, cautious
    keeps waiting (it discards a single instead)."""
    hand = [
        _card(BLUE, 6),
        _card(BLUE, 8),
        _card(BLUE, 10),
        _card(RED, 2),
        _card(RED, 4),
        _card(GREEN, 3),
        _card(YELLOW, 2),
        _card(YELLOW, 5),
    ]
    state = _position([hand, OPPONENT_HAND])
    assert _act("heuristic_balanced", state)[:2] == (_card(BLUE, 6), 0)
    card, place_type, _ = _act("heuristic_cautious", state)
    assert place_type == 1 and card // N_SLOTS != BLUE


def test_heuristics_play_ascending():
    """Red 4 on the expedition, red 5 and red 8 in hand: the 5 goes first."""
    hand = [
        _card(RED, 5),
        _card(RED, 8),
        _card(GREEN, 2),
        _card(GREEN, 3),
        _card(YELLOW, 2),
        _card(YELLOW, 3),
        _card(BLUE, 2),
        _card(BLUE, 3),
    ]
    state = _position([hand, OPPONENT_HAND], expeditions=[(0, _card(RED, 3)), (0, _card(RED, 4))])
    for name in ("heuristic_balanced", "heuristic_cautious", "heuristic_expert"):
        card, place_type, _ = _act(name, state)
        assert place_type == 1 or card == _card(RED, 5), name
        assert card != _card(RED, 8), name


def test_heuristics_discard_a_dead_card_not_a_gift():
    """Green 3 is dead (green 6 on my expedition); yellow 9 would go straight onto the
    opponent's yellow expedition. Nothing is worth playing: the green 3 goes."""
    hand = [
        _card(GREEN, 3),
        _card(YELLOW, 9),
        _card(RED, 2),
        _card(RED, 10),
        _card(BLUE, 2),
        _card(BLUE, 10),
        _card(WHITE, 10),
        _card(GREEN, 5),
    ]
    opponent = [_card(WHITE, n) for n in (2, 3, 4, 5, 6, 7, 8, 9)]
    state = _position(
        [hand, opponent], expeditions=[(0, _card(GREEN, 6)), (1, _card(YELLOW, 4)), (1, _card(YELLOW, 5))]
    )
    for name in ("heuristic_balanced", "heuristic_cautious", "heuristic_expert"):
        card, place_type, _ = _act(name, state)
        assert card != _card(YELLOW, 9) or place_type == 0, name
        if place_type == 1:
            assert card in (_card(GREEN, 3), _card(GREEN, 5)), name


def test_balanced_takes_a_useful_discard_the_expert_leaves():
    """Red 9 and 10 in hand (not yet worth opening) and red 8 on the red pile: balanced
    draws it to build red up; the expert only draws cards that extend a started
    expedition, so it takes the deck."""
    hand = [_card(RED, 9), _card(RED, 10), _card(GREEN, 2), _card(GREEN, 5),
            _card(BLUE, 3), _card(BLUE, 6), _card(YELLOW, 2), _card(YELLOW, 4)]  # fmt: skip
    state = _position([hand, OPPONENT_HAND], piles=[(RED, [_card(RED, 8)])])
    assert _act("heuristic_balanced", state)[2] == 1 + RED
    assert _act("heuristic_expert", state)[2] == 0


def test_expert_draws_the_next_card_of_its_expedition():
    """Red 4 on its expedition, red 5 on the red pile: that card extends it, so it is drawn."""
    hand = [
        _card(RED, 8),
        _card(GREEN, 2),
        _card(GREEN, 3),
        _card(YELLOW, 2),
        _card(YELLOW, 3),
        _card(BLUE, 2),
        _card(BLUE, 3),
        _card(BLUE, 4),
    ]
    state = _position([hand, OPPONENT_HAND], expeditions=[(0, _card(RED, 4))], piles=[(RED, [_card(RED, 5)])])
    assert _act("heuristic_expert", state)[2] == 1 + RED


def test_discard_only_on_a_built_position():
    hand = [
        _card(RED, 9),
        _card(GREEN, 2),
        _card(GREEN, 0),
        _card(YELLOW, 7),
        _card(YELLOW, 3),
        _card(BLUE, 5),
        _card(BLUE, 6),
        _card(WHITE, 10),
    ]
    state = _position([hand, OPPONENT_HAND], piles=[(RED, [_card(RED, 5)])])
    assert _act("discard_only", state) == (_card(GREEN, 0), 1, 0)
    assert int(JITTED["discard_only"](state, jax.random.PRNGKey(0))) == encode_action(
        sorted(hand).index(_card(GREEN, 0)), 1, 0
    )


def test_unknown_bot_name_is_a_clear_error():
    with pytest.raises(ValueError, match="choose one of"):
        make("heuristic_grandmaster")


@pytest.mark.parametrize("record_name", ["round_record", "match_record"])
@pytest.mark.slow
def test_the_counted_blocked_draws_are_the_rule_card_by_card(record_name, request):
    """The expert's count per colour (bots/heuristic.py ``_blocked_draws``) against the rule
    written plainly: after placement (i, p), another hand number of colour c lies above my
    expedition's top (raised by a number played on c) and below pile c's top."""
    from lost_cities.bots.heuristic import _after_placement, _blocked_draws
    from lost_cities.game.engine import seat_view

    record = request.getfixturevalue(record_name)
    rounds = jax.tree.map(lambda x: x[_live(record)], record[0])

    @jax.vmap
    def both(rs):
        hand = seat_view(rs.hands, rs.to_move).astype(jnp.int32)
        colour, slot = hand // N_SLOTS, hand % N_SLOTS
        is_number = slot >= 2
        my_top = seat_view(rs.exp_top, rs.to_move).astype(jnp.int32)
        started = seat_view(rs.exp_count, rs.to_move) > 0
        top_slot = pile_tops(rs).astype(jnp.int32) % N_SLOTS
        after_top, _ = _after_placement(my_top, started, colour, slot, is_number)
        others = ~jnp.eye(8, dtype=bool)[:, None, :, None]  # [i, ., j, .]
        between = (
            (colour[:, None] == jnp.arange(5)[None, :])[None, None, :, :]
            & is_number[None, None, :, None]
            & (slot[None, None, :, None] > after_top[:, :, None, :])
            & (slot[None, None, :, None] < top_slot[None, None, None, :])
        )
        return jnp.any(others & between, axis=2), _blocked_draws(colour, slot, is_number, my_top, top_slot)

    rule, counted = both(rounds)
    assert 0.01 < float(np.mean(np.asarray(rule))) < 0.99  # both answers occur
    np.testing.assert_array_equal(np.asarray(rule), np.asarray(counted))
