"""The end game's own knobs (lost_cities/search/endgame.py, ``search.endgame``): the policy
decides by the cards left in the deck, one phase per batch, and the late search is built
from the checked knobs."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from search_common import EXPERT, _cfg, _take

from lost_cities.bots import make
from lost_cities.game.cards import N_CARDS
from lost_cities.search import BOT_SCORES, search_policy


def _deck_left(states):
    return N_CARDS - np.asarray(states.round.deck_ptr, int)


@pytest.mark.slow
def test_endgame_policy_decides_by_the_deck_and_runs_one_phase_per_batch(match_states):
    """One game at a time and in batches, the end game's policy decides exactly where at most
    ``deck_left`` cards are left; a batch whose needed games are all in one phase runs only
    that phase's policy (counted by a callback in each), a mixed batch both."""
    from lost_cities.evaluation.duplicate import batched_actions, mover_actions
    from lost_cities.search.endgame import EndgamePolicy

    calls = {"opening": 0, "endgame": 0}

    def counted(name, policy):
        def count(batch):
            calls[name] += 1

        def counted_policy(state, key):
            jax.debug.callback(count, state.round.deck_ptr)
            return policy(state, key)

        return counted_policy

    random_bot = make("random")
    policy = EndgamePolicy(counted("opening", EXPERT), counted("endgame", random_bot), 8)
    states = _take(match_states, np.arange(0, match_states.round_idx.shape[0], 20))
    late = _deck_left(states) <= 8
    assert 5 <= late.sum() < late.size - 5  # both phases occur
    keys = jax.random.split(jax.random.PRNGKey(0), late.size)
    expected = np.where(
        late, jax.jit(jax.vmap(random_bot))(states, keys), jax.jit(jax.vmap(EXPERT))(states, keys)
    )
    one = jax.jit(policy)
    rows = jax.tree.map(np.asarray, states)  # one game at a time, indexed on the host
    assert [int(one(_take(rows, i), keys[i])) for i in range(late.size)] == expected.tolist()
    np.testing.assert_array_equal(jax.jit(jax.vmap(policy))(states, keys), expected)  # both phases, selected

    batched = jax.jit(lambda s, k, n: batched_actions(policy, s, k, n))
    everyone = jnp.ones(late.size, bool)
    phases = ((everyone, {"opening", "endgame"}), (jnp.asarray(late), {"endgame"}), (~late, {"opening"}))
    for need, ran in phases:
        calls.update(opening=0, endgame=0)
        actions = jax.block_until_ready(batched(states, keys, need))
        np.testing.assert_array_equal(np.where(need, actions, 0), np.where(need, expected, 0))
        assert {name for name, n in calls.items() if n} == ran
    gathered = mover_actions(policy, states, keys, everyone, late.size, jnp.asarray(states.round.deck_ptr))
    np.testing.assert_array_equal(gathered, expected)


ENDGAME = {"deck_left": 6, "worlds": 3, "candidates": 5, "gate_points": 0.0}


def test_endgame_knobs_are_checked_and_make_the_late_config():
    cfg = _cfg(worlds=2, candidates=2, endgame=ENDGAME)
    late = cfg.endgame_config()
    assert (late.worlds, late.candidates, late.gate_points, late.endgame) == (3, 5, 0.0, None)
    assert cfg.endgame_deck_left == 6 and "with 6 or fewer cards in the deck" in cfg.describe()
    assert cfg.deciding(6) == late and cfg.deciding(7) == cfg
    assert dataclasses.replace(late, worlds=2, candidates=2, gate_points=1.0) == _cfg(worlds=2, candidates=2)
    for bad, message in (
        ({"worlds": 8}, "needs deck_left"),
        ({"deck_left": 44}, "needs deck_left"),
        ({"deck_left": 8, "proposer": "heuristic_expert"}, r"cannot set \['proposer'\]"),
        ({"deck_left": 8, "world": 8}, r"cannot set \['world'\]"),
        ({"deck_left": 8, "worlds": 0}, "worlds >= 1"),
    ):
        with pytest.raises(ValueError, match=message):
            _cfg(endgame=bad)


@pytest.mark.slow
def test_an_endgame_search_is_the_late_search_late_and_the_opening_before(match_states):
    """The search with an end game: its end game is the late config's search, its opening the
    opening's (the same decisions), switched at the deck_left it was given (the switch itself:
    the test above). The two phases decide differently here, so a mix-up shows."""
    cfg = _cfg(worlds=2, candidates=2, endgame=ENDGAME)
    late = cfg.endgame_config()
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], cfg)
    states = _take(match_states, np.arange(0, match_states.round_idx.shape[0], 30))
    keys = jax.random.split(jax.random.PRNGKey(5), states.round_idx.shape[0])
    np.testing.assert_array_equal(jax.vmap(policy.in_endgame)(states), _deck_left(states) <= 6)
    assert 3 <= (_deck_left(states) <= 6).sum() < states.round_idx.shape[0] - 3

    def actions_of(searcher):
        return np.asarray(each(searcher, states, keys))

    each = jax.jit(jax.vmap(lambda p, s, k: p(s, k), in_axes=(None, 0, 0)))  # a policy is a pytree
    opening = dataclasses.replace(cfg, endgame=None)
    by_phase = {
        phase: actions_of(search_policy(EXPERT, BOT_SCORES["heuristic_expert"], phase))
        for phase in (late, opening)
    }
    np.testing.assert_array_equal(actions_of(policy.endgame), by_phase[late])
    np.testing.assert_array_equal(actions_of(policy.opening), by_phase[opening])
    assert (by_phase[late] != by_phase[opening]).sum() >= 3
