"""PPO's mechanics (lost_cities/ppo: the config schema, the trainer, GAE, the rollout,
episode metrics): config composition and validation, GAE, auto-reset, episode metrics,
PBRS telescoping, and one update's learning. The training run itself (the loop, run dirs,
resume, loggers) is tests/training/test_loop.py.

Compiles are the cost here (each config compiles the env's engine into one update), so
every test that runs an update shares ONE tiny config (tests/tiny_runs.py's SHARED) through
module fixtures, with the session's persistent compilation cache on (tests/conftest.py).
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from tiny_runs import SHARED, TINY, make_cfg

from lost_cities.ppo import config as schema
from lost_cities.ppo.episodes import EpisodeStats, FinishedEpisode, summarize
from lost_cities.ppo.gae import per_seat_gae
from lost_cities.ppo.trainer import Trainer

# Its module fixtures are built once a run: under xdist (--dist loadgroup) its tests share a worker.
pytestmark = pytest.mark.xdist_group("train")


@pytest.fixture(scope="module")
def shared_trainer():
    return Trainer.from_config(schema.validate(make_cfg(SHARED)))


@pytest.fixture(scope="module")
def rollout(shared_trainer):
    """One update's rollout with the shared config, and the learned update's metrics."""
    t = shared_trainer
    state = t.init(0)
    run = jax.jit(t.rollout.run)
    coefficient = t.reward.coefficient(jnp.int32(0))
    slots, rows, finished, bootstrap = run(state.params, state.slots, jax.random.PRNGKey(1), coefficient)
    return state, slots, rows, finished, bootstrap, coefficient


# --- configuration -------------------------------------------------------------------

GROUPS = {
    "env": ["single_round", "match3"],
    "reward": ["tanh", "shaped"],
    "critic": ["shared", "omniscient"],
    "opponent": ["static", "league"],
}
COMBOS = [dict(zip(GROUPS, values, strict=True)) for values in itertools.product(*GROUPS.values())]


@pytest.mark.parametrize("combo", COMBOS, ids=lambda c: "-".join(c.values()))
@pytest.mark.slow
def test_every_combination_composes_and_builds_an_update(combo):
    """All 16 compose, validate and trace a whole update.

    Tracing (``eval_shape``) checks every shape and dtype of rollout, GAE and loss
    without XLA compiling each combination; the shared config and
    ``test_tiny_update_runs`` execute updates for real.
    """
    cfg = schema.validate(make_cfg([f"{g}={o}" for g, o in combo.items()] + TINY))
    trainer = Trainer.from_config(cfg)
    state = jax.eval_shape(trainer.init, 0)
    new_state, metrics = jax.eval_shape(trainer.update, state)
    assert jax.tree.map(lambda a: (a.shape, a.dtype), new_state) == jax.tree.map(
        lambda a: (a.shape, a.dtype), state
    )
    assert {"learner/policy_loss", "learner/value_loss", "episode/win", "learner/lr"} <= set(metrics)
    assert ("league/snapshots" in metrics) == (combo["opponent"] == "league")


@pytest.mark.parametrize(
    "override, message",
    [
        ("ppo.lr=fast", "ppo.lr"),
        ("ppo.learning_rate=0.1", "learning_rate"),
        ("reward=sparse", "reward"),
        ("network.activation=swish", "network.activation"),
        ("ppo.gae_lambda=1.0", "never 1"),
        ("ppo.minibatches=7", "must divide"),
        ("reward.scale=-1", "reward.scale"),
        ("env.name=chess", "env.name"),
        ("ppo.total_steps=3000000", "renamed ppo.total_decisions"),
        ("gates.bank=v9", "gates.bank"),
        ("gates.every_updates=-1", "gates.every_updates"),
        ("gates.gates.random.deals=0", "deals must be > 0"),
    ],
)
def test_bad_override_fails_with_a_clear_message(override, message):
    with pytest.raises(Exception, match=message):
        schema.validate(make_cfg([override]))


def test_gae_lambda_defaults_to_the_critics():
    assert Trainer.from_config(make_cfg(["critic=omniscient", *TINY])).gae_lambda == 0.95
    assert Trainer.from_config(make_cfg(["critic=shared", *TINY])).gae_lambda == 0.98
    assert Trainer.from_config(make_cfg(["ppo.gae_lambda=0.9", *TINY])).gae_lambda == 0.9


# --- GAE -----------------------------------------------------------------------------


def reference_gae(values, rewards, dones, bootstrap, gamma, lam):
    """Textbook single-seat GAE, written as a plain loop."""
    advantages, next_adv, next_value = [], 0.0, bootstrap
    for t in reversed(range(len(values))):
        if dones[t]:
            next_adv, next_value = 0.0, 0.0
        delta = rewards[t] + gamma * next_value - values[t]
        next_adv = delta + gamma * lam * next_adv
        next_value = values[t]
        advantages.append(next_adv)
    return advantages[::-1]


def run_gae(values, movers, rewards, dones, bootstrap, gamma=0.9, lam=0.8):
    adv, ret = per_seat_gae(
        jnp.asarray(values, jnp.float32)[:, None],
        jnp.asarray(movers, jnp.int32)[:, None],
        jnp.asarray(rewards, jnp.float32)[:, None, :],
        jnp.asarray(dones, bool)[:, None],
        jnp.asarray(bootstrap, jnp.float32)[None, :],
        gamma,
        lam,
    )
    return np.asarray(adv[:, 0]), np.asarray(ret[:, 0])


def test_gae_termination_bootstraps_zero():
    values = [0.5, 0.2, -0.1]
    adv, ret = run_gae(values, [0, 0, 0], [[0, 0], [0, 0], [1, -1]], [0, 0, 1], [7.0, -7.0])
    np.testing.assert_allclose(adv, reference_gae(values, [0, 0, 1], [0, 0, 1], 99.0, 0.9, 0.8), rtol=1e-5)
    assert adv[-1] == pytest.approx(1 - (-0.1))  # the bootstrap 7.0 is ignored
    np.testing.assert_allclose(ret, adv + np.asarray(values), rtol=1e-5)


def test_gae_cut_bootstraps_with_the_value_at_the_cut():
    values = [0.5, 0.2, -0.1]
    adv, _ = run_gae(values, [0, 0, 0], [[0, 0]] * 3, [0, 0, 0], [0.7, -0.7])
    np.testing.assert_allclose(adv, reference_gae(values, [0, 0, 0], [0, 0, 0], 0.7, 0.9, 0.8), rtol=1e-5)
    assert adv[-1] == pytest.approx(0.9 * 0.7 + 0.1)


def test_gae_several_episodes_in_one_rollout_do_not_leak():
    values = [0.1, 0.3, 0.2, 0.4, -0.2]
    rewards = [0, 1, 0, 0, 0]
    dones = [0, 1, 0, 0, 1]
    adv, _ = run_gae(values, [0] * 5, [[r, -r] for r in rewards], dones, [5.0, -5.0])
    np.testing.assert_allclose(adv, reference_gae(values, rewards, dones, 5.0, 0.9, 0.8), rtol=1e-5)
    # The first episode's advantages do not depend on the second episode's values.
    adv2, _ = run_gae([0.1, 0.3, 9.0, 9.0, 9.0], [0] * 5, [[r, -r] for r in rewards], dones, [5.0, -5.0])
    np.testing.assert_allclose(adv[:2], adv2[:2], rtol=1e-5)


def test_gae_self_play_chains_each_seat_through_its_own_decisions():
    """Alternating movers: seat 0 at t=0,2 and seat 1 at t=1,3; seat 1's last move ends it.

    Seat 0's final reward (-1, from seat 1's ending move) reaches seat 0's decision t=2,
    and each seat's advantage chains to its own next value, never the opponent's.
    """
    values = [0.1, 0.2, 0.3, 0.4]
    rewards = [[0, 0], [0, 0], [0, 0], [-1, 1]]
    adv, _ = run_gae(values, [0, 1, 0, 1], rewards, [0, 0, 0, 1], [0.0, 0.0], gamma=1.0, lam=1.0)
    np.testing.assert_allclose(adv, [-1 - 0.1, 1 - 0.2, -1 - 0.3, 1 - 0.4], rtol=1e-5)
    # Cut instead of ending: seat 0 (to move at the cut) gets V, seat 1 gets -V.
    adv, _ = run_gae(values, [0, 1, 0, 1], [[0, 0]] * 4, [0, 0, 0, 0], [0.5, -0.5], gamma=1.0, lam=0.0)
    np.testing.assert_allclose(adv, [0.3 - 0.1, 0.4 - 0.2, 0.5 - 0.3, -0.5 - 0.4], rtol=1e-5)


# --- rollout -------------------------------------------------------------------------


@pytest.mark.slow
def test_every_scanned_step_is_a_real_learner_decision(rollout, shared_trainer):
    state, slots, rows, finished, _, _ = rollout
    assert rows.action.shape == (128, 8)
    legal = np.take_along_axis(np.asarray(rows.mask), np.asarray(rows.action)[..., None], -1)[..., 0]
    assert legal.all(), "a scanned step acted on a finished or padded state"
    assert np.asarray(rows.mask).any(-1).all()
    # Against the fixed bot the learner always acts for its own seat, from the first row on.
    fixed = ~shared_trainer.opponents.is_self[np.asarray(state.slots.opponent)]
    assert (np.asarray(rows.mover[0])[fixed] == np.asarray(state.slots.learner_seat)[fixed]).all()
    # Episodes ended inside the rollout and play continued in the same env.
    done = np.asarray(rows.done)
    assert done.sum() >= 2
    t, n = np.argwhere(done[:-1])[0]
    assert rows.obs[t + 1, n].sum() > 0
    # After a reset the next row is a fresh deal: none of my cards on an expedition, at most
    # the opponent's opening move played (plies this round, obs[422] * 400, at most 1).
    env = shared_trainer.env
    fresh = np.asarray(rows.obs[t + 1, n])
    assert not fresh[: 60 * 7].reshape(60, 7)[:, 1].any() and fresh[422] * 400 <= 1
    assert env.obs_dim == rows.obs.shape[-1]


@pytest.mark.slow
def test_shaped_episode_return_telescopes(rollout, shared_trainer):
    """Summed shaped rewards = tanh(margin / scale) + coef * (Phi(end) - Phi(start)) / scale.

    In one round Phi(start) = 0 and Phi(end) = the final margin; the identity holds for
    every finished episode only if no transition's shaping is lost or counted twice
    (opponent replies, resets inside the scan).
    """
    _, _, _, finished, _, coefficient = rollout
    reward = shared_trainer.reward
    done = np.asarray(finished.done)
    margin = np.asarray(finished.margin)[done]
    expected = np.tanh(margin / reward.scale) + float(coefficient) * margin / reward.scale
    np.testing.assert_allclose(np.asarray(finished.stats.ret)[done], expected, rtol=1e-4, atol=1e-5)
    assert float(coefficient) == pytest.approx(reward.coef)


@pytest.mark.slow
def test_finished_episode_stats_are_consistent(rollout):
    _, _, _, finished, _, _ = rollout
    done = np.asarray(finished.done)
    s = jax.tree.map(lambda x: np.asarray(x)[done], finished.stats)
    assert (s.plies >= 44).all()
    assert (s.decisions >= 22).all() and (s.decisions <= s.plies).all()
    assert (s.plays + s.discards == s.decisions).all()


def test_episode_metrics_average_finished_episodes_only():
    """Two envs, several episodes each; rows where nothing ended must not count."""
    done = jnp.array([[0, 1], [1, 0], [0, 1], [1, 0]], bool)
    opponent = jnp.array([[0, 1], [0, 0], [0, 1], [0, 0]], jnp.int32)
    margin = jnp.array([[99.0, 10.0], [-4.0, 99.0], [99.0, 6.0], [0.0, 99.0]])
    stats = EpisodeStats.zeros((4, 2)).replace(
        ret=jnp.where(done, margin / 10, 123.0),
        plies=jnp.array([[1, 50], [60, 1], [1, 70], [80, 1]]),
        decisions=jnp.array([[1, 20], [30, 1], [1, 40], [40, 1]]),
        plays=jnp.array([[1, 10], [15, 1], [1, 10], [10, 1]]),
        pile_draws=jnp.array([[1, 2], [0, 1], [1, 4], [0, 1]]),
        max_steps=jnp.array([[1, 0], [0, 1], [1, 0], [1, 1]], bool),
    )
    out = summarize(
        FinishedEpisode(done, opponent, stats, margin), ("random", "self"), np.array([False, True])
    )
    assert float(out["episode/count"]) == 4
    assert float(out["episode/length"]) == pytest.approx((50 + 60 + 70 + 80) / 4)
    assert float(out["episode/margin"]) == pytest.approx((10 - 4 + 6 + 0) / 4)
    assert float(out["episode/win"]) == pytest.approx(2 / 4)
    assert float(out["episode/draw"]) == pytest.approx(1 / 4)
    assert float(out["episode/max_steps_rate"]) == pytest.approx(1 / 4)
    assert float(out["episode/play_rate"]) == pytest.approx((10 / 20 + 15 / 30 + 10 / 40 + 10 / 40) / 4)
    assert float(out["episode/discard_draw_rate"]) == pytest.approx((2 / 20 + 0 + 4 / 40 + 0) / 4)
    assert float(out["episode/random/count"]) == 2 and float(out["episode/self/count"]) == 2
    assert float(out["episode/random/margin"]) == pytest.approx((-4 + 0) / 2)
    assert float(out["episode/win_vs_fixed"]) == pytest.approx(0.0)  # self-play episodes left out


# --- one update --------------------------------------------------------------------


@pytest.mark.slow
def test_one_update_moves_the_policy_toward_the_advantage_and_the_value_toward_the_return(shared_trainer):
    """Learning, measured outside the loss: the update's own batch (the rollout replayed
    with the update's key) scored before the update and a tenth of the way along it.

    A tenth: Adam's first step moves every weight by about the learning rate, which can
    overshoot the critic's targets; the direction is what the loss and its gradient decide."""
    t = shared_trainer
    before = t.init(0)
    after, _ = jax.jit(t.update)(before)
    _, k_rollout, _ = jax.random.split(before.key, 3)
    coefficient = t.reward.coefficient(before.decisions)
    _, rows, _, bootstrap = jax.jit(t.rollout.run)(before.params, before.slots, k_rollout, coefficient)
    advantage, returns = per_seat_gae(
        rows.value, rows.mover, rows.reward, rows.done, bootstrap, t.cfg.ppo.gamma, t.gae_lambda
    )

    def score(params):
        logits, value = t.network.apply(params, rows.obs, rows.privileged)
        log_probs = jax.nn.log_softmax(jnp.where(rows.mask, logits, -jnp.inf))
        return jnp.take_along_axis(log_probs, rows.action[..., None], axis=-1)[..., 0], value

    logp_before, value_before = score(before.params)
    logp_after, value_after = score(jax.tree.map(lambda a, b: a + 0.1 * (b - a), before.params, after.params))
    np.testing.assert_allclose(logp_before, rows.logp, atol=1e-4)  # the batch the update saw
    normalized = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    assert float(jnp.mean(normalized * (logp_after - logp_before))) > 0
    assert float(jnp.mean((value_after - returns) ** 2)) < float(jnp.mean((value_before - returns) ** 2))
