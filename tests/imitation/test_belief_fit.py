"""Fitting the belief over the opponent's hand (lost_cities/imitation/belief.py, run by
``python -m lost_cities.belief``: lost_cities/cli/belief.py): a small belief fitted on the
expert's self-play beats the uniform one, survives its file, and the search reads it."""

import jax
import numpy as np
from search_common import PRESETS, belief_command

from lost_cities import envs
from lost_cities.search import belief as belief_module


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
