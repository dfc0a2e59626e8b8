"""The search's labels (lost_cities/improvement/labels.py) and the student fitted to them
(distill.py), on a tiny network in one round."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from omegaconf import OmegaConf

from lost_cities.envs import make as make_env
from lost_cities.improvement.distill import Distiller, full_target, init_params
from lost_cities.improvement.labels import Labeller, own_decisions
from lost_cities.networks.critic.shared import SharedCritic
from lost_cities.networks.nets import build_network
from lost_cities.policies import make_policy
from lost_cities.search.config import load_preset

pytestmark = pytest.mark.xdist_group("improvement_labels")  # one worker builds the module's fixtures once

GAMES, PLIES = 4, 6


@pytest.fixture(scope="module")
def tiny():
    env = make_env("single_round")
    critic = SharedCritic(gae_lambda=0.0)
    cfg = OmegaConf.create(
        {"_target_": "lost_cities.networks.nets.ActorCritic", "hidden": [16], "activation": "relu"}
    )
    network = build_network(cfg, critic)
    params = init_params(env, network, critic, jax.random.PRNGKey(3))
    return env, network, params


def label(tiny, temperature=2.0, play="sample", escalate=(0.0, 0), **knobs):
    env, network, params = tiny
    search = load_preset("fast", worlds=4, candidates=3, **knobs)
    labeller = Labeller(env, network, search, GAMES, PLIES, temperature, play, escalate=escalate)
    games = labeller.init(jax.random.PRNGKey(0))
    return labeller, games, jax.device_get(labeller.chunk(params, games))


@pytest.fixture(scope="module")
def labelled(tiny):
    """The loop's teacher settings (prior 2 per nat, temperature 2): one compile for the module."""
    return label(tiny, prior_points=2.0)


@pytest.mark.slow
def test_labels_are_the_search_over_the_champions_candidates(tiny, labelled):
    env, network, params = tiny
    _, _, (_, labels) = labelled
    n = GAMES * PLIES
    assert labels["obs"].shape == (n, env.obs_dim) and labels["target"].shape == (n, 3)
    np.testing.assert_allclose(labels["target"].sum(axis=1), 1.0, rtol=1e-5)
    rows = np.arange(n)
    assert labels["mask"][rows, labels["label"]].all()  # the search's move is legal
    assert labels["mask"][rows[:, None], labels["actions"]][labels["target"] > 0].all()  # so is every target
    # the first candidate is the champion's greedy move at the stored observation
    logits = np.asarray(network.apply(params, jnp.asarray(labels["obs"]), method="logits"))
    greedy = np.where(labels["mask"], logits, -np.inf).argmax(axis=1)
    np.testing.assert_array_equal(labels["base"], greedy)
    np.testing.assert_array_equal(labels["actions"][:, 0], labels["base"])
    # the teacher's gain is that of its move over the champion's: none where it keeps it
    kept = labels["label"] == labels["base"]
    assert (labels["gain"][kept] == 0).all()
    assert (labels["gain"][~kept] > 0).all()  # it leaves the champion only for a gain (gate_points >= 0)


@pytest.mark.slow
def test_escalation_re_judges_one_challenger_in_the_positions_nearest_its_gate(tiny):
    """With ``escalate=(share, worlds)`` the same positions (the champion plays them) get the
    same first scores; then, of each ply's games, ``share`` are judged again: only the best
    challenger's gain changes (the target's other logits keep their differences), and the
    label stays the champion's move or becomes that challenger only for a gain."""
    _, _, (_, plain) = label(tiny, play="champion", prior_points=2.0)
    _, _, (_, more) = label(tiny, play="champion", prior_points=2.0, escalate=(0.5, 8))
    np.testing.assert_array_equal(plain["obs"], more["obs"])
    np.testing.assert_array_equal(plain["actions"], more["actions"])
    logits = [np.log(np.where(t > 0, t, np.nan)) for t in (plain["target"], more["target"])]
    shift = logits[1] - logits[0]  # a constant per position where no candidate's gain changed
    moved = np.abs(shift - np.nanmedian(shift, axis=1, keepdims=True)) > 1e-4
    per_ply = moved.any(axis=1).reshape(PLIES, GAMES).sum(axis=1)
    assert per_ply.max() <= GAMES // 2 and per_ply.sum() > 0  # the share, and the worlds did something
    assert (moved.sum(axis=1) <= 1).all()  # one candidate per position: the challenger (a pair: both move)
    kept = more["label"] == more["base"]
    assert (more["gain"][kept] == 0).all() and (more["gain"][~kept] > 0).all()
    turned = more["label"] != plain["label"]
    assert not (turned & ~moved.any(axis=1)).any()  # a label turns only where judged again


