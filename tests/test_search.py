"""The determinized search: its worlds come from the mover's information set only, and
its decisions cannot depend on the true hidden cards; plus its parts (candidates, the
gate, the match-terms value) on hand-made inputs, and legal play in a duplicate run."""

import dataclasses
from importlib import resources
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from omegaconf import OmegaConf

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.bots.context import best_legal
from lost_cities.cli.belief import run as run_belief
from lost_cities.evaluation import deal_bank, duplicate_evaluate
from lost_cities.export.belief import export_onnx
from lost_cities.game.cards import HAND_SIZE, N_ACTIONS, N_CARDS
from lost_cities.game.engine import LOC_HAND, LOC_KNOWN, legal_action_mask, reset_from_order
from lost_cities.game.match import match_legal_action_mask, match_reset, match_step
from lost_cities.game.sampling import uniform_legal_action
from lost_cities.models.base import shipped_model
from lost_cities.obs.v1 import observation
from lost_cities.obs.v2 import match_observation
from lost_cities.search import (
    BOT_SCORES,
    SearchConfig,
    determinize,
    expert_scores,
    load_preset,
    match_value,
    prior_bonus,
    search_decision,
    search_policy,
    select,
    top_candidates,
    unseen_cards,
)
from lost_cities.search import belief as belief_module
from lost_cities.search import config as search_config

EXPERT = make("heuristic_expert")
PRESETS = Path(__file__).resolve().parents[1] / "conf" / "search"  # this checkout's presets


def belief_command(**settings):
    """``python -m lost_cities.belief`` with ``settings`` over conf/cli/belief.yaml's defaults."""
    defaults = OmegaConf.load(resources.files("lost_cities.conf.cli") / "belief.yaml")
    run_belief(OmegaConf.merge(defaults, settings))


def _cfg(**knobs):
    return load_preset("default", PRESETS, **knobs)


# A round State's fields that are public (both seats see them), besides the recent moves.
PUBLIC_ROUND_FIELDS = (
    "pile_size",
    "exp_top",
    "exp_sum",
    "exp_handshakes",
    "exp_count",
    "deck_ptr",
    "plies",
    "done",
)
GAMES = 12
PLIES = 150  # past the first round boundary for every game


@pytest.fixture(scope="module")
def match_states():
    """MatchStates met in play: a driver mixing uniform random moves (which draw from the
    discard piles, so the opponent holds known cards) with the expert's moves."""

    def one_ply(states, key):
        move_key, coin_key = jax.random.split(key)
        masks = jax.vmap(match_legal_action_mask)(states)
        random_moves = jax.vmap(uniform_legal_action)(jax.random.split(move_key, GAMES), masks)
        expert_moves = jax.vmap(EXPERT)(states, jax.random.split(coin_key, GAMES))
        moves = jnp.where(jax.random.bernoulli(coin_key, 0.4, (GAMES,)), random_moves, expert_moves)
        next_states, _, _ = jax.vmap(match_step)(states, moves)
        return next_states, states

    states = jax.vmap(match_reset)(jax.random.split(jax.random.PRNGKey(7), GAMES))
    _, record = jax.jit(lambda s: jax.lax.scan(one_ply, s, jax.random.split(jax.random.PRNGKey(8), PLIES)))(
        states
    )
    flat = jax.tree.map(lambda x: x.reshape((PLIES * GAMES,) + x.shape[2:]), record)
    live = ~np.asarray(flat.round.done)
    return jax.tree.map(lambda x: x[np.flatnonzero(live)], flat)


def _take(states, index):
    return jax.tree.map(lambda x: x[index], states)


def _sorted_hand(loc, seat):
    return np.flatnonzero((loc == LOC_HAND + seat) | (loc == LOC_KNOWN + seat)).astype(np.int8)


def test_positions_cover_known_cards_and_every_round(match_states):
    known = np.asarray(match_states.round.loc) >= LOC_KNOWN
    opponent_known = (
        np.asarray(match_states.round.loc) == LOC_KNOWN + 1 - np.asarray(match_states.to_move)[:, None]
    )
    assert opponent_known.any(axis=1).mean() > 0.2 and known.any()
    assert set(np.asarray(match_states.round_idx).tolist()) >= {0, 1}


# ---- worlds ---------------------------------------------------------------------------------------


def _random_belief(moves=8, seed=0, hidden=(32,)):
    """A belief of random weights (its last layer too, which training starts at zero): its
    worlds deal by whatever those say, which is what the checks on the worlds' structure
    and on the decision's invariance need."""
    from lost_cities.search.belief import BeliefNet, LearnedBelief, features

    env = envs.make("match3")
    dim = features(env, env.init(jax.random.PRNGKey(0)), moves).shape[0]
    params = BeliefNet(hidden).init(jax.random.PRNGKey(seed), jnp.zeros((1, dim)), jnp.zeros(1))
    last = params["params"][f"Dense_{len(hidden)}"]
    last["kernel"] = jax.random.normal(jax.random.PRNGKey(seed + 1), last["kernel"].shape) * 0.3
    return LearnedBelief(params, "match3", moves, hidden, {"base": "none"})


@pytest.fixture(scope="module", params=["uniform", "belief"])
def worlds(match_states, request):
    """Four worlds for each of 300 positions: uniform ones, and a (random) belief's."""
    from lost_cities.search.belief import world_sampler

    deal = determinize if request.param == "uniform" else world_sampler(_random_belief())
    index = np.linspace(0, match_states.round_idx.shape[0] - 1, 300).astype(int)
    states = _take(match_states, index)
    keys = jax.random.split(jax.random.PRNGKey(3), 4)
    per_key = jax.jit(jax.vmap(jax.vmap(deal, in_axes=(None, 0)), in_axes=(0, None)))(keys, states)
    return states, per_key  # per_key: leading axes [key, position]


