"""Observation v2 and the privileged v2 observation on hand-built and played positions."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from reference_engine import build_deck_order, make_action, make_card
from reference_match import margin_bucket_one_hot, random_deals

from lost_cities import observation
from lost_cities.envs import make
from lost_cities.game.engine import LOC_EXPEDITION, LOC_HAND, LOC_KNOWN, LOC_PILE
from lost_cities.game.match import batched_match_legal_mask, batched_match_reset_from, batched_match_step
from lost_cities.obs.privileged import hidden_information
from lost_cities.obs.v2 import (
    OBS_V2_DIM,
    OBS_V2_VERSION,
    PRIVILEGED_V2_DIM,
    match_observation,
    privileged_match_observation,
)

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("observation_v2")

BATCH = 96  # the batch size of every batched call (each function compiles once)
DISCARD_DRAW_DECK = make_action(0, 1, 0)
ENV = make("match3")
CARRY_AT, CARRY_BUCKETS = 454, slice(455, 464)
ROUND_ONE_HOT, ROUNDS_LEFT, MY_TURN, I_STARTED, DECK_CLOCK = slice(464, 467), 467, 468, 469, 470
BOARD_DIFF, PROJECTED, PROJECTED_BUCKETS = 471, 472, slice(473, 482)
MY_REACHABLE, THEIR_REACHABLE = slice(482, 497), slice(497, 512)
# Margin -> bucket, from the layout table (bucket edges -50, -25, -10, 0, 10, 25, 50).
BUCKET_OF = {-120: 0, -50: 0, -49: 1, -25: 1, -24: 2, -10: 2, -9: 3, -1: 3, 0: 4, 1: 5, 9: 5, 10: 6}
BUCKET_OF |= {24: 6, 25: 7, 49: 7, 50: 8, 120: 8}


@jax.jit
def _compute_views(ms):
    per_player = {}
    for player in (0, 1):
        per_player[player] = {
            "obs": jax.vmap(match_observation, in_axes=(0, None))(ms, player),
            "privileged": jax.vmap(privileged_match_observation, in_axes=(0, None))(ms, player),
            "v1": jax.vmap(observation, in_axes=(0, None))(ms.round, player),
            "hidden": jax.vmap(hidden_information, in_axes=(0, None))(ms.round, player),
            "env_obs": jax.vmap(ENV.observe, in_axes=(0, None))(ms, player),
            "env_privileged": jax.vmap(ENV.privileged, in_axes=(0, None))(ms, player),
        }
    return per_player


def _views(ms):
    """Both players' policy and privileged observations, v1 and hidden information, per game."""
    return jax.tree.map(np.asarray, _compute_views(ms))


def _tiled(rows):
    return np.resize(rows, (BATCH, *np.shape(rows)[1:]))


def _step_all(ms, action):
    return batched_match_step(ms, jnp.full(BATCH, action, jnp.int32))[0]


def _played_positions(seed, snapshots_every=6, plies=200):
    """Mid-match states from random legal play (mostly deck draws): a list of batched states."""
    rng = np.random.default_rng(seed)
    ms = batched_match_reset_from(*random_deals(rng, BATCH))
    deck_draw = np.arange(96) % 6 == 0
    snapshots = []
    for ply in range(plies):
        mask = np.asarray(batched_match_legal_mask(ms))
        prefer_deck = (rng.random(BATCH) < 0.7)[:, None] & (mask & deck_draw).any(axis=1, keepdims=True)
        choices = np.where(prefer_deck, mask & deck_draw, mask)
        weights = choices * rng.random(choices.shape)
        ms = batched_match_step(ms, jnp.asarray(weights.argmax(axis=1), jnp.int32))[0]
        if ply % snapshots_every == 0:
            snapshots.append(ms)
    return snapshots


@pytest.fixture(scope="module")
def played_positions():
    return _played_positions(seed=8)


def test_dimensions_version_and_v1_prefix(played_positions):
    env = make("match3")
    assert (env.obs_version, env.obs_dim, env.privileged_dim) == (
        OBS_V2_VERSION,
        OBS_V2_DIM,
        PRIVILEGED_V2_DIM,
    )
    assert OBS_V2_VERSION == "v2" and OBS_V2_DIM == 512 and PRIVILEGED_V2_DIM == 512 + 120
    for ms in played_positions[::10]:
        views = _views(ms)
        for player in (0, 1):
            view = views[player]
            assert view["obs"].shape == (BATCH, OBS_V2_DIM)
            np.testing.assert_array_equal(view["obs"][:, :454], view["v1"])
            np.testing.assert_array_equal(view["privileged"][:, :OBS_V2_DIM], view["obs"])
            np.testing.assert_array_equal(view["privileged"][:, OBS_V2_DIM:], view["hidden"])
            np.testing.assert_array_equal(view["env_obs"], view["obs"])
            np.testing.assert_array_equal(view["env_privileged"], view["privileged"])


