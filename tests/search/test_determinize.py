"""Worlds (lost_cities/search/determinize.py, and a learned belief's worlds by
lost_cities/search/belief.py) come from the mover's information set only; and the search's
decisions (lost_cities/search/agent.py) cannot depend on the true hidden cards: they do not
change when those are permuted, and the same check catches a search or a belief that reads
them. The positions are tests/conftest.py's ``match_states``."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import (
    EXPERT,
    INVARIANCE_CFG,
    PUBLIC_ROUND_FIELDS,
    _fresh_critic_agent,
    _random_belief,
    _sorted_hand,
    _take,
)

from lost_cities import envs
from lost_cities.game.cards import HAND_SIZE, N_CARDS
from lost_cities.game.engine import LOC_HAND, LOC_KNOWN, reset_from_order
from lost_cities.game.match import match_legal_action_mask
from lost_cities.obs.v1 import observation
from lost_cities.obs.v2 import match_observation
from lost_cities.search import BOT_SCORES, determinize, search_decision, unseen_cards

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("determinize")


@pytest.mark.slow
def test_positions_cover_known_cards_and_every_round(match_states):
    known = np.asarray(match_states.round.loc) >= LOC_KNOWN
    opponent_known = (
        np.asarray(match_states.round.loc) == LOC_KNOWN + 1 - np.asarray(match_states.to_move)[:, None]
    )
    assert opponent_known.any(axis=1).mean() > 0.2 and known.any()
    assert set(np.asarray(match_states.round_idx).tolist()) >= {0, 1}


def test_a_world_of_a_deal_redeals_only_what_the_mover_has_not_seen():
    """At a round's deal the mover has seen only its own hand: a world keeps it and every
    public field, deals the opponent 8 of the other 52 cards (its hand sorted) and the deck
    the remaining 44, and different keys deal differently."""
    from lost_cities.search import determinize_round

    order = np.random.default_rng(5).permutation(N_CARDS).astype(np.int32)
    state = reset_from_order(order, 1)  # seat 1 to move
    deal = jax.jit(determinize_round)
    a, b = deal(jax.random.PRNGKey(0), state), deal(jax.random.PRNGKey(1), state)
    for world in (a, b):
        loc = np.asarray(world.loc)
        np.testing.assert_array_equal(np.asarray(world.hands[1]), np.asarray(state.hands[1]))
        np.testing.assert_array_equal(loc[np.asarray(state.hands[1])], LOC_HAND + 1)
        assert sorted(np.asarray(world.hands[0]).tolist()) == np.flatnonzero(loc == LOC_HAND).tolist()
        assert sorted(loc[loc < LOC_HAND].tolist()) == list(range(2 * HAND_SIZE, N_CARDS))
        for field in PUBLIC_ROUND_FIELDS:
            np.testing.assert_array_equal(getattr(world, field), getattr(state, field), err_msg=field)
    assert not np.array_equal(np.asarray(a.loc), np.asarray(b.loc))
    assert not np.array_equal(np.asarray(a.hands[0]), np.asarray(state.hands[0]))


# ---- worlds ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["uniform", "belief"])
def worlds(match_states, request):
    """Four worlds for each of 300 positions: uniform ones, and a (random) belief's."""
    from lost_cities.search.belief import world_sampler

    deal = determinize if request.param == "uniform" else world_sampler(_random_belief())
    index = np.linspace(0, match_states.round_idx.shape[0] - 1, 300).astype(int)
    states = _take(match_states, index)
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    per_key = jax.jit(jax.vmap(jax.vmap(deal, in_axes=(None, 0)), in_axes=(0, None)))(keys, states)
    return states, per_key  # per_key: leading axes [key, position]


@pytest.mark.slow
def test_world_gives_the_mover_the_same_observations_and_mask(worlds):
    states, per_key = worlds
    mover = states.to_move
    obs_v1 = jax.vmap(observation)(states.round, mover)
    obs_v2 = jax.vmap(match_observation)(states, mover)
    mask = jax.vmap(match_legal_action_mask)(states)
    for k in range(per_key.round_idx.shape[0]):
        world = _take(per_key, k)
        np.testing.assert_array_equal(jax.vmap(observation)(world.round, mover), obs_v1)
        np.testing.assert_array_equal(jax.vmap(match_observation)(world, mover), obs_v2)
        np.testing.assert_array_equal(jax.vmap(match_legal_action_mask)(world), mask)
        for name in ("round_idx", "carry", "starter"):
            np.testing.assert_array_equal(getattr(world, name), getattr(states, name))
        for name in (*PUBLIC_ROUND_FIELDS, "recent_actions", "recent_cards", "recent_drawn"):
            np.testing.assert_array_equal(getattr(world.round, name), getattr(states.round, name))