def test_world_gives_the_mover_the_same_observations_and_mask(worlds):
    states, per_key = worlds
    mover = states.to_move
    obs_v1 = jax.vmap(observation)(states.round, mover)
    obs_v2 = jax.vmap(match_observation)(states, mover)
    mask = jax.vmap(match_legal_action_mask)(states)
    for k in range(per_key.round_idx.shape[0]):
        world = _take(per_key, k)
        np.testing.assert_array_equal(jax.vmap(observation)(world.round, mover), obs_v1)
        np.testing.assert_array_equal(jax.vmap(match_observation)(world, mover), obs_v2)
        np.testing.assert_array_equal(jax.vmap(match_legal_action_mask)(world), mask)
        for name in ("round_idx", "carry", "starter"):
            np.testing.assert_array_equal(getattr(world, name), getattr(states, name))
        for name in (*PUBLIC_ROUND_FIELDS, "recent_actions", "recent_cards", "recent_drawn"):
            np.testing.assert_array_equal(getattr(world.round, name), getattr(states.round, name))


def test_world_hidden_cards_are_a_permutation_of_the_unseen_cards(worlds):
    states, per_key = worlds
    changed = 0
    for k in range(per_key.round_idx.shape[0]):
        world = _take(per_key, k)
        for i in range(states.round_idx.shape[0]):
            true_loc = np.asarray(states.round.loc[i])
            loc = np.asarray(world.round.loc[i])
            mover = int(states.to_move[i])
            opponent = 1 - mover
            deck_ptr = int(states.round.deck_ptr[i])
            unseen = np.flatnonzero((true_loc < LOC_HAND) | (true_loc == LOC_HAND + opponent))
            seen = np.setdiff1d(np.arange(N_CARDS), unseen)
            np.testing.assert_array_equal(loc[seen], true_loc[seen])  # public and the mover's own
            # the unseen cards fill exactly the undrawn deck positions and the opponent's unknown slots
            assert sorted(loc[unseen].tolist()) == sorted(true_loc[unseen].tolist())
            assert sorted(loc[loc < LOC_HAND].tolist()) == list(range(deck_ptr, N_CARDS))
            for seat in (0, 1):
                np.testing.assert_array_equal(np.asarray(world.round.hands[i, seat]), _sorted_hand(loc, seat))
            assert len(_sorted_hand(loc, opponent)) == HAND_SIZE
            changed += not np.array_equal(loc, true_loc)
    assert changed > 0.9 * per_key.round_idx.size  # the worlds really are new deals
    # a match world carries no true later deal (nor the current round's original deal)
    assert not np.array_equal(np.asarray(_take(per_key, 0).deal_loc), np.asarray(states.deal_loc))


def test_world_deals_the_unseen_cards_uniformly(match_states):
    """Each unseen card lands in the opponent's hand with probability (unknown slots) /
    (unseen cards): the true hand is not favoured."""
    state = _take(match_states, 40)
    mover = int(state.to_move)
    true_loc = np.asarray(state.round.loc)
    unseen = np.flatnonzero(np.asarray(unseen_cards(state.round, mover)))
    slots = int((true_loc == LOC_HAND + 1 - mover).sum())
    n = 4000
    worlds = jax.jit(jax.vmap(determinize, in_axes=(0, None)))(
        jax.random.split(jax.random.PRNGKey(5), n), state
    )
    in_hand = np.asarray(worlds.round.loc)[:, unseen] == LOC_HAND + 1 - mover
    expected = slots / len(unseen)
    tolerance = 5 * np.sqrt(expected * (1 - expected) / n)
    assert np.abs(in_hand.mean(axis=0) - expected).max() < tolerance
    truly_held = true_loc[unseen] == LOC_HAND + 1 - mover
    assert abs(in_hand[:, truly_held].mean() - expected) < tolerance


# ---- the decision does not depend on the true hidden cards ---------------------------------------------


def _permute_hidden(state, rng):
    """The same information set for the mover, other true hidden cards: the opponent's
    unknown hand and the deck permuted among themselves; later deals and coins replaced."""
    ms = jax.tree.map(np.asarray, state)
    loc = ms.round.loc.copy()
    mover = int(ms.to_move)
    hidden = np.flatnonzero((loc < LOC_HAND) | (loc == LOC_HAND + 1 - mover))
    loc[hidden] = loc[hidden[rng.permutation(len(hidden))]]
    hands = np.stack([_sorted_hand(loc, 0), _sorted_hand(loc, 1)])
    later = np.arange(3) > int(ms.round_idx)
    other = reset_from_order(rng.permutation(N_CARDS))
    return state.replace(
        round=state.round.replace(loc=jnp.asarray(loc), hands=jnp.asarray(hands)),
        deal_loc=jnp.broadcast_to(other.loc, ms.deal_loc.shape),
        deal_hands=jnp.broadcast_to(other.hands, ms.deal_hands.shape),
        coins=jnp.where(later, 1 - ms.coins, ms.coins),
    )


INVARIANCE_CFG = _cfg(worlds=4, candidates=4, gate_points=0.0, gate_z=0.0)


def _decide(cfg, states, key, leaf=None, deal=None):
    decide = jax.jit(
        jax.vmap(
            lambda s, k: search_decision(
                cfg, EXPERT, BOT_SCORES["heuristic_expert"], s, k, leaf=leaf, deal=deal
            ),
            in_axes=(0, None),
        )
    )
    return decide(states, key)


def _fresh_critic_agent(env, seed=0):
    """A checkpoint-like agent with an untrained omniscient critic: its values still depend
    on every hidden card, which is what the no-cheat check needs."""
    from types import SimpleNamespace

    from lost_cities.networks.critic.omniscient import OmniscientCritic
    from lost_cities.networks.nets import ActorCritic

    network = ActorCritic(
        hidden=(16,), activation="relu", critic=OmniscientCritic(0.95, (32,)).module("relu")
    )
    state = env.init(jax.random.PRNGKey(seed))
    params = network.init(
        jax.random.PRNGKey(seed), env.observe(state, 0)[None], env.privileged(state, 0)[None]
    )
    reward = {"scale": 50.0, "coef": 0.2, "floor": 0.05, "anneal_decisions": 1000}
    meta = {
        "critic": {"_target_": "lost_cities.networks.critic.omniscient.OmniscientCritic"},
        "config": {"reward": reward, "ppo": {"total_decisions": 500}},
    }
    return SimpleNamespace(env=env, network=network, params=params, meta=meta)


