"""``opponent=league``: config validation, the snapshot pool's refresh, league replies in
the rollout (legal, never training rows) and resume equivalence with the pool.

One tiny league config (a pool of 2, refreshed every 2 updates) shared by every test;
without lr annealing its update compiles to the same program whatever ``total_decisions``,
so the stepped updates and the runs share one compile (the persistent compilation cache).
"""

import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np
import pytest
from tiny_runs import Interrupt, StopAfter, _rows, _train, make_cfg

from lost_cities.ppo import config as schema
from lost_cities.ppo.opponent.league import pool_logits
from lost_cities.ppo.rollout import Rollout
from lost_cities.ppo.trainer import Trainer

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("league")

UPDATES = 4  # of the runs; the pool test steps 6 updates
LEAGUE = [
    "env=single_round",
    "network=mlp",
    "init=none",
    "reward=tanh",
    "critic=shared",
    "opponent=league",
    "opponent.policies=[random,self]",
    "opponent.weights=[1,1]",
    "opponent.league_weight=4",
    "opponent.pool_size=2",
    "opponent.snapshot_every_updates=2",
    "logger=none",
    "progress=false",
    "ppo.num_envs=8",
    "ppo.rollout_length=16",
    f"ppo.total_decisions={UPDATES * 8 * 16}",
    "ppo.epochs=1",
    "ppo.anneal_lr=false",
    "ppo.minibatches=1",
    "network.hidden=[16]",
    "checkpoint.every_updates=1",
    "checkpoint.best_metric=gates/random/win_rate",  # few episodes end in these short rollouts
    "gates=smoke",
]


def flat(params):
    return np.asarray(jax.flatten_util.ravel_pytree(params)[0])


def snapshot(stacked, k):
    return jax.tree.map(lambda x: x[k], stacked)


def entry(pool, k):
    return flat(snapshot(pool.params, k))


@pytest.fixture(scope="module")
def trainer():
    return Trainer.from_config(schema.validate(make_cfg(LEAGUE)))


@pytest.fixture(scope="module")
def stepped(trainer):
    """The initial state and the state after each of 6 updates, with their metrics."""
    update = jax.jit(trainer.update)
    states, metrics = [trainer.init(0)], []
    for _ in range(6):
        state, m = update(states[-1])
        states.append(state)
        metrics.append(jax.device_get(m))
    return states, metrics


@pytest.fixture(scope="module")
def rollout(trainer, stepped):
    """A 64-step rollout against a pool of two different snapshots (updates 6 and 4)."""
    state, t = stepped[0][-1], trainer
    run = jax.jit(Rollout(t.env, t.network, t.critic.needs_privileged, t.reward, t.opponents, 8, 64).run)
    slots, rows, finished, _ = run(state.params, state.slots, jax.random.PRNGKey(5), 0.0, state.league.params)
    return state, slots, rows, finished


# --- configuration -------------------------------------------------------------------


def test_league_config_composes_with_the_static_mix_plus_the_pool():
    cfg = schema.validate(make_cfg(["opponent=league"]))
    opponents = Trainer.from_config(cfg).opponents
    assert opponents.names == ("random", "discard_only", "self", "league")
    np.testing.assert_allclose(opponents.probs, [0.2, 0.4, 0.2, 0.2])
    assert opponents.league[0] == 3 and opponents.league[1].pool_size == cfg.opponent.pool_size


@pytest.mark.parametrize(
    "override, message",
    [
        ("opponent.pool_size=3", "must divide ppo.num_envs"),
        ("opponent.pool_size=0", "pool_size must be >= 1"),
        ("opponent.snapshot_every_updates=0", "snapshot_every_updates must be >= 1"),
        ("opponent.weights=[-1,1,1]", "non-negative weight per policy"),
        ("opponent.weights=[1,1]", "one non-negative weight per policy \\(3\\)"),
        ("opponent.league_weight=-1", "league_weight must be > 0"),
        ("opponent.league_weight=0", "use opponent=static"),
        ("opponent.policies=[random,league]", "joins as `league`"),
        ("opponent.pool=4", "pool"),
    ],
)
def test_bad_league_values_fail_before_training(override, message):
    with pytest.raises(Exception, match=message):
        schema.validate(make_cfg(["opponent=league", override]))


def test_league_alone_needs_no_fixed_policies():
    cfg = schema.validate(make_cfg(["opponent=league", "opponent.policies=[]", "opponent.weights=null"]))
    assert Trainer.from_config(cfg).opponents.names == ("league",)


# --- the pool ------------------------------------------------------------------------


@pytest.mark.slow
def test_pool_replaces_its_oldest_entry_exactly_every_n_updates(stepped):
    """Pool of 2, every 2 updates: snapshots at updates 2, 4 and 6 (6 replaces 2's)."""
    states, metrics = stepped
    initial = flat(states[0].params)
    assert not np.array_equal(flat(states[2].params), initial)  # the learner moved
    expected = {  # update -> the update whose parameters each entry holds
        0: (0, 0),
        1: (0, 0),
        2: (2, 0),
        3: (2, 0),
        4: (2, 4),
        5: (2, 4),
        6: (6, 4),
    }
    for u, taken in expected.items():
        pool = states[u].league
        assert tuple(np.asarray(pool.taken_at)) == taken, u
        for k, t in enumerate(taken):
            np.testing.assert_array_equal(entry(pool, k), flat(states[t].params), err_msg=f"update {u}")
    assert [float(m["league/snapshots"]) for m in metrics] == [0, 1, 1, 2, 2, 2]
    assert [float(m["league/mean_snapshot_age_updates"]) for m in metrics] == [1, 1, 2, 1, 2, 1]


