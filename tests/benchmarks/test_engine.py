"""The benchmark prints every key the issues ask for, with consistent values, and its loop
keeps every game live by re-dealing finished ones."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lost_cities.benchmarks import engine as bench
from lost_cities.cli.bench import main


def test_bench_prints_rates_and_the_observation_cost_ratio(capsys):
    main(["--batch", "64", "--steps", "50", "--runs", "1", "--only", "engine"])
    printed = dict(line.split("=", 1) for line in capsys.readouterr().out.split())
    assert printed["backend"] == jax.default_backend()
    assert printed["device_count"] == str(jax.device_count())
    assert (printed["batch_size"], printed["steps"]) == ("64", "50")
    keys = ("steps_per_sec", "obs_steps_per_sec", "match_steps_per_sec", "obs_v2_steps_per_sec")
    rates = {key: float(printed[key]) for key in keys}
    assert all(rate > 0 for rate in rates.values())
    v1 = bench.observation_cost_us(rates["obs_steps_per_sec"], rates["steps_per_sec"])
    v2 = bench.observation_cost_us(rates["obs_v2_steps_per_sec"], rates["match_steps_per_sec"])
    assert float(printed["obs_cost_us"]) == pytest.approx(v1, abs=1e-3)
    assert float(printed["obs_v2_cost_ratio"]) == pytest.approx(v2 / v1, abs=0.01)


def test_bench_sections_are_checked_before_anything_runs(capsys):
    with pytest.raises(SystemExit):
        main(["--only", "engine,serach"])
    assert "choose among engine,features,train,bc,search" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(bench.GAMES))
def test_spares_are_refilled_within_the_shortest_game(name):
    """A game re-dealt from the spare must not finish again before the next refill."""
    assert 0 < bench.GAMES[name]().redeal_every <= bench.SHORTEST_GAME[name]


def test_finished_games_are_replaced_by_fresh_deals_and_live_ones_kept():
    game = bench.GAMES["round"]()
    state = game.deal(jax.random.PRNGKey(0), 8)
    advance = jax.jit(game.advance)
    for t in range(400):  # play until some games are over and some are not
        state = advance(state, jax.random.PRNGKey(t))
        if 0 < int(jnp.sum(game.live(state))) < 8:
            break
    live = game.live(state)
    assert 0 < int(jnp.sum(live)) < 8
    spare = game.deal(jax.random.PRNGKey(99), 8)
    refilled = bench._redeal_finished(state, spare, live, game.batch_axis)
    for old, fresh, new in zip(
        jax.tree.leaves(state), jax.tree.leaves(spare), jax.tree.leaves(refilled), strict=True
    ):
        np.testing.assert_array_equal(np.asarray(new)[np.asarray(live)], np.asarray(old)[np.asarray(live)])
        np.testing.assert_array_equal(
            np.asarray(new)[~np.asarray(live)], np.asarray(fresh)[~np.asarray(live)]
        )
    assert bool(jnp.all(game.live(refilled)))


def test_every_counted_ply_is_a_ply_of_a_live_game():
    plies, _ = bench.make_random_play(bench.GAMES["round"](), 16, 100)(jax.random.PRNGKey(0))
    assert int(plies) == 16 * 100
