"""The 3-round match (docs/rules.md, docs/api.md): round changes, carry, start rule, reward, symmetry."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from reference_engine import build_deck_order, make_action, make_card
from reference_match import mirror_deals, random_deals

from lost_cities import board_score, score, step
from lost_cities.envs import make
from lost_cities.game.match import (
    batched_match_legal_mask,
    batched_match_reset,
    batched_match_reset_from,
    batched_match_step,
    match_reset,
    match_reset_from,
    match_step,
)
from lost_cities.obs.v2 import match_observation

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("match")

DISCARD_DRAW_DECK = make_action(0, 1, 0)  # always legal while the round is live
ENV = make("match3")
BATCH = 96  # one batch size for every batched call, so each function compiles once


def _margins(carry):
    carry = np.asarray(carry)
    return np.stack([carry[:, 0] - carry[:, 1], carry[:, 1] - carry[:, 0]], axis=1)


def _tiled(rows):
    """``rows`` (a numpy array of cases) repeated to fill a batch of ``BATCH``."""
    return np.resize(rows, (BATCH, *rows.shape[1:]))


def _deck_biased_actions(rng, mask, deck_share=0.75):
    """A legal action per game: a deck draw with probability ``deck_share`` when one is legal.

    Mostly deck draws keeps rounds near 44 plies; the rest exercises discard-pile draws.
    """
    actions = np.zeros(len(mask), np.int32)
    deck_draw = np.arange(96) % 6 == 0
    for i, legal in enumerate(mask):
        choices = np.flatnonzero(legal)
        if len(choices) == 0:
            continue
        deck_choices = np.flatnonzero(legal & deck_draw)
        if len(deck_choices) and rng.random() < deck_share:
            choices = deck_choices
        actions[i] = rng.choice(choices)
    return actions


@jax.jit
def _transition(ms, actions):
    """One batched match step plus what the checks need from before and after it."""
    finished_round, _, _ = jax.vmap(step)(ms.round, actions)
    next_ms, reward, done = jax.vmap(match_step)(ms, actions)
    return (
        next_ms,
        reward,
        done,
        {
            "finished_board": jax.vmap(board_score)(finished_round),
            "finished_score": jax.vmap(score)(finished_round),
            "round_score": jax.vmap(score)(ms.round),
            "potential_before": jax.vmap(ENV.final_margin)(ms),
            "potential_after": jax.vmap(ENV.final_margin)(next_ms),
            "final_margin_after": jax.vmap(ENV.final_margin)(next_ms),
            "mask_after": jax.vmap(ENV.legal_mask)(next_ms),
        },
    )


@pytest.fixture(scope="module")
def random_transitions():
    """``BATCH`` matches played to the end: a list of ``(before, actions, after, reward, done, extra)``."""
    rng = np.random.default_rng(0)
    ms = batched_match_reset_from(*random_deals(rng, BATCH))
    mask = np.asarray(batched_match_legal_mask(ms))
    transitions = []
    while not bool(np.all(ms.done)):
        actions = _deck_biased_actions(rng, mask)
        next_ms, reward, done, extra = _transition(ms, jnp.asarray(actions))
        extra = jax.tree.map(np.asarray, extra)
        before, after = jax.tree.map(np.asarray, ms), jax.tree.map(np.asarray, next_ms)
        transitions.append((before, actions, after, np.asarray(reward), np.asarray(done), extra))
        ms, mask = next_ms, extra["mask_after"]
    return transitions


@pytest.mark.slow
def test_round_length_is_44_plus_pile_draws_and_carry_adds_each_round_once(random_transitions):
    plies = np.zeros(BATCH, int)
    pile_draws = np.zeros(BATCH, int)
    rounds_seen = np.zeros(BATCH, int)
    for before, actions, after, _, _, extra in random_transitions:
        live = ~before.done
        plies += live
        pile_draws += live & (actions % 6 != 0)
        ended = live & ((after.round_idx > before.round_idx) | after.done)
        expected_carry = before.carry + np.where(ended[:, None], extra["finished_board"], 0.0)
        np.testing.assert_array_equal(after.carry, expected_carry)
        for i in np.flatnonzero(ended):
            assert plies[i] == 44 + pile_draws[i], (i, plies[i], pile_draws[i])
            rounds_seen[i] += 1
        plies[ended] = 0
        pile_draws[ended] = 0
    assert (rounds_seen == 3).all()


@pytest.mark.slow
def test_reward_only_at_the_match_end_and_equals_the_final_carry_margin(random_transitions):
    total = np.zeros((BATCH, 2))
    for before, _, after, reward, done, extra in random_transitions:
        ends_now = done & ~before.done
        assert not np.any(reward[~ends_now]), "reward before the end of round 3 or after it"
        np.testing.assert_array_equal(reward[ends_now], _margins(after.carry)[ends_now])
        np.testing.assert_array_equal(reward[ends_now], extra["final_margin_after"][ends_now])
        assert (after.round_idx[ends_now] == 2).all()
        total += reward
    np.testing.assert_array_equal(total, _margins(random_transitions[-1][2].carry))
    assert np.any(total != 0)


@pytest.mark.slow
def test_potential_moves_only_by_the_ply_own_board_change_across_round_boundaries(random_transitions):
    boundaries = 0
    for before, _, after, _, _, extra in random_transitions:
        live = ~before.done
        change = extra["potential_after"] - extra["potential_before"]
        ply_effect = extra["finished_score"] - extra["round_score"]
        np.testing.assert_array_equal(change[live], ply_effect[live])
        np.testing.assert_array_equal(change[~live], 0.0)
        boundaries += int(np.sum(live & (after.round_idx > before.round_idx)))
    assert boundaries == 2 * BATCH


def _step_all(ms, action, plies):
    actions = jnp.full(BATCH, action, jnp.int32)
    for _ in range(plies):
        ms, reward, done = batched_match_step(ms, actions)
    return ms, np.asarray(reward), np.asarray(done)


START_RULE_CASES = [  # carry, coins, round index, expected starter of the next round
    ((10.0, 5.0), (1, 1, 1), 0, 0),  # seat 0 leads
    ((5.0, 10.0), (0, 0, 0), 0, 1),  # seat 1 leads
    ((-7.0, -7.0), (1, 0, 1), 0, 0),  # tie before round 2: coins[1] decides
    ((-7.0, -7.0), (0, 1, 0), 0, 1),
    ((3.0, 3.0), (1, 1, 0), 1, 0),  # tie before round 3: coins[2] decides
    ((3.0, 3.0), (0, 0, 1), 1, 1),
    ((20.0, -3.0), (1, 1, 1), 1, 0),
    ((-3.0, 20.0), (0, 0, 0), 1, 1),
]


def test_start_rule():
    """A round of discards (boards 0:0) from a preset carry: the leader, or on a tie the coin, starts."""
    carry, coins, round_idx, expected = (np.array(column) for column in zip(*START_RULE_CASES, strict=True))
    orders, _ = random_deals(np.random.default_rng(1), len(START_RULE_CASES))
    ms = batched_match_reset_from(_tiled(orders), _tiled(coins).astype(np.int32))
    ms = ms.replace(round_idx=jnp.asarray(_tiled(round_idx), jnp.int32), carry=jnp.asarray(_tiled(carry)))
    ms, reward, done = _step_all(ms, DISCARD_DRAW_DECK, 43)
    np.testing.assert_array_equal(np.asarray(ms.round_idx), _tiled(round_idx))
    ms, reward, done = _step_all(ms, DISCARD_DRAW_DECK, 1)
    np.testing.assert_array_equal(np.asarray(ms.round_idx), _tiled(round_idx) + 1)
    assert not done.any() and not reward.any()
    np.testing.assert_array_equal(np.asarray(ms.to_move), _tiled(expected))
    np.testing.assert_array_equal(np.asarray(ms.starter), _tiled(expected))
    np.testing.assert_array_equal(np.asarray(ms.carry), _tiled(carry))
    assert (np.asarray(ms.round.plies) == 0).all() and (np.asarray(ms.round.deck_ptr) == 16).all()
    next_orders = _tiled(orders)[np.arange(BATCH), _tiled(round_idx) + 1]
    np.testing.assert_array_equal(np.asarray(ms.round.hands[:, 0]), np.sort(next_orders[:, :8]))
    np.testing.assert_array_equal(np.asarray(ms.round.hands[:, 1]), np.sort(next_orders[:, 8:16]))


def test_round_score_decides_the_next_start():
    """Seat 0 opens an expedition with a 10 (-10 points) and loses round 1: seat 1 starts round 2."""
    ten = make_card(0, 11)
    hand0 = [ten] + [make_card(1, s) for s in range(3, 10)]
    hand1 = [make_card(2, s) for s in range(3, 11)]
    orders = np.array([[build_deck_order(hand0, hand1)] * 3], np.int32)
    ms = batched_match_reset_from(_tiled(orders), np.zeros((BATCH, 3), np.int32))
    ms, _, _ = _step_all(ms, make_action(hand0.index(ten), 0, 0), 1)
    ms, _, _ = _step_all(ms, DISCARD_DRAW_DECK, 43)
    assert (np.asarray(ms.round_idx) == 1).all()
    np.testing.assert_array_equal(np.asarray(ms.carry), np.tile([-10.0, 0.0], (BATCH, 1)))
    assert (np.asarray(ms.to_move) == 1).all() and (np.asarray(ms.starter) == 1).all()


@pytest.mark.slow
def test_round_one_coin_is_fair_and_picks_the_starter():
    n = 4000
    ms = batched_match_reset(jax.random.split(jax.random.PRNGKey(7), n))
    coins = np.asarray(ms.coins)
    np.testing.assert_array_equal(np.asarray(ms.to_move), coins[:, 0])
    np.testing.assert_array_equal(np.asarray(ms.starter), coins[:, 0])
    bound = 4 * np.sqrt(n * 0.25)  # four standard deviations of Binomial(n, 1/2)
    for r in range(3):
        assert abs(coins[:, r].sum() - n / 2) < bound, (r, coins[:, r].sum())
    assert abs(np.sum(coins[:, 0] == coins[:, 1]) - n / 2) < bound  # the coins are independent
    assert abs(np.sum(coins[:, 1] == coins[:, 2]) - n / 2) < bound
    deal_loc = np.asarray(ms.deal_loc)
    assert not (deal_loc[:, 0] == deal_loc[:, 1]).all(axis=1).any()  # each round its own deck
    assert len({row.tobytes() for row in deal_loc[:, 0]}) == n


_mirror_projection = np.random.default_rng(5).normal(0.0, 0.3, (512, 96)).astype(np.float32)
_deck_bonus = np.where(np.arange(96) % 6 == 0, 1.0, 0.0).astype(np.float32)


def _mirrorable_policy(ms):
    """Deterministic, seat-agnostic: a fixed linear score of the mover's view, masked argmax."""
    view = match_observation(ms, ms.to_move)
    logits = view @ _mirror_projection + _deck_bonus
    return jnp.argmax(jnp.where(ENV.legal_mask(ms), logits, -jnp.inf)).astype(jnp.int32)


