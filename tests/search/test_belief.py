"""The learned belief over the opponent's hand (lost_cities/search/belief.py): conditional
Bernoulli sampling, the worlds it deals, and a belief file checked before the search starts.
(Fitting one is tests/imitation/test_belief_fit.py; exporting one, tests/export/test_belief_onnx.py.)"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import PRESETS, _cfg, _random_belief, _take

from lost_cities import envs
from lost_cities.game.cards import N_CARDS
from lost_cities.game.engine import LOC_HAND
from lost_cities.search import belief as belief_module
from lost_cities.search import unseen_cards


def test_conditional_bernoulli_draws_each_set_in_proportion_to_its_weight():
    """Sets of ``size`` members with probability proportional to the product of their odds."""
    from itertools import combinations

    from lost_cities.search.belief import conditional_bernoulli

    members = np.zeros(N_CARDS, bool)
    chosen = [3, 10, 11, 40, 59]
    members[chosen] = True
    logits = jnp.asarray(np.random.default_rng(0).normal(0.0, 1.5, N_CARDS), jnp.float32)
    n = 20_000
    draws = jax.jit(jax.vmap(conditional_bernoulli, in_axes=(0, None, None, None)))(
        jax.random.split(jax.random.PRNGKey(0), n), logits, jnp.asarray(members), jnp.int32(2)
    )
    draws = np.asarray(draws)
    assert (draws.sum(axis=1) == 2).all() and not draws[:, ~members].any()
    odds = np.exp(np.asarray(logits, np.float64)[chosen])
    pairs = list(combinations(range(len(chosen)), 2))
    expected = np.array([odds[a] * odds[b] for a, b in pairs])
    expected /= expected.sum()
    seen = np.array([np.mean(draws[:, chosen[a]] & draws[:, chosen[b]]) for a, b in pairs])
    assert np.abs(seen - expected).max() < 5 * np.sqrt(expected.max() / n)


@pytest.mark.slow
def test_a_belief_deals_the_cards_it_favours_to_the_opponent(match_states):
    """A world keeps the opponent's unknown hand size and deals it the cards the logits
    favour; with flat logits every unseen card is as likely as in a uniform world."""
    from lost_cities.search.belief import believed_round

    state = _take(match_states, 40).round
    mover = int(state.to_move)
    true_loc = np.asarray(state.loc)
    unseen = np.flatnonzero(np.asarray(unseen_cards(state, mover)))
    slots = int((true_loc == LOC_HAND + 1 - mover).sum())
    favoured = unseen[:slots]
    n = 2000
    keys = jax.random.split(jax.random.PRNGKey(6), n)
    deal = jax.jit(jax.vmap(believed_round, in_axes=(0, None, None)))
    sharp = deal(keys, state, jnp.zeros(N_CARDS).at[favoured].set(12.0))
    in_hand = np.asarray(sharp.loc) == LOC_HAND + 1 - mover
    assert (in_hand.sum(axis=1) == slots).all()
    assert in_hand[:, favoured].mean() > 0.99
    flat = np.asarray(deal(keys, state, jnp.zeros(N_CARDS)).loc)[:, unseen] == LOC_HAND + 1 - mover
    expected = slots / len(unseen)
    assert np.abs(flat.mean(axis=0) - expected).max() < 5 * np.sqrt(expected * (1 - expected) / n)


@pytest.mark.slow
def test_a_belief_file_is_checked_before_the_search_starts(tmp_path):
    from lost_cities.policies import make_policy

    env = envs.make("match3")
    with pytest.raises(FileNotFoundError, match="neither a file.*shipped belief.*lost_cities.belief belief="):
        make_policy("search:heuristic_expert", env, PRESETS, belief=str(tmp_path / "none.msgpack"))
    (tmp_path / "junk.msgpack").write_bytes(b"not msgpack at all")
    with pytest.raises(ValueError, match="not a belief file"):
        belief_module.load(tmp_path / "junk.msgpack")
    belief_module.save(
        tmp_path / "round.msgpack", dataclasses.replace(_random_belief(), env_name="single_round")
    )
    with pytest.raises(ValueError, match="reads single_round states; this search plays match3"):
        make_policy("search:heuristic_expert", env, PRESETS, belief=str(tmp_path / "round.msgpack"))
    with pytest.raises(ValueError, match="search.endgame cannot set"):
        _cfg(endgame={"deck_left": 5, "belief": "other.msgpack"})
