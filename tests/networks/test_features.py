"""Action features af1: read off the observation alone, they rebuild the mover's view
exactly (the engine's legal mask and the expert's scores equal those of the true state),
and they do not change when only hidden cards move. The view built from the state
(``observer_view``, what rollouts use) is the decoded one, field for field."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lost_cities import match_legal_action_mask, match_observation, match_reset, match_step
from lost_cities.bots import make
from lost_cities.bots.context import round_and_match
from lost_cities.bots.expert import expert_values
from lost_cities.game.engine import legal_action_mask
from lost_cities.networks.features import (
    EXPERT_TOTAL,
    N_DRAW_FEATURES,
    N_PLACEMENT_FEATURES,
    N_PLACEMENTS,
    action_features,
    batched_action_features,
    match_context,
    observer_view,
    view_state,
)
from lost_cities.obs.v1 import observation

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("features")

GAMES, PLIES = 64, 100


@pytest.fixture(scope="module")
def states():
    """Match states along games of mixed expert and random play (every round reached)."""
    expert, rnd = make("heuristic_expert"), make("random")

    @jax.jit
    def play(key):
        ms = jax.vmap(match_reset)(jax.random.split(key, GAMES))

        def ply(ms, k):
            k_pick, k_act = jax.random.split(k)
            keys = jax.random.split(k_act, GAMES)
            use_random = jax.random.bernoulli(k_pick, 0.3, (GAMES,))
            action = jnp.where(use_random, jax.vmap(rnd)(ms, keys), jax.vmap(expert)(ms, keys))
            return jax.vmap(match_step)(ms, action)[0], ms

        _, history = jax.lax.scan(ply, ms, jax.random.split(key, PLIES))
        return history

    history = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), play(jax.random.PRNGKey(3)))
    live = np.flatnonzero(~np.asarray(history.done))
    return jax.tree.map(lambda x: x[live], history)


@pytest.mark.slow
def test_the_rebuilt_view_has_the_true_legal_mask_and_expert_scores(states):
    @jax.vmap
    def compare(ms):
        obs = match_observation(ms, ms.to_move)
        view = view_state(obs)
        mask = match_legal_action_mask(ms)
        true = expert_values(*round_and_match(ms))
        rebuilt = expert_values(view, *match_context(obs))
        same_mask = jnp.all(legal_action_mask(view) == mask)
        return same_mask, jnp.max(jnp.where(mask, jnp.abs(true - rebuilt), 0.0))

    same_mask, error = compare(states)
    assert np.asarray(same_mask).all()
    assert float(np.max(error)) < 1e-4  # the carry read back from its /75 scaling


@pytest.mark.slow
def test_features_have_their_layout_and_the_expert_total_in_place(states):
    obs = jax.vmap(match_observation)(states, states.to_move)
    placement, draw = jax.jit(batched_action_features)(obs)
    assert placement.shape == (obs.shape[0], N_PLACEMENTS, N_PLACEMENT_FEATURES)
    assert draw.shape == (obs.shape[0], 96, N_DRAW_FEATURES)
    assert np.isfinite(np.asarray(placement)).all() and np.isfinite(np.asarray(draw)).all()
    mask = np.asarray(jax.vmap(match_legal_action_mask)(states))
    np.testing.assert_array_equal(np.asarray(draw[..., -1]) > 0.5, mask)  # the last column: legal
    # The expert's move is the legal argmax of the total-score column (lowest id on ties).
    expert = np.asarray(
        jax.vmap(make("heuristic_expert"))(states, jax.random.split(jax.random.PRNGKey(0), len(mask)))
    )
    total = np.where(mask, np.asarray(draw[..., EXPERT_TOTAL]), -np.inf)
    assert (np.argmax(total, axis=1) == expert).mean() > 0.999
    # Batched over leading axes = one observation at a time (to float rounding: the expert's
    # sums may fuse differently).
    one = jax.jit(action_features)(obs[5])
    np.testing.assert_allclose(np.asarray(one[0]), np.asarray(placement[5]), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(one[1]), np.asarray(draw[5]), rtol=1e-6, atol=1e-6)


@pytest.mark.slow
def test_features_ignore_where_the_hidden_cards_are(states):
    """Swapping a deck card with a card of the opponent's unknown hand changes the state but
    not the mover's information, so neither the observation nor the features change."""
    ms = jax.tree.map(lambda x: x[40], states)
    rs = ms.round
    loc = np.asarray(rs.loc).copy()
    opponent = 1 - int(rs.to_move)
    hidden_hand = np.flatnonzero(loc == 64 + opponent)
    deck = np.flatnonzero(loc < 60)
    assert len(hidden_hand) and len(deck)
    a, b = hidden_hand[0], deck[-1]
    loc[a], loc[b] = loc[b], loc[a]
    swapped = ms.replace(round=rs.replace(loc=jnp.asarray(loc)))
    assert not np.array_equal(np.asarray(swapped.round.loc), np.asarray(rs.loc))
    before = action_features(match_observation(ms, ms.to_move))
    after = action_features(match_observation(swapped, ms.to_move))
    for x, y in zip(before, after, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@pytest.mark.slow
def test_a_single_round_observation_is_a_lone_last_round(states):
    rs = jax.tree.map(lambda x: x[7], states.round)
    placement, draw = action_features(observation(rs, rs.to_move))
    assert placement.shape == (N_PLACEMENTS, N_PLACEMENT_FEATURES)
    np.testing.assert_array_equal(np.asarray(placement[:, 18:24]), 0.0)  # no v2 reachable ranks
    total = np.where(np.asarray(draw[:, -1]) > 0.5, np.asarray(draw[:, EXPERT_TOTAL]), -np.inf)
    assert np.argmax(total) == int(make("heuristic_expert")(rs, jax.random.PRNGKey(0)))


@pytest.mark.slow
def test_the_view_built_from_the_state_is_the_decoded_view_and_gives_the_same_rows(states):
    @jax.vmap
    def views(ms, player):
        obs = match_observation(ms, player)
        built = observer_view(ms.round, player)
        return view_state(obs), built, action_features(obs), action_features(obs, built)

    both = jax.tree.map(lambda x: jnp.concatenate([x, x]), states)  # each state from both seats
    players = jnp.concatenate([states.to_move, 1 - states.to_move])
    decoded, built, rows, rows_from_built = jax.jit(views)(both, players)
    for field in decoded.__dataclass_fields__:
        a, b = np.asarray(getattr(decoded, field)), np.asarray(getattr(built, field))
        assert a.dtype == b.dtype and a.shape == b.shape, field
        np.testing.assert_array_equal(a, b, err_msg=field)
    for a, b in zip(rows, rows_from_built, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_the_features_of_a_deal_mark_the_legal_deck_draws_and_the_experts_move():
    """At a match's deal (piles empty): the rows' legal column is the engine's mask, so only
    deck draws are legal, and the expert plays the legal action of highest total score."""
    from lost_cities.evaluation import deal_bank
    from lost_cities.game.match import match_reset_from

    deck_orders, coins = deal_bank(1)
    ms = match_reset_from(deck_orders[0], coins[0])
    placement, draw = jax.jit(lambda ms: action_features(match_observation(ms, ms.to_move)))(ms)
    assert placement.shape == (N_PLACEMENTS, N_PLACEMENT_FEATURES) and draw.shape == (96, N_DRAW_FEATURES)
    mask = np.asarray(match_legal_action_mask(ms))
    np.testing.assert_array_equal(np.asarray(draw[:, -1]) > 0.5, mask)
    deck_draws = np.arange(96) % 6 == 0
    assert mask[deck_draws].sum() > 8 and not mask[~deck_draws].any()
    np.testing.assert_array_equal(np.asarray(draw[:, 0]), deck_draws.astype(np.float32))  # "deck"
    total = np.where(mask, np.asarray(draw[:, EXPERT_TOTAL]), -np.inf)
    assert np.argmax(total) == int(jax.jit(make("heuristic_expert"))(ms, jax.random.PRNGKey(0)))