@jax.jit
def _policy_step(ms):
    actions = jax.vmap(_mirrorable_policy)(ms)
    views = jax.vmap(match_observation)(ms, ms.to_move)
    next_ms, reward, done = jax.vmap(match_step)(ms, actions)
    return next_ms, reward, actions, views


@pytest.mark.slow
def test_mirrored_deals_give_mirrored_matches():
    """Games in rows 0..47, their mirrors in rows 48..95: same views and moves, seats swapped."""
    half = BATCH // 2
    orders, coins = random_deals(np.random.default_rng(11), half)
    mirrored_orders, mirrored_coins = mirror_deals(orders, coins)
    ms = batched_match_reset_from(
        np.concatenate([orders, mirrored_orders]), np.concatenate([coins, mirrored_coins])
    )
    totals = np.zeros((half, 2))
    while not bool(np.all(ms.done)):
        to_move = np.asarray(ms.to_move)
        np.testing.assert_array_equal(to_move[:half], 1 - to_move[half:])
        ms, reward, actions, views = _policy_step(ms)
        reward, actions, views = np.asarray(reward), np.asarray(actions), np.asarray(views)
        np.testing.assert_array_equal(actions[:half], actions[half:])
        np.testing.assert_array_equal(views[:half], views[half:])
        np.testing.assert_array_equal(reward[:half], reward[half:, ::-1])
        carry, round_idx, done = (np.asarray(x) for x in (ms.carry, ms.round_idx, ms.done))
        np.testing.assert_array_equal(carry[:half], carry[half:, ::-1])
        np.testing.assert_array_equal(round_idx[:half], round_idx[half:])
        np.testing.assert_array_equal(done[:half], done[half:])
        totals += reward[:half]
    assert np.any(totals != 0) and len(np.unique(np.asarray(ms.starter))) == 2