def _bucket_one_hot(margin):
    one_hot = np.array(margin_bucket_one_hot(int(margin)), np.float32)
    assert margin not in BUCKET_OF or one_hot[BUCKET_OF[margin]] == 1.0  # the reference's edges
    return one_hot


def test_carry_round_turn_and_start_features():
    margins = np.array(sorted(BUCKET_OF))
    rows = np.arange(BATCH)
    margin = _tiled(margins)
    carry = np.stack([30.0 + margin, np.full(BATCH, 30.0)], axis=1).astype(np.float32)
    round_idx = rows % 3
    orders, coins = random_deals(np.random.default_rng(3), BATCH)
    ms = batched_match_reset_from(orders, coins)
    ms = ms.replace(carry=jnp.asarray(carry), round_idx=jnp.asarray(round_idx, jnp.int32))
    views = _views(ms)
    for player, sign in ((0, 1), (1, -1)):
        obs = views[player]["obs"]
        np.testing.assert_allclose(obs[:, CARRY_AT], sign * margin / 75, rtol=1e-6)
        np.testing.assert_allclose(obs[:, PROJECTED], sign * margin / 75, rtol=1e-6)
        expected_buckets = np.stack([_bucket_one_hot(sign * m) for m in margin])
        np.testing.assert_array_equal(obs[:, CARRY_BUCKETS], expected_buckets)
        np.testing.assert_array_equal(obs[:, PROJECTED_BUCKETS], expected_buckets)
        np.testing.assert_array_equal(obs[:, ROUND_ONE_HOT], np.eye(3)[round_idx])
        np.testing.assert_array_equal(obs[:, ROUNDS_LEFT], (2 - round_idx) / 2)
        np.testing.assert_array_equal(obs[:, MY_TURN], coins[:, 0] == player)
        np.testing.assert_array_equal(obs[:, I_STARTED], coins[:, 0] == player)
        np.testing.assert_array_equal(obs[:, BOARD_DIFF], 0.0)
    assert set(coins[:, 0]) == {0, 1}
    # After one ply the turn passes but the round's starter does not change.
    after = _views(_step_all(ms, DISCARD_DRAW_DECK))
    for player in (0, 1):
        np.testing.assert_array_equal(after[player]["obs"][:, MY_TURN], coins[:, 0] != player)
        np.testing.assert_array_equal(after[player]["obs"][:, I_STARTED], coins[:, 0] == player)


def test_board_difference_and_projected_margin():
    """Seat 0 opens an expedition with a 10: its board is -10 (carry preset to 12 : 40)."""
    ten = make_card(0, 11)
    hand0 = [ten] + [make_card(1, s) for s in range(3, 10)]
    hand1 = [make_card(2, s) for s in range(3, 11)]
    orders = np.array([[build_deck_order(hand0, hand1)] * 3] * BATCH, np.int32)
    ms = batched_match_reset_from(orders, np.zeros((BATCH, 3), np.int32))
    ms = ms.replace(carry=jnp.tile(jnp.array([12.0, 40.0]), (BATCH, 1)))
    views = _views(_step_all(ms, make_action(hand0.index(ten), 0, 0)))
    mine, theirs = views[0]["obs"][0], views[1]["obs"][0]
    np.testing.assert_allclose([mine[BOARD_DIFF], theirs[BOARD_DIFF]], [-10 / 50, 10 / 50], rtol=1e-6)
    np.testing.assert_allclose([mine[PROJECTED], theirs[PROJECTED]], [-38 / 75, 38 / 75], rtol=1e-6)
    np.testing.assert_array_equal(mine[PROJECTED_BUCKETS], _bucket_one_hot(-38))
    np.testing.assert_array_equal(mine[CARRY_BUCKETS], _bucket_one_hot(-28))
    # Seat 0's colour 0 is now capped at the 10: nothing above it is reachable.
    assert mine[MY_REACHABLE][[0, 5, 10]].sum() == 0 and theirs[THEIR_REACHABLE][[0, 5, 10]].sum() == 0


def test_deck_clock_at_the_deal():
    """44 cards left (even): the player to move does not draw the last one."""
    orders, coins = random_deals(np.random.default_rng(4), BATCH)
    views = _views(batched_match_reset_from(orders, coins))
    for player in (0, 1):
        np.testing.assert_array_equal(views[player]["obs"][:, DECK_CLOCK], coins[:, 0] != player)