@pytest.mark.slow
def test_a_colder_target_concentrates_on_the_best_candidate(tiny, labelled):
    _, _, (_, warm) = labelled
    _, _, (_, cold) = label(tiny, temperature=1e-3, prior_points=2.0)
    assert cold["target"].max(axis=1).mean() > 0.99
    assert warm["target"].max(axis=1).mean() < 0.99


@pytest.mark.slow
def test_chunks_continue_the_same_games(tiny, labelled):
    labeller, games, (after, first) = labelled
    env, _, params = tiny
    _, second = jax.device_get(labeller.chunk(params, after))
    assert not np.array_equal(first["obs"], second["obs"])
    again = jax.device_get(labeller.chunk(params, games)[1])  # the same carry gives the same labels
    for name in first:
        np.testing.assert_array_equal(first[name], again[name])


def test_full_target_spreads_soft_targets_and_one_hots_the_label():
    actions = jnp.array([[5, 9, 2]])
    target = jnp.array([[0.5, 0.3, 0.2]])
    soft = full_target(actions, target, jnp.array([9]), "soft")
    assert soft.shape == (1, 96) and float(soft[0, 5]) == 0.5 and float(soft[0, 2]) == pytest.approx(0.2)
    assert float(soft.sum()) == pytest.approx(1.0)
    hard = full_target(actions, target, jnp.array([9]), "hard")
    assert float(hard[0, 9]) == 1.0 and float(hard.sum()) == 1.0


@pytest.mark.parametrize("targets", ["soft", "hard"])
@pytest.mark.slow
def test_the_student_learns_the_labels(tiny, labelled, targets):
    env, network, params = tiny
    _, _, (_, labels) = labelled
    labels = jax.tree.map(jnp.asarray, labels)
    distiller = Distiller(network, targets, 3e-2, 30, 8, GAMES * PLIES)
    state = distiller.init(
        init_params(env, network, SharedCritic(gae_lambda=0.0), jax.random.PRNGKey(9)), jax.random.PRNGKey(1)
    )
    before = distiller.score(state.params, labels)
    for _ in range(30):
        state, _ = distiller.epoch(state, labels)
    after = distiller.score(state.params, labels)
    assert float(after["cross_entropy"]) < float(before["cross_entropy"]) - 0.5
    assert float(after["accuracy"]) > float(before["accuracy"])
    assert int(state.epoch) == 30


@pytest.mark.slow
def test_an_opponent_mix_plays_its_seat_and_only_the_champions_side_is_labelled(tiny):
    """``generate.opponents``: a mix opponent makes its seat's moves (here every game's, share
    1), and those decisions are marked not the champion's own, so the chunk drops them."""
    env, network, params = tiny
    expert = make_policy("heuristic_expert", env)
    search = load_preset("fast", worlds=2, candidates=2, prior_points=2.0)
    labeller = Labeller(env, network, search, GAMES, PLIES, 2.0, "sample", opponents=((expert, 1.0),))
    games = labeller.init(jax.random.PRNGKey(0))
    assert (np.asarray(games.opponent) == 1).all()
    ply = jax.jit(lambda games, key: labeller._ply(params, games, key))
    theirs_seen = 0
    for t in range(PLIES):
        after, labels = ply(games, jax.random.PRNGKey(t))
        mover = jax.vmap(env.to_move)(games.states)
        theirs = np.asarray(mover == games.seat)
        np.testing.assert_array_equal(np.asarray(labels["own"]), ~theirs)
        moves = jax.vmap(expert)(games.states, jax.random.split(jax.random.PRNGKey(0), GAMES))  # no draws
        stepped, _, done = jax.vmap(env.step)(games.states, moves)
        for g in np.flatnonzero(theirs & ~np.asarray(done)):  # the expert's move was played
            for a, b in zip(jax.tree.leaves(stepped), jax.tree.leaves(after.states), strict=True):
                np.testing.assert_array_equal(np.asarray(a)[g], np.asarray(b)[g])
        theirs_seen += int(theirs.sum())
        games = after
    assert theirs_seen == GAMES * PLIES // 2  # the seats alternate within a round
    kept = own_decisions({"label": np.arange(4), "own": np.array([True, False, True, False])})
    np.testing.assert_array_equal(kept["label"], [0, 2])
    assert "own" not in kept