@pytest.fixture(scope="module")
def invariance_positions(match_states):
    index = np.linspace(0, match_states.round_idx.shape[0] - 1, 48).astype(int)
    states = _take(match_states, index)
    rng = np.random.default_rng(0)
    permuted = [_permute_hidden(_take(states, i), rng) for i in range(len(index))]
    permuted = jax.tree.map(lambda *xs: jnp.stack(xs), *permuted)
    changed = (np.asarray(permuted.round.loc) != np.asarray(states.round.loc)).any(axis=1)
    assert changed.all()
    return states, permuted


@pytest.mark.parametrize("variant", ["plain", "inference", "belief", "confirm", "critic_leaf"])
def test_search_decision_does_not_change_when_the_hidden_cards_are_permuted(
    invariance_positions, variant, full
):
    """Also with worlds kept by the opponent's recent moves (they rebuild its decisions from
    public facts and the world's cards only), and with the opponent's hand dealt by a
    learned belief (it reads the mover's observation and the opponent's placed cards); and
    (``--full``: one more compile each, kept out of the CI budget) with a critic (which
    reads the privileged observation) valuing rollouts cut at a depth: it reads the sampled
    world's cards only; and with the confirmation worlds."""
    from lost_cities.search.belief import world_sampler
    from lost_cities.search.leaf import critic_leaf

    if variant in ("confirm", "critic_leaf") and not full:
        pytest.skip(f"the {variant} variant runs with --full")

    cfg, leaf = INVARIANCE_CFG, None
    if variant == "inference":
        cfg = dataclasses.replace(cfg, inference_pool=3, inference_moves=3)
    if variant == "confirm":
        cfg = dataclasses.replace(cfg, worlds=3, confirm_worlds=3)
    if variant == "critic_leaf":
        cfg = dataclasses.replace(cfg, depth=3, leaf="a checkpoint")
        leaf = critic_leaf(_fresh_critic_agent(envs.make("match3")))
    deal = world_sampler(_random_belief()) if variant == "belief" else None
    states, permuted = invariance_positions
    key = jax.random.PRNGKey(11)
    action, info = _decide(cfg, states, key, leaf, deal)
    action_p, info_p = _decide(cfg, permuted, key, leaf, deal)
    np.testing.assert_array_equal(action_p, action)
    for name in ("values", "confirm_values") if variant == "confirm" else ("values",):
        np.testing.assert_array_equal(info_p[name], info[name])  # every rollout value, too
    assert (np.asarray(info["index"]) != 0).sum() >= 5  # it does search: it leaves the base move


def test_the_invariance_check_catches_a_search_that_reads_the_true_cards(invariance_positions, monkeypatch):
    """The same check on a cheating search (rollouts in the true world) fails: the test has power."""
    from lost_cities.search import inference

    monkeypatch.setattr(inference, "determinize", lambda rng, state: state)
    states, permuted = invariance_positions
    key = jax.random.PRNGKey(11)
    _, info = _decide(INVARIANCE_CFG, states, key)
    _, info_p = _decide(INVARIANCE_CFG, permuted, key)
    assert (np.asarray(info_p["values"]) != np.asarray(info["values"])).any(axis=(1, 2)).mean() > 0.5


def test_the_invariance_check_catches_a_belief_that_reads_the_true_hand(invariance_positions):
    """A belief whose logits favour the opponent's true hand fails the same check."""
    from lost_cities.game.views import current_round, with_round
    from lost_cities.search.belief import believed_round

    def leaking_deal(rng, env_state):
        state = current_round(env_state)
        truly_held = state.loc == LOC_HAND + 1 - state.to_move.astype(jnp.int32)
        world_key, hand_key = jax.random.split(rng)
        dealt = believed_round(hand_key, state, jnp.where(truly_held, 3.0, 0.0))
        return with_round(determinize(world_key, env_state), dealt)

    states, permuted = invariance_positions
    key = jax.random.PRNGKey(11)
    _, info = _decide(INVARIANCE_CFG, states, key, deal=leaking_deal)
    _, info_p = _decide(INVARIANCE_CFG, permuted, key, deal=leaking_deal)
    assert (np.asarray(info_p["values"]) != np.asarray(info["values"])).any(axis=(1, 2)).mean() > 0.5


# ---- a learned belief over the opponent's hand ----------------------------------------------------------


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


def test_an_exported_belief_gives_the_flax_logits(match_states, tmp_path):
    """The web client's search mode runs the belief in onnxruntime: the exported model gives
    what :class:`BeliefNet` gives on the features of positions met in play, for a belief of
    two hidden layers whose every weight and bias is random (none zero, as training starts
    the last layer)."""
    import onnxruntime

    belief = _random_belief(hidden=(32, 16))
    keys = iter(jax.random.split(jax.random.PRNGKey(5), 8))
    params = jax.tree_util.tree_map_with_path(
        lambda path, v: jax.random.normal(next(keys), v.shape) * 0.2 if path[-1].key == "bias" else v,
        belief.params,
    )
    belief = dataclasses.replace(belief, params=params)
    env = envs.make("match3")
    states = _take(match_states, np.linspace(0, match_states.round_idx.shape[0] - 1, 64).astype(int))
    x, prior = jax.jit(
        jax.vmap(lambda s: (belief_module.features(env, s, 8), belief_module.uniform_logit(s)))
    )(states)
    want = np.asarray(belief_module.BeliefNet(belief.hidden).apply(belief.params, x, prior))
    assert np.abs(want - np.asarray(prior)[:, None]).min(axis=1).max() > 0.01  # a correction to every card
    assert len(set(np.asarray(prior).round(4).tolist())) > 5 and np.asarray(x)[:, 512:].any()
    model, _ = export_onnx(belief, tmp_path / "belief.onnx", "random.msgpack")
    session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    got = session.run(["logits"], {"features": np.asarray(x), "prior": np.asarray(prior)})[0]
    assert got.shape == (64, N_CARDS) and got.dtype == np.float32
    np.testing.assert_allclose(got, want, atol=1e-4, rtol=0)