def test_deck_clock_matches_deck_draws_played_out(played_positions):
    """From each position, only deck draws until the round ends: the bit names who drew last."""
    parities = set()
    for ms in played_positions[1::3]:
        views = _views(ms)
        deck_left = 60 - np.asarray(ms.round.deck_ptr).astype(int)
        round_idx, done = np.asarray(ms.round_idx), np.asarray(ms.done)
        last_drawer = np.full(BATCH, -1)
        current = ms
        for _ in range(int(deck_left.max())):
            mover = np.asarray(current.to_move)
            current = _step_all(current, DISCARD_DRAW_DECK)
            ended = ((np.asarray(current.round_idx) != round_idx) | np.asarray(current.done)) & ~done
            last_drawer = np.where(ended & (last_drawer < 0), mover, last_drawer)
        live = ~done
        assert (last_drawer[live] >= 0).all()
        for player in (0, 1):
            bit = views[player]["obs"][:, DECK_CLOCK]
            np.testing.assert_array_equal(bit[live], last_drawer[live] == player)
            np.testing.assert_array_equal(bit[done], 0.0)
        parities |= {(d % 2, m) for d, m in zip(deck_left[live], np.asarray(ms.to_move)[live], strict=True)}
    assert parities == {(0, 0), (0, 1), (1, 0), (1, 1)}


def _brute_force_reachable(ms, game, player):
    """Per colour, the ranks of numbers above a seat's highest, by place; counted card by card."""
    loc = np.asarray(ms.round.loc[game]).astype(int)
    in_piles = {card for card in range(60) if loc[card] >= LOC_PILE}
    opponent = 1 - player

    def highest(seat, colour):
        ranks = [s - 1 for s in range(3, 12) if loc[colour * 12 + s] == LOC_EXPEDITION + seat]
        return max(ranks, default=0)

    def count(seat, place):
        totals = []
        for colour in range(5):
            top = highest(seat, colour)
            totals.append(sum(s - 1 for s in range(3, 12) if s - 1 > top and place(colour * 12 + s)))
        return totals

    def unseen(card):
        return loc[card] < 60 or loc[card] == LOC_HAND + opponent

    def in_pile(card):
        return card in in_piles

    def my_hand(card):
        return loc[card] in (LOC_HAND + player, LOC_KNOWN + player)

    def their_known(card):
        return loc[card] == LOC_KNOWN + opponent

    mine = count(player, my_hand) + count(player, in_pile) + count(player, unseen)
    theirs = count(opponent, their_known) + count(opponent, in_pile) + count(opponent, unseen)
    return np.array(mine) / 54, np.array(theirs) / 54


def test_reachable_points_equal_a_brute_force_count(played_positions):
    seen_places = np.zeros(6, bool)
    for ms in played_positions[::4]:
        views = _views(ms)
        for game in range(0, BATCH, 6):
            for player in (0, 1):
                mine, theirs = _brute_force_reachable(ms, game, player)
                obs = views[player]["obs"][game]
                np.testing.assert_allclose(obs[MY_REACHABLE], mine, rtol=1e-6, atol=1e-7)
                np.testing.assert_allclose(obs[THEIR_REACHABLE], theirs, rtol=1e-6, atol=1e-7)
                seen_places |= np.concatenate([mine, theirs]).reshape(6, 5).sum(axis=1) > 0
    assert seen_places.all(), "every place (hand, piles, unseen; known hand) held reachable points"


def test_policy_observation_ignores_hidden_information():
    """Swap a card of seat 1's dealt hand with the deck's last card, or reorder the deck
    below the draw point: seat 0's policy view is unchanged; only the privileged view sees it."""
    orders, _ = random_deals(np.random.default_rng(6), BATCH // 3)
    coins = np.zeros((BATCH // 3, 3), np.int32)  # seat 0 starts
    swapped = orders.copy()
    swapped[:, :, [9, 59]] = orders[:, :, [59, 9]]
    reordered = orders.copy()
    reordered[:, :, 17:] = orders[:, :, 17:][:, :, ::-1]
    ms = batched_match_reset_from(np.concatenate([orders, swapped, reordered]), np.tile(coins, (3, 1)))
    third = BATCH // 3
    for state in (ms, _step_all(ms, DISCARD_DRAW_DECK)):
        view = _views(state)[0]
        base, swap, reorder = (view["obs"][i * third : (i + 1) * third] for i in range(3))
        np.testing.assert_array_equal(swap, base)
        np.testing.assert_array_equal(reorder, base)
        privileged = view["privileged"]
        assert (privileged[third : 2 * third] != privileged[:third]).any(axis=1).all()
        np.testing.assert_array_equal(privileged[2 * third :], privileged[:third])