def _assert_unchanged(after, before, rows):
    for x, y in zip(jax.tree.leaves(after), jax.tree.leaves(before), strict=True):
        np.testing.assert_array_equal(np.asarray(x)[rows], np.asarray(y)[rows])


@pytest.mark.slow
def test_illegal_and_post_done_actions_are_no_ops(random_transitions):
    rng = np.random.default_rng(4)
    checked = 0
    for before, *_ in random_transitions[::15]:
        mask = np.asarray(batched_match_legal_mask(before))
        actions = np.array([rng.choice(np.flatnonzero(~m)) for m in mask])
        out_of_range = rng.random(BATCH) < 0.3
        actions = np.where(out_of_range, rng.choice([-1, 96, 1000], BATCH), actions).astype(np.int32)
        after, reward, done = batched_match_step(before, jnp.asarray(actions))
        _assert_unchanged(after, before, slice(None))
        assert not np.asarray(reward).any()
        np.testing.assert_array_equal(np.asarray(done), before.done)
        checked += int(np.sum(~before.done))
    final = random_transitions[-1][2]
    assert final.done.all() and not np.asarray(batched_match_legal_mask(final)).any()
    after, reward, done = batched_match_step(final, jnp.asarray(rng.integers(0, 96, BATCH), jnp.int32))
    _assert_unchanged(after, final, slice(None))
    assert not np.asarray(reward).any() and np.asarray(done).all()
    assert checked > 500