@pytest.mark.slow
def test_pool_logits_give_env_slot_i_the_entry_of_its_block(trainer, stepped):
    pool = stepped[0][-1].league.params
    obs = jax.random.normal(jax.random.PRNGKey(0), (8, trainer.env.obs_dim))

    def logits(params, o):
        return trainer.network.apply(params, o, method="logits")

    expected = jnp.stack([logits(snapshot(pool, i // 4), obs[i]) for i in range(8)])
    np.testing.assert_allclose(pool_logits(logits, pool, obs), expected, rtol=1e-5, atol=1e-6)
    assert not np.allclose(expected[:4], logits(snapshot(pool, 1), obs[:4]))


# --- the rollout ---------------------------------------------------------------------


def episode_opponents(rows, finished, slots):
    """The opponent of every row: each env's rows split at done rows, labelled by the
    finished episode's opponent (the last, unfinished one by the final slots')."""
    done, ended = np.asarray(rows.done), np.asarray(finished.opponent)
    labels = np.empty_like(done, dtype=np.int32)
    for n in range(done.shape[1]):
        current = int(slots.opponent[n])
        for t in reversed(range(done.shape[0])):
            if done[t, n]:
                current = int(ended[t, n])
            labels[t, n] = current
    return labels


@pytest.mark.slow
def test_league_replies_are_legal_and_never_training_rows(trainer, rollout):
    """Against the league (and the bot) the learner acts for one seat all episode long: a
    league move that was illegal (a no-op) would leave the opponent to move in the next row."""
    state, slots, rows, finished = rollout
    league = trainer.opponents.league[0]
    labels = episode_opponents(rows, finished, slots)
    mover, done = np.asarray(rows.mover), np.asarray(rows.done)
    assert (labels == league).mean() > 0.3
    starts = np.vstack([np.ones((1, done.shape[1]), bool), done[:-1]])  # a row that opens a segment
    segment = np.cumsum(starts, axis=0)
    for n in range(done.shape[1]):
        for s in np.unique(segment[:, n]):
            rows_of = segment[:, n] == s
            if labels[rows_of, n][0] != trainer.opponents.names.index("self"):
                assert len(set(mover[rows_of, n])) == 1, (n, s)
    legal = np.take_along_axis(np.asarray(rows.mask), np.asarray(rows.action)[..., None], -1)[..., 0]
    assert legal.all()
    # The league's moves are played (env steps) but are not rows: about one reply per row.
    in_league = labels == league
    assert np.asarray(rows.moves)[in_league].mean() > 1.8
    is_league = np.asarray(finished.done) & (np.asarray(finished.opponent) == league)
    assert is_league.sum() >= 2
    stats = jax.tree.map(lambda x: np.asarray(x)[is_league], finished.stats)
    assert (stats.plies >= 44).all() and (np.abs(stats.plies - 2 * stats.decisions) <= 1).all()


@pytest.mark.slow
def test_league_action_is_legal_in_mid_game_positions(trainer, rollout):
    state, slots, _, _ = rollout
    r = trainer.rollout
    league = jnp.full(slots.opponent.shape, trainer.opponents.league[0])
    live = ~np.asarray(jax.vmap(trainer.env.done)(slots.state))
    mask = np.asarray(jax.vmap(trainer.env.legal_mask)(slots.state))
    act = jax.jit(r._opponent_action)
    for seed in range(4):
        action = np.asarray(act(slots.state, league, jax.random.PRNGKey(seed), state.league.params))
        assert mask[np.arange(len(action)), action][live].all()


# --- runs ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def resumed_run(tmp_path_factory):
    """A league run killed after update 3's metrics row (its last checkpoint holds update 2,
    whose pool holds a snapshot), then resumed to the end."""
    run_dir = tmp_path_factory.mktemp("league")
    with pytest.raises(Interrupt):
        _train(LEAGUE, run_dir, progress=StopAfter(3))
    _, state, _, logger = _train([*LEAGUE, f"resume={run_dir}"], "unused")
    logger.finish()
    return state, run_dir


@pytest.mark.slow
def test_tiny_league_run_trains_and_logs_the_pool(resumed_run):
    _, run_dir = resumed_run
    rows = _rows(run_dir)
    assert [row["update"] for row in rows] == list(range(1, UPDATES + 1))
    assert [row["league/snapshots"] for row in rows] == [0, 1, 1, 2]
    assert sum(row.get("episode/league/count", 0) for row in rows) > 0
    assert all(np.isfinite(row["learner/policy_loss"]) for row in rows)


@pytest.mark.slow
def test_league_resume_after_an_interruption_matches_an_uninterrupted_run(resumed_run, stepped):
    """The uninterrupted run is ``stepped``: the same seed and compiled update, never stopped."""
    from lost_cities.training.guards import floats as _floats

    state, run_dir = resumed_run
    states, metrics = stepped
    rows = [{k: v for k, v in row.items() if not k.startswith("gates/")} for row in _rows(run_dir)]
    assert rows == [{"update": u + 1, **_floats(m)} for u, m in enumerate(metrics[:UPDATES])]
    np.testing.assert_array_equal(flat(state.params), flat(states[UPDATES].params))
    np.testing.assert_array_equal(flat(state.league), flat(states[UPDATES].league))
