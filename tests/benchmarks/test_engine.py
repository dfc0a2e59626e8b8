"""The benchmark prints every key the issues ask for, with consistent values, and its loop
keeps every game live by re-dealing finished ones."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lost_cities.benchmarks import engine as bench
from lost_cities.cli.bench import main


@pytest.mark.slow
def test_bench_prints_rates_and_the_observation_cost_ratio(capsys):
    """The printed keys, and the observation's cost as the module says it is computed: the
    difference of the two loops' ply times (rates are timings, so only their relation is checked)."""
    main(["--batch", "64", "--steps", "50", "--runs", "1", "--only", "engine"])
    printed = dict(line.split("=", 1) for line in capsys.readouterr().out.split())
    assert printed["backend"] == jax.default_backend()
    assert printed["device_count"] == str(jax.device_count())
    assert (printed["batch_size"], printed["steps"]) == ("64", "50")
    keys = ("steps_per_sec", "obs_steps_per_sec", "match_steps_per_sec", "obs_v2_steps_per_sec")
    rates = {key: float(printed[key]) for key in keys}
    v1 = 1e6 / rates["obs_steps_per_sec"] - 1e6 / rates["steps_per_sec"]
    v2 = 1e6 / rates["obs_v2_steps_per_sec"] - 1e6 / rates["match_steps_per_sec"]
    assert float(printed["obs_cost_us"]) == pytest.approx(v1, abs=1e-3)
    assert float(printed["obs_v2_cost_ratio"]) == pytest.approx(v2 / v1, abs=0.01)


def _played_directly(name, batch, steps, key):
    """The benchmark's random games played again one ply at a time with the engine's own
    functions, outside its scan: ``(live plies, observation checksum, finished games)``. The
    keys are split as the module describes (a deal, then a spare deal per ``redeal_every``
    plies and one uniform per game and ply); a game that finishes takes the spare's deal."""
    from lost_cities.game.engine import reset, step
    from lost_cities.game.match import match_reset, match_step
    from lost_cities.game.sampling import legal_action_at
    from lost_cities.obs.v1 import observation
    from lost_cities.obs.v2 import match_observation

    def move(state, u):
        if name == "round":
            return step(state, legal_action_at(state, u))[0]
        return match_step(state, legal_action_at(state.round, u))[0]

    start, observe = (reset, observation) if name == "round" else (match_reset, match_observation)

    deal = jax.jit(lambda k: jax.vmap(start)(jax.random.split(k, batch)))

    @jax.jit
    def ply(state, spare, k):
        live = jnp.sum(~state.done)
        seen = jnp.sum(jax.vmap(lambda s: observe(s, s.to_move))(state))
        state = jax.vmap(move)(state, jax.random.uniform(k, (batch,)))
        done = state.done
        fresh = jax.tree.map(
            lambda new, old: jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old), spare, state
        )
        return fresh, live, seen, jnp.sum(done)

    every = bench.GAMES[name]().redeal_every
    deal_key, chunk_key, last_key = jax.random.split(key, 3)
    full, last = divmod(steps, every)
    chunks = [(k, every) for k in jax.random.split(chunk_key, full)] + ([(last_key, last)] if last else [])
    state, plies, checksum, finished = deal(deal_key), 0, 0.0, 0
    for chunk, length in chunks:
        spare_key, ply_key = jax.random.split(chunk)
        spare = deal(spare_key)
        for k in jax.random.split(ply_key, length):
            state, live, seen, done = ply(state, spare, k)
            plies, checksum, finished = plies + int(live), checksum + float(seen), finished + int(done)
    return plies, checksum, finished


# Random play draws from the discard piles so often that a game may last until the step cap
# (400 placements a round): these runs are long enough for every first game to end.
@pytest.mark.parametrize(("name", "steps"), [("round", 420), ("match", 1220)])
@pytest.mark.slow
def test_the_benchmark_counts_the_plies_of_the_games_it_plays(name, steps):
    """What the benchmark counts, against the same games played directly: every ply of every
    game is a real one (a finished game is re-dealt at once), and with the observation on it
    observes the very positions those games reach."""
    batch, key = 8, jax.random.PRNGKey(3)
    plies, checksum = bench.make_random_play(bench.GAMES[name](), batch, steps, with_obs=True)(key)
    direct_plies, direct_checksum, finished = _played_directly(name, batch, steps, key)
    assert finished >= batch  # every game ended at least once and was re-dealt during the run
    assert int(plies) == direct_plies == batch * steps
    assert float(checksum) == pytest.approx(direct_checksum, rel=1e-4)  # float32 sums


def test_bench_sections_are_checked_before_anything_runs(capsys):
    with pytest.raises(SystemExit):
        main(["--only", "engine,serach"])
    assert "choose among engine,features,train,bc,search" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(bench.GAMES))
def test_spares_are_refilled_within_the_shortest_game(name):
    """A game re-dealt from the spare must not finish again before the next refill."""
    assert 0 < bench.GAMES[name]().redeal_every <= bench.SHORTEST_GAME[name]


@pytest.mark.slow
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


@pytest.mark.slow
def test_every_counted_ply_is_a_ply_of_a_live_game():
    plies, _ = bench.make_random_play(bench.GAMES["round"](), 16, 100)(jax.random.PRNGKey(0))
    assert int(plies) == 16 * 100