def test_an_exported_belief_has_its_manifest_and_only_match3_exports(tmp_path, capsys):
    """``python -m lost_cities.belief export`` writes the model (opset 17, IR 8, a
    dynamic batch) and the manifest beside it; a belief of another env is refused."""
    import json

    import onnx

    belief = _random_belief()
    source = tmp_path / "random.msgpack"
    belief_module.save(source, belief)
    (tmp_path / "web").mkdir()
    belief_command(action="export", belief=str(source), out=str(tmp_path / "web" / "belief.onnx"))
    assert "belief.onnx" in capsys.readouterr().out
    info = json.loads((tmp_path / "web" / "belief.json").read_text())
    assert info == {
        "format": "lost-cities-belief",
        "version": 1,
        "env": "match3",
        "obs_version": "v2",
        "moves": 8,
        "features_dim": 1472,
        "hidden": [32],
        "inputs": {"features": ["N", 1472], "prior": ["N"]},
        "outputs": {"logits": ["N", 60]},
        "report": {"base": "none"},
        "source": str(source),
    }
    model = onnx.load(str(tmp_path / "web" / "belief.onnx"))
    assert model.ir_version == 8 and [(o.domain, o.version) for o in model.opset_import] == [("", 17)]

    def shapes(values):
        return {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim] for v in values}

    assert shapes(model.graph.input) == info["inputs"] and shapes(model.graph.output) == info["outputs"]
    with pytest.raises(ValueError, match="reads single_round states; the web client plays match3"):
        export_onnx(
            dataclasses.replace(belief, env_name="single_round"), tmp_path / "round.onnx", "round.msgpack"
        )
    with pytest.raises(ValueError, match="must end in .onnx"):
        export_onnx(belief, tmp_path / "belief.bin", "random.msgpack")


# ---- inference from the opponent's last move ----------------------------------------------------------


@pytest.fixture(scope="module")
def expert_plies():
    """``(before, action, by_expert, after)`` of every move of 8 matches that did not end a
    round (so ``after`` holds it as its round's last move): heuristic_expert's moves, and a
    third uniform random ones (which draw from the discard piles, as the expert rarely does)."""

    def one_ply(states, key):
        move_key, coin_key = jax.random.split(key)
        masks = jax.vmap(match_legal_action_mask)(states)
        random_moves = jax.vmap(uniform_legal_action)(jax.random.split(move_key, 8), masks)
        by_expert = jax.random.bernoulli(coin_key, 2 / 3, (8,))
        moves = jnp.where(by_expert, jax.vmap(EXPERT)(states, jax.random.split(key, 8)), random_moves)
        after, _, _ = jax.vmap(match_step)(states, moves)
        return after, (states, moves, by_expert, after)

    states = jax.vmap(match_reset)(jax.random.split(jax.random.PRNGKey(3), 8))
    _, record = jax.jit(lambda s: jax.lax.scan(one_ply, s, jax.random.split(jax.random.PRNGKey(4), 130)))(
        states
    )
    before, moves, by_expert, after = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), record)
    same_round = (np.asarray(after.round_idx) == np.asarray(before.round_idx)) & ~np.asarray(after.round.done)
    keep = np.flatnonzero(same_round & ~np.asarray(before.round.done))
    return _take(before, keep), np.asarray(moves)[keep], np.asarray(by_expert)[keep], _take(after, keep)


def test_the_rebuilt_decision_is_the_state_the_move_was_made_in(expert_plies):
    """``previous_decision`` undoes a move exactly, given the card drawn from the deck (in
    a world it is one of the opponent's unknown cards): every field, the move history one
    move shorter (so rewinds chain), and whether the placed card was known to the other
    seat, except when the pile draw that made it known is older than the history keeps."""
    from lost_cities.search.inference import previous_decision

    before, moves, by_expert, after = expert_plies
    pile_draws = (np.asarray(after.round.recent_drawn[:, 0]) >= 0).sum()
    assert len(moves) > 500 and pile_draws >= 50
    deck_card = jnp.argmax(before.round.loc == before.round.deck_ptr[:, None], axis=1)
    rebuilt = jax.jit(jax.vmap(previous_decision))(after.round, deck_card)
    mover = np.asarray(before.round.to_move)
    card = np.asarray(after.round.recent_cards[:, 0])
    rows = np.arange(len(moves))
    was_known = np.asarray(before.round.loc)[rows, card] == LOC_KNOWN + mover
    in_window = (np.asarray(after.round.recent_drawn)[:, 2::2] == card[:, None]).any(axis=1)
    forgotten = was_known & ~in_window
    assert (was_known & in_window).sum() >= 50  # known cards placed again: their status is rebuilt
    exact = np.asarray(rebuilt.loc)[~forgotten]
    np.testing.assert_array_equal(exact, np.asarray(before.round.loc)[~forgotten])
    loc = np.asarray(rebuilt.loc)[forgotten]
    np.testing.assert_array_equal(loc[np.arange(len(loc)), card[forgotten]], LOC_HAND + mover[forgotten])
    for field in ("hands", "to_move", *PUBLIC_ROUND_FIELDS):
        np.testing.assert_array_equal(getattr(rebuilt, field), getattr(before.round, field), err_msg=field)
    for field in ("recent_actions", "recent_cards", "recent_drawn"):
        np.testing.assert_array_equal(getattr(rebuilt, field)[:, :-1], getattr(before.round, field)[:, :-1])
    replay = jax.jit(jax.vmap(EXPERT))(
        before.replace(round=rebuilt), jax.random.split(jax.random.PRNGKey(0), len(moves))
    )
    np.testing.assert_array_equal(replay[by_expert], moves[by_expert])  # the expert's moves: made again there


