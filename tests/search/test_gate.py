"""The gate against the base move (``select`` and ``prior_bonus`` in
lost_cities/search/agent.py): a challenger is chosen only when its gain clears the gate,
and the proposer's prior moves the choice."""

import jax.numpy as jnp
import numpy as np
import pytest
from search_common import _cfg

from lost_cities.game.cards import N_ACTIONS
from lost_cities.search import prior_bonus, select


def test_select_keeps_the_base_move_unless_the_gain_clears_the_gate():
    cfg = _cfg(worlds=4, candidates=3, gate_points=2.0, gate_z=1.0)
    base = jnp.array([10.0, 0.0, 5.0, -3.0])
    valid = jnp.array([True, True, True])
    # candidate 1 gains +3 in every world: clears 2 points and any z
    index, gain = select(jnp.stack([base, base + 3.0, base + 1.0], axis=1), valid, cfg)
    assert int(index) == 1 and float(gain) == pytest.approx(3.0)
    # +1.5 on average: under the 2-point gate
    index, _ = select(jnp.stack([base, base + 1.5, base - 1.0], axis=1), valid, cfg)
    assert int(index) == 0
    # +3 on average but all of it in one world (noisy): fails the z gate
    noisy = base + jnp.array([12.0, 0.0, 0.0, 0.0])
    index, _ = select(jnp.stack([base, noisy, base], axis=1), valid, cfg)
    assert int(index) == 0
    # an invalid candidate (past the last legal action) is never chosen
    index, _ = select(jnp.stack([base, base + 9.0, base + 3.0], axis=1), jnp.array([True, False, True]), cfg)
    assert int(index) == 2


def test_prior_points_let_the_proposers_preference_move_the_choice():
    """``prior_points`` adds the proposer's score lead over the base move to each challenger's
    gain: a challenger the rollouts rate just under the gate passes when the proposer
    prefers it, one they rate over it fails when the proposer rates it far below the base,
    and an unrated challenger gets no prior either way."""
    cfg = _cfg(worlds=4, candidates=3, gate_points=2.0, gate_z=1.0, prior_points=1.0)
    base = jnp.array([10.0, 0.0, 5.0, -3.0])
    values = jnp.stack([base, base + 1.5, base + 3.0], axis=1)
    valid = jnp.array([True, True, True])
    actions = jnp.array([7, 20, 40], jnp.int32)
    scores = jnp.zeros(N_ACTIONS).at[20].set(1.0).at[40].set(-4.0)  # base 0, challengers +1 and -4
    bonus = prior_bonus(scores, actions, cfg.prior_points)
    np.testing.assert_allclose(bonus, [0.0, 1.0, -4.0])
    assert int(select(values, valid, cfg)[0]) == 2  # the rollouts alone: +3 clears the gate
    index, gain = select(values, valid, cfg, bonus=bonus)
    assert int(index) == 1 and float(gain) == pytest.approx(2.5)
    # in a utility's units (unit: the utility of one point) the prior scales with it
    np.testing.assert_allclose(prior_bonus(scores, actions, 1.0, unit=0.1), [0.0, 0.1, -0.4])
    unrated = prior_bonus(scores.at[40].set(-jnp.inf), actions, cfg.prior_points)
    np.testing.assert_allclose(unrated, [0.0, 1.0, 0.0])
    assert int(select(values, valid, cfg, bonus=unrated)[0]) == 2