@pytest.mark.slow
def test_world_hidden_cards_are_a_permutation_of_the_unseen_cards(worlds):
    states, per_key = worlds
    changed = 0
    for k in range(per_key.round_idx.shape[0]):
        world = _take(per_key, k)
        for i in range(states.round_idx.shape[0]):
            true_loc = np.asarray(states.round.loc[i])
            loc = np.asarray(world.round.loc[i])
            mover = int(states.to_move[i])
            opponent = 1 - mover
            deck_ptr = int(states.round.deck_ptr[i])
            unseen = np.flatnonzero((true_loc < LOC_HAND) | (true_loc == LOC_HAND + opponent))
            seen = np.setdiff1d(np.arange(N_CARDS), unseen)
            np.testing.assert_array_equal(loc[seen], true_loc[seen])  # public and the mover's own
            # the unseen cards fill exactly the undrawn deck positions and the opponent's unknown slots
            assert sorted(loc[unseen].tolist()) == sorted(true_loc[unseen].tolist())
            assert sorted(loc[loc < LOC_HAND].tolist()) == list(range(deck_ptr, N_CARDS))
            for seat in (0, 1):
                np.testing.assert_array_equal(np.asarray(world.round.hands[i, seat]), _sorted_hand(loc, seat))
            assert len(_sorted_hand(loc, opponent)) == HAND_SIZE
            changed += not np.array_equal(loc, true_loc)
    assert changed > 0.9 * per_key.round_idx.size  # the worlds really are new deals
    # a match world carries no true later deal (nor the current round's original deal)
    assert not np.array_equal(np.asarray(_take(per_key, 0).deal_loc), np.asarray(states.deal_loc))


@pytest.mark.slow
def test_world_deals_the_unseen_cards_uniformly(match_states):
    """Each unseen card lands in the opponent's hand with probability (unknown slots) /
    (unseen cards): the true hand is not favoured."""
    state = _take(match_states, 40)
    mover = int(state.to_move)
    true_loc = np.asarray(state.round.loc)
    unseen = np.flatnonzero(np.asarray(unseen_cards(state.round, mover)))
    slots = int((true_loc == LOC_HAND + 1 - mover).sum())
    n = 4000
    worlds = jax.jit(jax.vmap(determinize, in_axes=(0, None)))(
        jax.random.split(jax.random.PRNGKey(5), n), state
    )
    in_hand = np.asarray(worlds.round.loc)[:, unseen] == LOC_HAND + 1 - mover
    expected = slots / len(unseen)
    tolerance = 5 * np.sqrt(expected * (1 - expected) / n)
    assert np.abs(in_hand.mean(axis=0) - expected).max() < tolerance
    truly_held = true_loc[unseen] == LOC_HAND + 1 - mover
    assert abs(in_hand[:, truly_held].mean() - expected) < tolerance


# ---- the decision does not depend on the true hidden cards ---------------------------------------------


def _permute_hidden(state, rng):
    """The same information set for the mover, other true hidden cards: the opponent's
    unknown hand and the deck permuted among themselves; later deals and coins replaced."""
    ms = jax.tree.map(np.asarray, state)
    loc = ms.round.loc.copy()
    mover = int(ms.to_move)
    hidden = np.flatnonzero((loc < LOC_HAND) | (loc == LOC_HAND + 1 - mover))
    loc[hidden] = loc[hidden[rng.permutation(len(hidden))]]
    hands = np.stack([_sorted_hand(loc, 0), _sorted_hand(loc, 1)])
    later = np.arange(3) > int(ms.round_idx)
    other = reset_from_order(rng.permutation(N_CARDS))
    return state.replace(
        round=state.round.replace(loc=jnp.asarray(loc), hands=jnp.asarray(hands)),
        deal_loc=jnp.broadcast_to(other.loc, ms.deal_loc.shape),
        deal_hands=jnp.broadcast_to(other.hands, ms.deal_hands.shape),
        coins=jnp.where(later, 1 - ms.coins, ms.coins),
    )