@pytest.fixture(scope="module")
def expert_positions():
    """Decisions of 16 expert-vs-expert matches, at least 9 plies into a round."""
    games = 16

    def one_ply(states, key):
        moves = jax.vmap(EXPERT)(states, jax.random.split(key, games))
        return jax.vmap(match_step)(states, moves)[0], states

    states = jax.vmap(match_reset)(jax.random.split(jax.random.PRNGKey(13), games))
    _, record = jax.jit(lambda s: jax.lax.scan(one_ply, s, jax.random.split(jax.random.PRNGKey(14), 120)))(
        states
    )
    flat = jax.tree.map(lambda x: x.reshape((-1,) + x.shape[2:]), record)
    keep = np.flatnonzero(~np.asarray(flat.round.done) & (np.asarray(flat.round.plies) >= 9))
    return _take(flat, keep[::7])


@pytest.mark.parametrize("moves", [1, 4])
def test_worlds_kept_by_inference_explain_the_opponents_moves_more_often(expert_positions, moves):
    """Against the expert, with the expert as the model: the true world explains more of the
    opponent's latest moves than a uniform world does (the evidence is real), and the worlds
    kept from a pool of 4x explain more of them than uniform ones."""
    from lost_cities.search.inference import explained_moves, sample_worlds

    def explained(world, key):
        return explained_moves(world, EXPERT, key, moves)

    def rate(state, key, pool):
        worlds = sample_worlds(key, state, 8, pool, EXPERT, moves)
        keys = jax.random.split(jax.random.fold_in(key, 1), 8)
        return jnp.mean(jax.vmap(explained)(worlds, keys)) / moves

    states = expert_positions
    keys = jax.random.split(jax.random.PRNGKey(5), len(states.round_idx))
    truth = np.asarray(jax.jit(jax.vmap(explained))(states, keys)) / moves
    uniform = np.asarray(jax.jit(jax.vmap(lambda s, k: rate(s, k, 1)))(states, keys))
    kept = np.asarray(jax.jit(jax.vmap(lambda s, k: rate(s, k, 4)))(states, keys))
    assert len(keys) >= 100 and uniform.mean() < 0.8
    assert truth.mean() > uniform.mean() + 0.1 and kept.mean() > uniform.mean() + 0.1


# ---- parts --------------------------------------------------------------------------------------------


def test_critic_leaf_inverts_the_training_return_into_points():
    from lost_cities.search.leaf import margin_of_return

    margins = jnp.array([-250.0, -40.0, -3.0, 0.0, 7.5, 60.0, 300.0])
    for coef in (0.0, 0.2):
        target = jnp.tanh(margins / 50.0) + coef * margins / 50.0
        recovered = jax.vmap(margin_of_return, in_axes=(0, None, None))(target, 50.0, coef)
        tolerance = 1.0 if coef == 0.0 else 1e-3  # tanh is flat out at +-250 points
        np.testing.assert_allclose(recovered, margins, atol=tolerance)


def test_critic_leaf_reads_the_state_it_is_given(match_states):
    """The leaf is the critic's value of the state passed (the sampled world), and moves
    with the margin so far under a shaped reward (its potential is added back)."""
    from lost_cities.search.leaf import critic_leaf

    env = envs.make("match3")
    agent = _fresh_critic_agent(env)
    leaf = jax.jit(critic_leaf(agent), static_argnums=1)
    states = _take(match_states, np.arange(0, 60, 6))
    points = np.array([float(leaf(_take(states, i), 0)) for i in range(10)])
    assert np.all(np.abs(points) < 600.0) and len(np.unique(points)) == 10
    carried = _take(states, 0).replace(carry=jnp.array([30.0, 0.0]))
    assert float(leaf(carried, 0)) != pytest.approx(points[0])
    with pytest.raises(ValueError, match="omniscient critic"):
        critic_leaf(_with_critic(agent, "lost_cities.networks.critic.shared.SharedCritic"))


def _with_critic(agent, name):
    from types import SimpleNamespace

    return SimpleNamespace(**{**vars(agent), "meta": {**agent.meta, "critic": {"_target_": name}}})


def test_expert_scores_rank_the_experts_own_move_first(match_states):
    index = np.arange(0, match_states.round_idx.shape[0], 3)
    states = _take(match_states, index)
    masks = jax.vmap(match_legal_action_mask)(states)
    best = jax.vmap(lambda s, m: best_legal(expert_scores(s), m))(states, masks)
    np.testing.assert_array_equal(
        best, jax.vmap(EXPERT)(states, jax.random.split(jax.random.PRNGKey(0), len(index)))
    )


def test_top_candidates_base_first_then_best_legal_distinct():
    scores = jnp.arange(N_ACTIONS, dtype=jnp.float32)
    legal = jnp.zeros(N_ACTIONS, bool).at[jnp.array([3, 10, 50, 90])].set(True)
    actions, valid = top_candidates(scores, legal, jnp.int32(10), 4)
    assert actions.tolist() == [10, 90, 50, 3] and valid.all()
    actions, valid = top_candidates(scores, legal, jnp.int32(10), 6)
    assert actions[:4].tolist() == [10, 90, 50, 3] and valid.tolist() == [True] * 4 + [False] * 2
    # legal actions the scorer rules out (-inf, e.g. the expert's non-extending pile draws) stay candidates
    actions, valid = top_candidates(
        jnp.where(legal & (jnp.arange(N_ACTIONS) == 3), -jnp.inf, scores), legal, 10, 4
    )
    assert actions.tolist() == [10, 90, 50, 3] and valid.all()


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


