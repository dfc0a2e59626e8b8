"""Fitting the belief over the opponent's hand (lost_cities/imitation/belief.py, run by
``python -m lost_cities.belief``: lost_cities/cli/belief.py): a small belief fitted on the
expert's self-play beats the uniform one, survives its file, and the search reads it."""

import jax
import numpy as np
import pytest
from search_common import PRESETS, belief_command

from lost_cities import envs
from lost_cities.search import belief as belief_module


@pytest.mark.slow
def test_a_trained_belief_beats_the_uniform_one_and_survives_its_file(tmp_path, capsys):
    """A small belief fitted on the expert's self-play predicts the held-out hands better than
    the uniform belief; the file keeps it exactly, and the search reads it by the knob."""
    path = tmp_path / "belief.msgpack"
    settings = {"positions": 6000, "steps": 150, "moves": 2, "hidden": [32], "held_out": 2000}
    belief_command(belief=str(path), base="heuristic_expert", **settings)
    belief = belief_module.load(path, "match3")
    assert belief.report["held_out_loss"] < belief.report["uniform_loss"] - 0.005
    assert belief.moves == 2 and belief.report["base"] == "heuristic_expert"
    assert "held-out loss per unseen card" in capsys.readouterr().out

    env = envs.make("match3")
    state = env.init(jax.random.PRNGKey(2))
    x, prior = belief_module.features(env, state, 2), belief_module.uniform_logit(state)
    twice = belief_module.load(path)
    logits = belief_module.BeliefNet(belief.hidden).apply(belief.params, x, prior)
    np.testing.assert_array_equal(logits, belief_module.BeliefNet(twice.hidden).apply(twice.params, x, prior))

    from lost_cities.policies import make_policy

    policy = make_policy("search:heuristic_expert", env, PRESETS, worlds=2, belief=str(path))
    assert f"dealt by the belief {path}" in capsys.readouterr().out
    action = int(jax.jit(policy)(state, jax.random.PRNGKey(0)))
    assert bool(env.legal_mask(state)[action])


def test_the_uniform_baseline_is_the_entropy_of_the_hidden_share():
    """What a fitted belief must beat: at a deal the opponent holds 8 of the mover's 52
    unseen cards, and the uniform belief's loss per unseen card is the entropy of that
    share; cards the mover has seen carry no loss; a belief of more moves than a State
    keeps is refused before any game is played."""
    from lost_cities.imitation import belief as fitting

    env = envs.make("match3")
    state = env.init(jax.random.PRNGKey(0))
    in_hand, unseen = (np.asarray(a) for a in fitting.targets(state))
    assert (in_hand.sum(), unseen.sum()) == (8, 52) and not (in_hand & ~unseen).any()
    prior = np.asarray(belief_module.uniform_logit(state))
    p = 8 / 52
    assert 1 / (1 + np.exp(-prior)) == pytest.approx(p)
    entropy = -(p * np.log(p) + (1 - p) * np.log(1 - p))
    loss = float(fitting.uniform_loss_per_card(prior[None], in_hand[None], unseen[None]))
    assert loss == pytest.approx(entropy, rel=1e-5)
    logits = np.where(unseen, prior, 50.0)[None]  # confidently wrong about seen cards only
    assert float(fitting.loss_per_card(logits, in_hand[None], unseen[None])) == pytest.approx(loss, rel=1e-5)
    with pytest.raises(ValueError, match="belief moves must be 0 to 8"):
        fitting.train(env, None, "none", 10, 1, 9, 0, [4], 10, 4, 1e-3)