def _decide(cfg, positions, key, leaf=None, deal=None):
    """The search's ``(action, info)`` for each of ``positions`` (the states and their
    permuted copies: one compile serves both)."""
    decide = jax.jit(
        jax.vmap(
            lambda s, k: search_decision(
                cfg, EXPERT, BOT_SCORES["heuristic_expert"], s, k, leaf=leaf, deal=deal
            ),
            in_axes=(0, None),
        )
    )
    return [decide(states, key) for states in positions]


@pytest.fixture(scope="module")
def invariance_positions(match_states):
    index = np.linspace(0, match_states.round_idx.shape[0] - 1, 48).astype(int)
    states = _take(match_states, index)
    rng = np.random.default_rng(0)
    permuted = [_permute_hidden(_take(states, i), rng) for i in range(len(index))]
    permuted = jax.tree.map(lambda *xs: jnp.stack(xs), *permuted)
    changed = (np.asarray(permuted.round.loc) != np.asarray(states.round.loc)).any(axis=1)
    assert changed.all()
    return states, permuted


@pytest.mark.parametrize("variant", ["plain", "inference", "belief", "confirm", "critic_leaf"])
@pytest.mark.slow
def test_search_decision_does_not_change_when_the_hidden_cards_are_permuted(
    invariance_positions, variant, full
):
    """Also with worlds kept by the opponent's recent moves (they rebuild its decisions from
    public facts and the world's cards only), and with the opponent's hand dealt by a
    learned belief (it reads the mover's observation and the opponent's placed cards); and
    (``--full``: one more compile each, kept out of the CI budget) with a critic (which
    reads the privileged observation) valuing rollouts cut at a depth: it reads the sampled
    world's cards only; and with the confirmation worlds."""
    from lost_cities.search.belief import world_sampler
    from lost_cities.search.leaf import critic_leaf

    if variant in ("confirm", "critic_leaf") and not full:
        pytest.skip(f"the {variant} variant runs with --full")

    cfg, leaf = INVARIANCE_CFG, None
    if variant == "inference":
        cfg = dataclasses.replace(cfg, inference_pool=3, inference_moves=3)
    if variant == "confirm":
        cfg = dataclasses.replace(cfg, worlds=3, confirm_worlds=3)
    if variant == "critic_leaf":
        cfg = dataclasses.replace(cfg, depth=3, leaf="a checkpoint")
        leaf = critic_leaf(_fresh_critic_agent(envs.make("match3")))
    deal = world_sampler(_random_belief()) if variant == "belief" else None
    (action, info), (action_p, info_p) = _decide(
        cfg, invariance_positions, jax.random.PRNGKey(11), leaf, deal
    )
    np.testing.assert_array_equal(action_p, action)
    for name in ("values", "confirm_values") if variant == "confirm" else ("values",):
        np.testing.assert_array_equal(info_p[name], info[name])  # every rollout value, too
    assert (np.asarray(info["index"]) != 0).sum() >= 5  # it does search: it leaves the base move


@pytest.mark.slow
def test_the_invariance_check_catches_a_search_that_reads_the_true_cards(invariance_positions, monkeypatch):
    """The same check on a cheating search (rollouts in the true world) fails: the test has power."""
    from lost_cities.search import inference

    monkeypatch.setattr(inference, "determinize", lambda rng, state: state)
    (_, info), (_, info_p) = _decide(INVARIANCE_CFG, invariance_positions, jax.random.PRNGKey(11))
    assert (np.asarray(info_p["values"]) != np.asarray(info["values"])).any(axis=(1, 2)).mean() > 0.5


@pytest.mark.slow
def test_the_invariance_check_catches_a_belief_that_reads_the_true_hand(invariance_positions):
    """A belief whose logits favour the opponent's true hand fails the same check."""
    from lost_cities.game.views import current_round, with_round
    from lost_cities.search.belief import believed_round

    def leaking_deal(rng, env_state):
        state = current_round(env_state)
        truly_held = state.loc == LOC_HAND + 1 - state.to_move.astype(jnp.int32)
        world_key, hand_key = jax.random.split(rng)
        dealt = believed_round(hand_key, state, jnp.where(truly_held, 3.0, 0.0))
        return with_round(determinize(world_key, env_state), dealt)

    key = jax.random.PRNGKey(11)
    (_, info), (_, info_p) = _decide(INVARIANCE_CFG, invariance_positions, key, deal=leaking_deal)
    assert (np.asarray(info_p["values"]) != np.asarray(info["values"])).any(axis=(1, 2)).mean() > 0.5