def test_match_value_counts_the_carry_the_start_and_the_utility(match_states):
    state = _take(match_states, 0)
    finished = state.round.replace(
        done=jnp.bool_(True),
        exp_sum=jnp.zeros((2, 5), jnp.int8).at[0, 0].set(30),
        exp_count=jnp.zeros((2, 5), jnp.int8).at[0, 0].set(3),
    )  # seat 0 scores 10 this round
    ms = state.replace(round=finished, round_idx=jnp.int32(1), carry=jnp.array([5.0, 20.0]))
    assert float(match_value(ms, finished, 0, 0.0, (0, 0, 0))) == -5.0
    assert float(match_value(ms, finished, 1, 0.0, (0, 0, 0))) == 5.0
    assert float(match_value(ms, finished, 1, 3.0, (0, 0, 0))) == 8.0  # seat 1 will start round 3
    assert float(match_value(ms.replace(round_idx=jnp.int32(2)), finished, 1, 3.0, (0, 0, 0))) == 5.0
    assert float(match_value(ms, finished, 1, 0.0, (0, 10.0, 0))) == pytest.approx(np.tanh(0.5))
    assert float(match_value(finished, finished, 0, 3.0, (0, 0, 0))) == 10.0  # a lone round


def _replayed_values(worlds, actions, keys, policy_of, depth=None):
    """float[W, K]: the searching seat's match points after each candidate, the round played
    on ply by ply, ply ``t`` (after the candidate) by ``policy_of(t, seat to move)``, for at
    most ``depth`` plies (``None``: to the round's end; a cut round: the board as it stands)."""
    from lost_cities.game.engine import step
    from lost_cities.game.views import current_round, with_round
    from lost_cities.search.rollout import match_points

    player = int(current_round(worlds).to_move[0])
    values = np.zeros((keys.shape[0], actions.shape[0]))
    for w in range(keys.shape[0]):
        world = _take(worlds, w)
        for k in range(actions.shape[0]):
            round_state, _, _ = step(current_round(world), actions[k])
            t = 0
            while not bool(round_state.done) and (depth is None or t < depth):
                move = policy_of(t, int(round_state.to_move))(
                    with_round(world, round_state), jax.random.fold_in(keys[w], t)
                )
                round_state, _, _ = step(round_state, move)
                t += 1
            values[w, k] = float(match_points(world, round_state, player, 0.0))
    return values


def _rollout_setup(match_states, index=40, n=2):
    state = _take(match_states, index)
    worlds = jax.vmap(determinize, in_axes=(0, None))(jax.random.split(jax.random.PRNGKey(5), n), state)
    actions, _ = top_candidates(expert_scores(state), match_legal_action_mask(state), EXPERT(state, None), 2)
    return state, worlds, actions, jax.random.split(jax.random.PRNGKey(6), n)


def test_opponent_model_plays_the_other_seat_in_the_rollouts(match_states):
    """``opponent_rollout``: every rollout value equals a ply-by-ply replay in which the
    searching seat moves by the rollout policy and the other seat by the opponent model (to
    the round's end, and cut after an odd number of plies, inside a pair of the rollout's
    loop), and differs from the rollouts where one policy plays both seats."""
    from lost_cities.search import rollout_values

    mine, theirs = EXPERT, make("discard_only")
    state, worlds, actions, keys = _rollout_setup(match_states)
    values = rollout_values(worlds, actions, mine, keys, None, 0.0, (0, 0, 0), opponent=theirs)
    player = int(state.to_move)
    policies = {player: jax.jit(mine), 1 - player: jax.jit(theirs)}
    assert np.array_equal(
        np.asarray(values), _replayed_values(worlds, actions, keys, lambda t, seat: policies[seat])
    )
    cut = rollout_values(worlds, actions, mine, keys, 3, 0.0, (0, 0, 0), opponent=theirs)
    replayed_cut = _replayed_values(worlds, actions, keys, lambda t, seat: policies[seat], depth=3)
    assert np.array_equal(np.asarray(cut), replayed_cut)
    assert not np.array_equal(np.asarray(cut), np.asarray(values))
    one_policy = rollout_values(worlds, actions, mine, keys, None, 0.0, (0, 0, 0))
    assert not np.array_equal(np.asarray(values), np.asarray(one_policy))


def test_next_move_makes_the_searching_seats_next_decision_in_the_rollouts(match_states):
    """``next_move``: the searching seat's first decision after the other seat's reply (ply
    1 of the rollout) is that policy's, every other ply the rollout policy's; with the
    rollout policy itself as ``next_move`` the values are the plain rollouts'."""
    from lost_cities.search import rollout_values

    searched, expert = make("discard_only"), jax.jit(EXPERT)
    _, worlds, actions, keys = _rollout_setup(match_states)
    values = rollout_values(worlds, actions, EXPERT, keys, None, 0.0, (0, 0, 0), next_move=searched)
    replayed = _replayed_values(
        worlds, actions, keys, lambda t, seat: jax.jit(searched) if t == 1 else expert
    )
    assert np.array_equal(np.asarray(values), replayed)
    plain = rollout_values(worlds, actions, EXPERT, keys, None, 0.0, (0, 0, 0))
    assert not np.array_equal(np.asarray(values), np.asarray(plain))
    same = rollout_values(worlds, actions, EXPERT, keys, None, 0.0, (0, 0, 0), next_move=EXPERT)
    assert np.array_equal(np.asarray(same), np.asarray(plain))