def test_max_steps_rounds_also_change_rounds():
    """Both seats stall (discard, then draw from another pile): every round stops at 400 plies."""
    ms = batched_match_reset_from(*random_deals(np.random.default_rng(3), BATCH))
    discard = np.arange(96) // 6 % 2 == 1
    stall = discard & (np.arange(96) % 6 != 0)
    for ply in range(1, 3 * 400 + 1):
        mask = np.asarray(batched_match_legal_mask(ms))
        preferred = np.where((mask & discard).any(axis=1, keepdims=True), mask & discard, mask)
        preferred = np.where((mask & stall).any(axis=1, keepdims=True), mask & stall, preferred)
        ms, reward, done = batched_match_step(ms, jnp.asarray(preferred.argmax(axis=1), jnp.int32))
        if ply % 400 in (0, 399):
            assert (np.asarray(ms.round_idx) == min(ply // 400, 2)).all(), ply
        if ply in (400, 800):
            assert (np.asarray(ms.round.plies) == 0).all() and not np.asarray(done).any()
    assert np.asarray(ms.done).all() and (np.asarray(ms.round.plies) == 400).all()
    np.testing.assert_array_equal(np.asarray(reward), _margins(ms.carry))


def test_bad_deals_fail_early_with_a_clear_message():
    orders = np.stack([np.arange(60)] * 3)
    with pytest.raises(ValueError, match="shape"):
        match_reset_from(orders[:2], np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="permutation"):
        match_reset_from(np.where(orders == 5, 6, orders), np.zeros(3, np.int32))
    with pytest.raises(ValueError, match="coins"):
        match_reset_from(orders, np.array([0, 2, 1]))


@pytest.mark.slow
def test_reset_from_deals_keeps_each_round_deal(random_transitions):
    orders, coins = random_deals(np.random.default_rng(0), BATCH)  # the fixture's deals
    first = random_transitions[0][0]
    for r in range(3):
        np.testing.assert_array_equal(first.deal_hands[:, r, 0], np.sort(orders[:, r, :8]))
        np.testing.assert_array_equal(first.deal_hands[:, r, 1], np.sort(orders[:, r, 8:16]))
    np.testing.assert_array_equal(first.to_move, coins[:, 0])
    np.testing.assert_array_equal(first.coins, coins)
    assert (first.round_idx == 0).all() and not first.carry.any()


def _batch_last(tree):
    return jax.tree.map(lambda x: np.moveaxis(np.asarray(x), 0, -1), tree)


@jax.jit
def _batch_last_views(ms, actions):
    """The match functions applied directly to batch-last states (no vmap)."""
    next_ms, reward, done = match_step(ms, actions)
    return next_ms, reward, done, ENV.legal_mask(ms), ENV.observe(ms, ms.to_move), ENV.privileged(ms, 1)


@jax.jit
def _batch_first_views(ms, actions):
    next_ms, reward, done = jax.vmap(match_step)(ms, actions)
    mask = jax.vmap(ENV.legal_mask)(ms)
    return (
        next_ms,
        reward,
        done,
        mask,
        jax.vmap(ENV.observe)(ms, ms.to_move),
        jax.vmap(ENV.privileged, in_axes=(0, None))(ms, 1),
    )


@pytest.mark.slow
def test_trailing_batch_axes_give_the_same_match(random_transitions):
    """Step, legal mask and both observations on batch-last states equal the vmapped ones."""
    for before, actions, after, *_ in random_transitions[::9]:
        last = _batch_last_views(_batch_last(before), jnp.asarray(actions))
        first = _batch_first_views(before, jnp.asarray(actions))
        for got, want in zip(jax.tree.leaves(last), jax.tree.leaves(_batch_last(first)), strict=True):
            np.testing.assert_array_equal(np.asarray(got), want)
        _assert_unchanged(first[0], after, slice(None))


def test_batch_last_reset_deals_valid_independent_matches():
    ms = match_reset(jax.random.PRNGKey(3), (BATCH,))
    assert ms.deal_loc.shape == (3, 60, BATCH) and ms.round.loc.shape == (60, BATCH)
    deal_loc, deal_hands = np.asarray(ms.deal_loc), np.asarray(ms.deal_hands)
    for r in range(3):
        for g in range(BATCH):
            for seat in (0, 1):
                np.testing.assert_array_equal(
                    deal_hands[r, seat, :, g], np.flatnonzero(deal_loc[r, :, g] == 64 + seat)
                )
            assert sorted(deal_loc[r, :, g][deal_loc[r, :, g] < 60]) == list(range(16, 60))
    assert len({deal_loc[:, :, g].tobytes() for g in range(BATCH)}) == BATCH
    np.testing.assert_array_equal(np.asarray(ms.to_move), np.asarray(ms.coins)[0])
    assert set(np.asarray(ms.coins).ravel()) == {0, 1}