def test_an_opponent_mix_deals_each_game_its_opponent_by_share(tiny):
    env, network, _ = tiny
    mix = ((make_policy("heuristic_expert", env), 0.25), (make_policy("random", env), 0.25))
    labeller = Labeller(env, network, load_preset("fast"), 20_000, 1, 2.0, "sample", opponents=mix)
    opponent, seat = jax.device_get(labeller._draw(jax.random.PRNGKey(0)))
    np.testing.assert_allclose(np.bincount(opponent, minlength=3) / 20_000, [0.5, 0.25, 0.25], atol=0.02)
    assert abs(seat.mean() - 0.5) < 0.02
    for bad in (((mix[0][0], 0.0),), ((mix[0][0], 0.7), (mix[1][0], 0.7))):
        with pytest.raises(ValueError, match="generate.opponents"):
            Labeller(env, network, load_preset("fast"), 4, 1, 2.0, "sample", opponents=bad)


@pytest.mark.slow
def test_the_judge_costs_rollouts_only_where_the_label_leaves_the_champion(tiny):
    """:func:`judged_gains`: a label that keeps the champion's move gains exactly 0; one that
    leaves it is judged in fresh worlds (a finite gain, some nonzero); positions come in
    whole plies of ``games``."""
    from lost_cities.improvement.judge import judged_gains, summary

    env, network, params = tiny
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(5), 2 * GAMES))
    closed = load_preset("fast", worlds=4, candidates=3, gate_points=1e6)
    kept = Labeller(env, network, closed, GAMES, 1, 2.0, "sample")
    assert (judged_gains(kept, params, states, jax.random.PRNGKey(0), 4) == 0).all()
    open_gate = load_preset("fast", worlds=4, candidates=3, gate_points=-1e6, gate_z=-1e6)
    left = Labeller(env, network, open_gate, GAMES, 1, 2.0, "sample")
    gains = judged_gains(left, params, states, jax.random.PRNGKey(0), 4)
    assert np.isfinite(gains).all() and (gains != 0).any()
    assert summary(gains)["teacher/judged_positions"] == 2 * GAMES
    with pytest.raises(ValueError, match="a multiple of generate.games=4"):
        judged_gains(left, params, jax.tree.map(lambda x: x[:3], states), jax.random.PRNGKey(0), 4)
    for hand in ("real", "uniform"):  # either judge's worlds serve it
        assert np.isfinite(judged_gains(left, params, states, jax.random.PRNGKey(0), 4, hand)).all()
    with pytest.raises(ValueError, match="hand='told'"):
        judged_gains(left, params, states, jax.random.PRNGKey(0), 4, "told")


def test_the_real_hand_judge_keeps_the_opponents_hand_and_deals_only_the_unseen_deck():
    """:func:`real_hand_world`: the opponent's hand is the real one, the mover sees exactly what it
    saw, and the undrawn deck (and, in a match, the later rounds) is dealt afresh; a uniform world
    deals the opponent's unknown hand afresh too."""
    from lost_cities.game.engine import LOC_HAND
    from lost_cities.game.views import current_round
    from lost_cities.improvement.judge import real_hand_world
    from lost_cities.search.determinize import determinize

    env = make_env("match3")
    state = env.init(jax.random.PRNGKey(2))
    for step in range(9):  # a few moves in: the opponent's hand holds cards drawn from the deck
        legal = np.flatnonzero(np.asarray(env.legal_mask(state)))
        state = env.step(state, int(legal[step % len(legal)]))[0]
    real = current_round(state)
    opponent = LOC_HAND + 1 - int(real.to_move)
    mover = int(real.to_move)
    moved_deck, moved_hand = 0, 0
    for k in range(8):
        world = real_hand_world(jax.random.PRNGKey(k), state)
        round_ = current_round(world)
        np.testing.assert_array_equal(np.asarray(round_.loc) == opponent, np.asarray(real.loc) == opponent)
        np.testing.assert_array_equal(env.observe(world, mover), env.observe(state, mover))
        moved_deck += int((np.asarray(round_.loc) != np.asarray(real.loc)).any())
        uniform = current_round(determinize(jax.random.PRNGKey(k), state))
        moved_hand += int((np.asarray(uniform.loc == opponent) != np.asarray(real.loc == opponent)).any())
    assert moved_deck == 8 and moved_hand >= 7