def test_presets_load_and_check_their_knobs(tmp_path):
    cfg = _cfg()
    assert isinstance(cfg, SearchConfig) and cfg.worlds >= 1 and cfg.candidates >= 1
    assert _cfg(worlds=3).worlds == 3 and "3 worlds" in _cfg(worlds=3).describe()
    with pytest.raises(ValueError, match="unknown search knobs"):
        _cfg(world=8)
    parsed = search_config.knob_overrides(["worlds=24", "scales=[0, 0, 10]", "belief=null"])
    assert parsed == {"worlds": 24, "scales": [0, 0, 10], "belief": None}
    with pytest.raises(ValueError, match="name=value"):
        search_config.knob_overrides(["worlds"])
    with pytest.raises(ValueError, match="next_move.*depth must be null or >= 2"):
        _cfg(next_move="heuristic_expert", depth=1)
    assert "next move in each by heuristic_expert" in _cfg(next_move="heuristic_expert", depth=2).describe()
    with pytest.raises(ValueError, match="unknown search preset"):
        load_preset("no-such-preset", PRESETS)
    (tmp_path / "partial.yaml").write_text("worlds: 4\n")
    with pytest.raises(ValueError, match="lacks the search knobs"):
        load_preset("partial", tmp_path)
    # A preset builds on another by its defaults list and sets only what it changes.
    assert load_preset("fast", PRESETS) == dataclasses.replace(cfg, worlds=16)
    assert load_preset("strong", PRESETS) == dataclasses.replace(cfg, worlds=48)
    proposed = load_preset("proposed", PRESETS)
    assert proposed == dataclasses.replace(cfg, worlds=64, proposer="bc-ppo-xi6-bal2700.onnx")
    assert shipped_model(proposed.proposer) is not None  # the shipped net it names, from any cwd
    wide_late = load_preset("endgame", PRESETS)  # fast, and a wide search with 8 or fewer cards left
    fast = load_preset("fast", PRESETS)
    assert dataclasses.replace(wide_late, endgame=None) == fast and wide_late.endgame_deck_left == 8
    assert wide_late.endgame_config() == dataclasses.replace(fast, worlds=32, candidates=24, gate_points=0.5)
    proposed_late = load_preset("proposed_endgame", PRESETS)  # proposed, and the same end game
    assert dataclasses.replace(proposed_late, endgame=None) == proposed
    assert proposed_late.endgame == wide_late.endgame
    late = dataclasses.replace(proposed, worlds=32, candidates=24, gate_points=0.5)
    assert proposed_late.endgame_config() == late
    believed = load_preset("belief", PRESETS)  # fast at 32 worlds, the hand dealt by the page's net's belief
    assert dataclasses.replace(believed, belief=None) == dataclasses.replace(fast, worlds=32)
    shipped = belief_module.load(believed.belief, "match3")  # the shipped belief it names, from any cwd
    assert Path(shipped.report["base"]).name == proposed.proposer  # fitted on the page's net's self-play
    assert shipped.report["held_out_loss"] < shipped.report["uniform_loss"]
    (tmp_path / "a.yaml").write_text("defaults: [b, _self_]\nworlds: 2\n")
    (tmp_path / "b.yaml").write_text("defaults: [a, _self_]\n")
    with pytest.raises(ValueError, match="search preset .a.*a cycle"):
        load_preset("a", tmp_path)
    with pytest.raises(ValueError, match="scales"):
        _cfg(scales=(1.0, 2.0))
    with pytest.raises(ValueError, match="set search.depth"):
        _cfg(leaf="outputs/run")
    with pytest.raises(ValueError, match="confirm_worlds"):
        _cfg(confirm_worlds=1)
    for moves in (0, 9):  # a State keeps 8 moves of each seat
        with pytest.raises(ValueError, match="inference_moves"):
            _cfg(inference_moves=moves)
    assert "last 8 moves" in _cfg(inference_pool=2, inference_moves=8).describe()
    assert _cfg(worlds=3, candidates=4, confirm_worlds=5).rollouts() == 22
    assert search_config.conf_dir().name == "search"  # in the shipped lost_cities.conf


def test_batched_decisions_equal_one_game_at_a_time(match_states):
    cfg = dataclasses.replace(INVARIANCE_CFG, worlds=3, candidates=3)
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], cfg)
    states = _take(match_states, np.arange(0, 60, 6))
    keys = jax.random.split(jax.random.PRNGKey(2), 10)
    batched = jax.jit(jax.vmap(policy))(states, keys)
    single = [int(jax.jit(policy)(_take(states, i), keys[i])) for i in range(10)]
    assert np.asarray(batched).tolist() == single


@pytest.mark.parametrize("env_name", ["single_round", "match3"])
def test_search_plays_legal_duplicate_games(env_name):
    env = envs.make(env_name)
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], _cfg(worlds=2, candidates=3))
    deck_orders, coins = deal_bank(2)
    results = duplicate_evaluate(env, policy, EXPERT, deck_orders, coins, jax.random.PRNGKey(0))
    assert results["games"] == 4 and results["max_steps_rate"] == 0.0  # raises on an illegal move


def test_search_of_one_candidate_is_the_base_policy(match_states):
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], _cfg(worlds=1, candidates=1))
    states = _take(match_states, np.arange(0, 200, 7))
    keys = jax.random.split(jax.random.PRNGKey(1), states.round_idx.shape[0])
    np.testing.assert_array_equal(jax.vmap(policy)(states, keys), jax.vmap(EXPERT)(states, keys))


def test_round_state_search_is_legal(match_states):
    rounds = _take(match_states, np.arange(0, 100, 10)).round
    cfg = _cfg(worlds=2, candidates=3, gate_points=0.0, gate_z=0.0)
    policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], cfg)
    actions = jax.vmap(policy)(rounds, jax.random.split(jax.random.PRNGKey(4), 10))
    masks = jax.vmap(legal_action_mask)(rounds)
    assert np.take_along_axis(np.asarray(masks), np.asarray(actions)[:, None], axis=1).all()


# ---- the end game's own knobs ---------------------------------------------------------------------------


def _deck_left(states):
    return N_CARDS - np.asarray(states.round.deck_ptr, int)


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
    states = _take(match_states, np.arange(0, match_states.round_idx.shape[0], 3))
    late = _deck_left(states) <= 8
    assert 5 <= late.sum() < late.size - 5  # both phases occur
    keys = jax.random.split(jax.random.PRNGKey(0), late.size)
    expected = np.where(late, jax.vmap(random_bot)(states, keys), jax.vmap(EXPERT)(states, keys))
    one = jax.jit(policy)
    assert [int(one(_take(states, i), keys[i])) for i in range(late.size)] == expected.tolist()

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


def test_endgame_knobs_are_checked_and_build_the_late_search(match_states):
    endgame = {"deck_left": 6, "worlds": 3, "candidates": 5, "gate_points": 0.0}
    cfg = _cfg(worlds=2, candidates=2, endgame=endgame)
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
    # The search with an end game: its late decisions are the late config's, the others the opening's.
    states = _take(match_states, np.arange(0, match_states.round_idx.shape[0], 4))
    keys = jax.random.split(jax.random.PRNGKey(5), states.round_idx.shape[0])
    late_rows = _deck_left(states) <= 6

    def actions_of(config):
        policy = search_policy(EXPERT, BOT_SCORES["heuristic_expert"], config)
        return np.asarray(jax.jit(jax.vmap(policy))(states, keys))

    actions = actions_of(cfg)
    for phase, rows in ((late, late_rows), (dataclasses.replace(cfg, endgame=None), ~late_rows)):
        np.testing.assert_array_equal(actions[rows], actions_of(phase)[rows])


# ---- specs: search:<base> wherever a policy is resolved -----------------------------------------------


@pytest.fixture
def checkout_presets(monkeypatch):
    """Presets from this checkout (an installed lost_cities.conf may be another checkout's)."""
    monkeypatch.setattr(search_config, "conf_dir", lambda: PRESETS)


def test_make_policy_and_agents_load_accept_search_specs(checkout_presets, match_states, capsys):
    from lost_cities import agents
    from lost_cities.policies import make_policy

    env = envs.make("match3")
    policy = make_policy("search:heuristic_expert", env)
    assert "worlds x" in capsys.readouterr().out  # the cost per decision is printed
    state = _take(match_states, 5)
    action = int(jax.jit(policy)(state, jax.random.PRNGKey(0)))
    assert bool(match_legal_action_mask(state)[action])
    agent = agents.load("search:heuristic_expert")
    assert agent.act(state, int(state.to_move), rng=jax.random.PRNGKey(0)) == action
    with pytest.raises(ValueError, match="unknown search preset"):
        make_policy("search/no-such-preset:heuristic_expert", env)
    with pytest.raises(ValueError, match="neither an existing checkpoint"):
        make_policy("search:no_such_bot", env)


def test_a_network_proposes_the_candidates_by_its_logits(tmp_path, match_states):
    """``proposer=<.onnx>``: the network's logits rank the challengers of the base move. The
    test network's logits are the expert's action values, so it proposes what the expert's
    own scores do, and a copy with the logits negated scores every legal action the other
    way (the proposer reads the model it is given); an unknown proposer is refused."""
    import action_fixture

    from lost_cities.policies import _base

    env = envs.make("match3")
    model = action_fixture.expert_model(tmp_path / "expert.onnx")
    policy, by_logits = _base("heuristic_balanced", env, proposer=str(model))
    _, by_values = _base("heuristic_balanced", env, proposer="heuristic_expert")
    states = _take(match_states, np.arange(0, match_states.round_idx.shape[0], 5))
    bases = jax.vmap(policy)(states, jax.random.split(jax.random.PRNGKey(0), states.round_idx.shape[0]))

    def candidates(scores):
        masks = jax.vmap(match_legal_action_mask)(states)
        return jax.vmap(lambda s, m, b: top_candidates(scores(s), m, b, 4))(states, masks, bases)

    (logit_actions, logit_valid), (value_actions, value_valid) = candidates(by_logits), candidates(by_values)
    np.testing.assert_array_equal(logit_valid, value_valid)
    np.testing.assert_array_equal(
        np.where(logit_valid, logit_actions, -1), np.where(value_valid, value_actions, -1)
    )
    assert (logit_actions[:, 1] != logit_actions[:, 0]).all()  # challengers, not the base move again
    upside_down = action_fixture.expert_model(tmp_path / "upside-down.onnx", logit_per_point=-1.0)
    _, by_negated = _base("heuristic_balanced", env, proposer=str(upside_down))
    masks = np.asarray(jax.vmap(match_legal_action_mask)(states))
    scores, negated = (np.asarray(jax.vmap(f)(states)) for f in (by_logits, by_negated))
    np.testing.assert_allclose(negated[masks], -scores[masks], rtol=1e-5, atol=1e-4)
    assert np.ptp(scores[masks]) > 1.0  # the logits are not all one value
    with pytest.raises(ValueError, match="unknown search proposer 'no_such'.*checkpoint dir or exported"):
        _base("heuristic_balanced", env, proposer="no_such")


@pytest.mark.parametrize("env_name", ["single_round", "match3"])
def test_duplicate_computes_each_policy_on_its_movers_only_with_the_same_games(env_name):
    """The compacted evaluation loop (a policy computed only where it moves) plays exactly
    the games of the loop that computes both policies for every game."""
    from lost_cities.evaluation import play_duplicate
    from lost_cities.evaluation.duplicate import mover_capacity

    env = envs.make(env_name)
    deck_orders, coins = deal_bank(40)
    assert mover_capacity(80) < 80  # 40 deals are 80 games: the compaction is exercised
    runs = [
        play_duplicate(env, make("random"), EXPERT, deck_orders, coins, jax.random.PRNGKey(3), compact=c)
        for c in (True, False)
    ]
    assert runs[0].keys() == runs[1].keys()
    for name in runs[0]:
        np.testing.assert_array_equal(runs[0][name], runs[1][name], err_msg=name)


def test_mover_actions_take_several_passes_when_many_games_need_the_policy(match_states):
    from lost_cities.evaluation.duplicate import mover_actions

    states = _take(match_states, np.arange(20))
    keys = jax.random.split(jax.random.PRNGKey(0), 20)
    need = jnp.asarray(np.random.default_rng(0).random(20) < 0.7)
    random_policy = make("random")
    expected = np.where(need, jax.vmap(random_policy)(states, keys), 0)
    progress = jnp.asarray(states.round.deck_ptr)
    for capacity in (3, 7, 20):
        np.testing.assert_array_equal(mover_actions(random_policy, states, keys, need, capacity), expected)
        # gathered by their rounds' progress, in several passes: the same actions
        by_progress = mover_actions(random_policy, states, keys, need, capacity, progress)
        np.testing.assert_array_equal(by_progress, expected)
