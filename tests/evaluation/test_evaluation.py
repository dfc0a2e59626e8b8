"""Duplicate evaluation: intervals, deal banks, seat pairing and the results schema."""

import hashlib
import json
from importlib import resources
from typing import get_origin, get_type_hints

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from omegaconf import OmegaConf

from lost_cities import envs
from lost_cities.evaluation import (
    COMPARISON_SCHEMA,
    RESULTS_SCHEMA,
    SCHEMA_VERSION,
    check_gates_config,
    compare,
    deal_bank,
    duplicate_evaluate,
    gate_metrics,
    play_duplicate,
    run_gates,
    summarise,
    wilson_interval,
)
from lost_cities.evaluation.carry import AGENT, OPPONENT, RULE, carry_probe, round3_start, trend
from lost_cities.evaluation.comparison import Comparison
from lost_cities.evaluation.duplicate import RESULT_METRICS, Results, RoundResults
from lost_cities.game.engine import legal_action_mask, reset_from_order
from lost_cities.game.match import MatchState
from lost_cities.policies import current_round_only, make_policy

ENVS = {name: envs.make(name) for name in ("single_round", "match3")}
ENV = ENVS["single_round"]
KEY = jax.random.key(7)


def _legal(state):
    return legal_action_mask(state.round if isinstance(state, MatchState) else state)


# Test-local policies for both envs, written with argmax (cheap to compile) rather than
# the bots, so the suite does not depend on lost_cities.bots and stays within its share.
def first_legal(state, rng):
    return jnp.argmax(_legal(state))


def last_legal(state, rng):
    return 95 - jnp.argmax(_legal(state)[::-1])


def uniform_random(state, rng):
    noise = jax.random.uniform(rng, (96,))
    return jnp.argmax(jnp.where(_legal(state), noise, -1.0))


def always_zero(state, rng):
    return jnp.int32(0)


# Newcombe (1998), "Two-sided confidence intervals for the single proportion",
# Stat. Med. 17:857-872, Table II, method 3 (Wilson score, no continuity correction).
@pytest.mark.parametrize(
    "successes, n, low, high",
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_interval_matches_published_values(successes, n, low, high):
    got = wilson_interval(successes, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_edge_cases():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for n in (1, 7, 400, 1000):  # the estimate always lies inside, exactly at 0 and 1
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(1 - high) and low < 0.5 < high
    # 0 successes: upper bound is z^2 / (n + z^2) in closed form.
    assert wilson_interval(0, 10)[1] == pytest.approx(1.959964**2 / (10 + 1.959964**2), rel=1e-6)


def test_deal_bank_is_a_reproducible_prefix_of_valid_deals():
    deck_orders, coins = deal_bank(40)
    small_orders, small_coins = deal_bank(7)
    assert deck_orders.shape == (40, 3, 60) and deck_orders.dtype == np.int32
    assert coins.shape == (40, 3) and coins.dtype == np.int32
    np.testing.assert_array_equal(deck_orders[:7], small_orders)
    np.testing.assert_array_equal(coins[:7], small_coins)
    assert (np.sort(deck_orders, axis=-1) == np.arange(60)).all()  # every deck is a permutation
    assert set(np.unique(coins)) == {0, 1}
    assert len({d.tobytes() for d in deck_orders.reshape(-1, 60)}) == 120  # no repeated deck
    with pytest.raises(ValueError, match="version"):
        deal_bank(3, version="v0")


def test_a_later_range_of_the_bank_is_the_same_deals_as_in_the_prefix():
    """``first``: deals 30..39 are the prefix's 30..39, so a choice made on one range and a
    claim made on another use disjoint deals of the one fixed bank."""
    deck_orders, coins = deal_bank(40)
    later_orders, later_coins = deal_bank(10, first=30)
    np.testing.assert_array_equal(later_orders, deck_orders[30:])
    np.testing.assert_array_equal(later_coins, coins[30:])
    assert not later_orders.flags.writeable
    with pytest.raises(ValueError, match="first_deal=-1"):
        deal_bank(3, first=-1)


def test_deal_bank_v1_never_changes():
    """Pinned when v1 was created: if this fails, the generator changed and needs a new version."""
    deck_orders, coins = deal_bank(100, "v1")
    digest = hashlib.sha256(deck_orders.tobytes() + coins.tobytes()).hexdigest()
    assert digest == V1_DIGEST


V1_DIGEST = "861bda5a38963b87ba49e05f631e120c3850241839af0b21eddb7e79e6bb5abe"


def _reference_game(env, deck_orders, coins, seat0_policy, seat1_policy):
    """One game stepped in Python, one jitted ply at a time (independent of the batched loop).

    Returns seat 0's final margin and per round: seat 0's margin (from the match carry)
    and the plies; then discard-pile draws per seat, and per seat the expeditions opened
    and handshakes played in the last round.
    """
    state = env.init_from_deal(jnp.asarray(deck_orders), jnp.asarray(coins))
    step, to_move, done = jax.jit(env.step), jax.jit(env.to_move), jax.jit(env.done)
    policies = (jax.jit(seat0_policy), jax.jit(seat1_policy))
    round_plies, round_margins, pile_draws = [0], [], [0, 0]
    while not bool(done(state)):
        seat = int(to_move(state))
        action = int(policies[seat](state, KEY))
        round_idx = int(state.round_idx) if env.rounds > 1 else 0
        state, _, _ = step(state, action)
        pile_draws[seat] += action % 6 != 0
        round_plies[-1] += 1
        if env.rounds > 1 and (int(state.round_idx) > round_idx or bool(done(state))):
            round_margins.append(float(state.carry[0] - state.carry[1]) - sum(round_margins))
            round_plies.append(0)
    if env.rounds > 1:
        round_plies.pop()
    else:
        round_margins = [float(env.final_margin(state)[0])]
    last = env.round_state(state)
    expeditions = [int((last.exp_count[p] > 0).sum()) for p in (0, 1)]
    handshakes = [int(last.exp_handshakes[p].sum()) for p in (0, 1)]
    return float(env.final_margin(state)[0]), round_margins, round_plies, pile_draws, expeditions, handshakes


@pytest.mark.parametrize("env_name", ENVS)
@pytest.mark.slow
def test_duplicate_pairs_each_deal_with_seats_swapped(env_name):
    env = ENVS[env_name]
    deck_orders, coins = deal_bank(3)
    games = play_duplicate(env, first_legal, last_legal, deck_orders, coins, KEY, batch_size=2)
    for deal in range(3):
        for seat_a, seats in ((0, (first_legal, last_legal)), (1, (last_legal, first_legal))):
            game = 2 * deal + seat_a
            sign = 1 if seat_a == 0 else -1
            margin, round_margins, plies, pile_draws, expeditions, handshakes = _reference_game(
                env, deck_orders[deal], coins[deal], *seats
            )
            assert games["margin_a"][game] == sign * margin
            assert games["round_margin_a"][game].tolist() == [sign * m for m in round_margins]
            assert games["round_plies"][game].tolist() == plies
            assert games["pile_draws_a"][game] == pile_draws[seat_a]
            assert games["pile_draws_b"][game] == pile_draws[1 - seat_a]
            assert games["last_round_expeditions_a"][game] == expeditions[seat_a]
            assert games["last_round_handshakes_a"][game] == handshakes[seat_a]
    assert games["pile_draws_a"].sum() + games["pile_draws_b"].sum() > 0  # the draw count was exercised


@pytest.mark.parametrize("env_name", ENVS)
@pytest.mark.slow
def test_identical_deterministic_policies_mirrored_are_exactly_even(env_name):
    deck_orders, coins = deal_bank(16)
    results = duplicate_evaluate(
        ENVS[env_name], first_legal, first_legal, deck_orders, coins, KEY, batch_size=16
    )
    assert results["win_rate"] == 0.5
    assert results["margin_mean"] == 0.0
    assert results["margin_lower"] == 0.0 and results["margin_upper"] == 0.0
    assert results["wins"] == results["losses"]


@pytest.mark.slow
def test_random_against_random_is_even_within_its_interval():
    """By symmetry the true win rate is 0.5 and the true mean margin 0.

    With a correct evaluator, a seed lands outside a 95% interval with probability about
    5% (and this seed is fixed, so the test is deterministic); a seat or pairing bug
    that favours one policy moves the estimate by far more than the interval's width.
    """
    deck_orders, coins = deal_bank(150)
    results = duplicate_evaluate(
        ENVS["match3"], uniform_random, uniform_random, deck_orders, coins, KEY, batch_size=150
    )
    assert results["win_rate_lower"] <= 0.5 <= results["win_rate_upper"]
    assert results["margin_lower"] <= 0.0 <= results["margin_upper"]
    assert results["win_rate_upper"] - results["win_rate_lower"] < 0.15


SCHEMA = {
    "schema_version": int,
    "env": str,
    "deals": int,
    "games": int,
    "wins": int,
    "draws": int,
    "losses": int,
    "win_rate": float,
    "win_rate_lower": float,
    "win_rate_upper": float,
    "win_rate_deal_lower": float,
    "win_rate_deal_upper": float,
    "win_rate_bootstrap_lower": float,
    "win_rate_bootstrap_upper": float,
    "game_correlation": float,
    "deal_scores": list,
    "draw_rate": float,
    "margin_mean": float,
    "margin_lower": float,
    "margin_upper": float,
    "plies_per_round": float,
    "max_steps_rate": float,
    "pile_draws_per_round_a": float,
    "pile_draws_per_round_b": float,
    "max_steps_games": int,
    "natural_games": int,
    "natural_win_rate": float,
    "natural_win_rate_lower": float,
    "natural_win_rate_upper": float,
    "seat0_win_rate": float,
    "seat1_win_rate": float,
    "rounds": list,
}
ROUND_SCHEMA = {
    "round": int,
    "margin_mean": float,
    "margin_lower": float,
    "margin_upper": float,
    "plies_mean": float,
    "max_steps_rate": float,
}


def test_results_follow_the_documented_schema():
    deck_orders, coins = deal_bank(4)
    results = duplicate_evaluate(
        ENVS["match3"], first_legal, last_legal, deck_orders, coins, KEY, batch_size=2
    )
    assert results["schema_version"] == SCHEMA_VERSION == 1
    # Two fixed policies: each deal's two games may end alike, leaving no correlation to measure.
    typed = {
        key: float if key == "game_correlation" and value is None else type(value)
        for key, value in results.items()
    }
    assert typed == SCHEMA
    assert [type(r) for r in results["rounds"]] == [dict] * 3
    for r in results["rounds"]:
        assert {key: type(value) for key, value in r.items()} == ROUND_SCHEMA
    for key in [*SCHEMA, *ROUND_SCHEMA]:
        assert f"``{key}``" in RESULTS_SCHEMA, f"{key} is not documented"
    assert json.loads(json.dumps(results, allow_nan=False)) == results
    assert results["games"] == 8 == results["wins"] + results["draws"] + results["losses"]
    assert sum(r["margin_mean"] for r in results["rounds"]) == pytest.approx(results["margin_mean"])
    assert [r["round"] for r in results["rounds"]] == [1, 2, 3]


def test_the_typed_results_are_the_schema_and_their_floats_the_gate_metrics():
    def runtime(kind):  # the type a value has when present (None only where too few games)
        return float if kind == float | None else get_origin(kind) or kind

    assert {key: runtime(kind) for key, kind in get_type_hints(Results).items()} == SCHEMA
    assert {key: runtime(kind) for key, kind in get_type_hints(RoundResults).items()} == ROUND_SCHEMA
    assert set(RESULT_METRICS) == {key for key, kind in SCHEMA.items() if kind is float}


@pytest.mark.slow
def test_a_comparison_is_the_difference_of_two_evaluations_on_the_same_games():
    deck_orders, coins = deal_bank(6)
    env = ENVS["match3"]
    games = {
        policy: play_duplicate(env, policy, last_legal, deck_orders, coins, KEY, batch_size=6)
        for policy in (first_legal, uniform_random)
    }
    a, b = (summarise(games[policy], env.name) for policy in (first_legal, uniform_random))
    versus = compare(games[first_legal], games[uniform_random])
    assert versus["deals"] == 6
    assert versus["score_diff"] == pytest.approx(a["win_rate"] - b["win_rate"])
    assert versus["margin_diff"] == pytest.approx(a["margin_mean"] - b["margin_mean"])
    assert versus["margin_diff_lower"] < versus["margin_diff"] < versus["margin_diff_upper"]
    assert versus["margin_diff"] != 0.0  # the two agents did play differently
    hints = get_type_hints(Comparison)
    assert set(versus) == set(hints)
    for key in hints:
        assert f"``{key}``" in COMPARISON_SCHEMA, f"{key} is not documented"
    itself = compare(games[first_legal], games[first_legal])
    assert (itself["score_diff"], itself["score_diff_lower"], itself["score_diff_upper"]) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="same deals"):
        compare(games[first_legal], {"margin_a": games[first_legal]["margin_a"][:4]})


def test_an_illegal_action_is_a_clear_error():
    deck_orders, coins = deal_bank(2)
    with pytest.raises(ValueError, match="policy B chose an illegal action"):
        play_duplicate(ENV, first_legal, always_zero, deck_orders, coins, KEY, batch_size=2)


def test_gates_pass_and_fail_on_their_bounds():
    deck_orders, coins = deal_bank(16)
    cfg = {
        "bank": "v1",
        "batch_size": 16,
        "gates": {
            "even": {
                "opponent": first_legal,
                "deals": 16,
                "min": {"win_rate": 0.5},
                "max": {"margin_upper": 0.0},
            },
            "ahead": {"opponent": first_legal, "deals": 16, "min": {"win_rate_lower": 0.51}},
        },
    }
    gates = run_gates(ENV, first_legal, cfg, KEY)
    assert set(gates) == {"even", "ahead"}
    assert gates["even"]["passed"] and gates["even"]["checks"] == {
        "win_rate >= 0.5": True,
        "margin_upper <= 0.0": True,
    }
    assert not gates["ahead"]["passed"] and gates["ahead"]["checks"] == {"win_rate_lower >= 0.51": False}
    assert gates["even"]["win_rate"] == 0.5 and gates["even"]["deals"] == 16
    assert gates["even"]["opponent"] == "first_legal"
    flat = gate_metrics(gates)
    assert flat["gates/even/win_rate"] == 0.5 and flat["gates/even/passed"] == 1.0
    assert flat["gates/ahead/passed"] == 0.0 and flat["gates/passed"] == 0.5
    assert all(isinstance(value, float) for value in flat.values())
    json.dumps(gates, allow_nan=False)


def test_gates_reject_unknown_metrics_before_playing():
    cfg = {"gates": {"bad": {"opponent": first_legal, "deals": 4, "min": {"winrate": 0.5}}}}
    with pytest.raises(ValueError, match="unknown metric 'winrate'"):
        run_gates(ENV, first_legal, cfg, KEY)
    with pytest.raises(ValueError, match="needs `deals`"):
        run_gates(ENV, first_legal, {"gates": {"bad": {"opponent": "random"}}}, KEY)


def _default_gates():
    return OmegaConf.load(resources.files("lost_cities.conf") / "gates" / "default.yaml")


def test_default_gates_config_is_valid():
    cfg = check_gates_config(_default_gates())
    assert {name: gate.opponent for name, gate in cfg.gates.items()} == {
        "random": "random",
        "heuristic_balanced": "heuristic_balanced",
        "heuristic_expert": "heuristic_expert",
    }


@pytest.mark.slow
def test_every_default_gate_opponent_plays_a_deal():
    """Each default gate, cut to its bank's first deal, played by run_gates in the training env
    (match3) against ``first_legal``, which plays its lowest card onto an expedition whenever
    it can: every opponent finishes both games legally (an illegal move is an error), and the
    scripted ones, which keep their expeditions few and long, win both."""
    env = ENVS["match3"]
    cfg = _default_gates()
    for gate in cfg.gates.values():
        gate.deals = 1
    gates = run_gates(env, first_legal, cfg, KEY)
    assert list(gates) == ["random", "heuristic_balanced", "heuristic_expert"]
    for name, gate in gates.items():
        assert gate["opponent"] == name and (gate["deals"], gate["games"]) == (1, 2), name
        assert gate["max_steps_rate"] == 0.0 and len(gate["rounds"]) == 3, name
        assert gate["plies_per_round"] >= 44, name
    for name in ("heuristic_balanced", "heuristic_expert"):
        assert gates[name]["losses"] == 2 and gates[name]["margin_mean"] < 0, gates[name]


def test_unknown_policy_name_is_a_clear_error():
    with pytest.raises(ValueError, match="neither an existing checkpoint"):
        make_policy("heuristic_expertt", ENV)


@pytest.mark.parametrize(
    "seat_a, carry, who, starter",
    [
        (0, 25.0, RULE, 0),
        (1, 25.0, RULE, 1),
        (1, -1.0, RULE, 0),
        (0, 0.0, RULE, None),
        (0, 25.0, OPPONENT, 1),
        (1, -25.0, AGENT, 1),
        (1, 1.0, OPPONENT, 0),
        (0, 0.0, AGENT, 0),
    ],
)
def test_carry_probe_starts_round_3_with_the_injected_carry(seat_a, carry, who, starter):
    env = ENVS["match3"]
    deck_orders, coins = deal_bank(5)
    ms = round3_start(
        jnp.float32(carry),
        jnp.int32(who),
        jnp.asarray(deck_orders[4]),
        jnp.asarray(coins[4]),
        jnp.int32(seat_a),
    )
    fresh = reset_from_order(jnp.asarray(deck_orders[4, 2]))
    assert int(ms.round_idx) == 2 and not bool(ms.done)
    assert float(env.final_margin(ms)[seat_a]) == carry
    np.testing.assert_array_equal(ms.round.loc, fresh.loc)
    np.testing.assert_array_equal(ms.round.hands, fresh.hands)
    expected_starter = int(coins[4, 2]) if starter is None else starter  # a tie: the round-3 coin
    assert int(ms.to_move) == expected_starter == int(ms.starter)
    _, _, done = env.step(ms, first_legal(ms, KEY))
    assert not bool(done)


@pytest.mark.slow
def test_carry_probe_reports_each_carry_and_its_trends():
    deck_orders, coins = deal_bank(2)
    probe = carry_probe(
        ENVS["match3"], first_legal, last_legal, deck_orders, coins, KEY, (60, -60), batch_size=2
    )
    assert [row["carry"] for row in probe["carries"]] == [-60, 60]
    low, high = probe["carries"]
    # One round of these two policies on these deals never swings 60 points.
    assert low["win_rate"] <= high["win_rate"] and high["win_rate"] > 0.5 > low["win_rate"]
    assert set(probe["trends"]) == {"expeditions", "handshakes", "pile_draws", "round3_margin"}
    json.dumps(probe, allow_nan=False)
    with pytest.raises(ValueError, match="needs env match3"):
        carry_probe(ENV, first_legal, last_legal, deck_orders, coins, KEY)
    with pytest.raises(ValueError, match="must be one of"):
        carry_probe(ENVS["match3"], first_legal, last_legal, deck_orders, coins, KEY, starter="leader")


@pytest.mark.slow
def test_carry_probe_with_both_starters_separates_the_carry_from_the_start():
    """Policies that never read the carry: with the start held equal (``both``) they play
    the same at every carry, while the match's rule (the leader starts) changes their play
    between -1 and +1 through the start alone; ``both`` pools the two fixed starts."""
    deck_orders, coins = deal_bank(16)
    probe = {
        starter: carry_probe(
            ENVS["match3"],
            first_legal,
            last_legal,
            deck_orders,
            coins,
            KEY,
            (-1, 1),
            batch_size=16,
            starter=starter,
        )
        for starter in ("both", "rule", "agent", "opponent")
    }
    behaviours = ("expeditions", "handshakes", "pile_draws")
    low, high = probe["both"]["carries"]
    assert all(low[name] == high[name] for name in behaviours)
    assert (
        probe["both"]["starter"] == "both" and probe["both"]["trends"]["expeditions"]["direction"] == "flat"
    )
    low, high = probe["rule"]["carries"]
    assert any(low[name]["mean"] != high[name]["mean"] for name in behaviours)
    # Under the rule A starts at +1 and B at -1: those are the fixed starts' rows.
    for name in behaviours:
        assert high[name]["mean"] == pytest.approx(probe["agent"]["carries"][1][name]["mean"])
        assert low[name]["mean"] == pytest.approx(probe["opponent"]["carries"][0][name]["mean"])
        pooled = (
            probe["agent"]["carries"][0][name]["mean"] + probe["opponent"]["carries"][0][name]["mean"]
        ) / 2
        assert probe["both"]["carries"][0][name]["mean"] == pytest.approx(pooled)


def test_trend_classifies_monotonic_noisy_and_mixed_behaviour():
    def point(mean, half=0.1):
        return {"mean": mean, "lower": mean - half, "upper": mean + half}

    falling = trend([point(4.8), point(4.0), point(3.0), point(3.1), point(0.7)])
    assert falling == {
        "direction": "decreasing",
        "monotonic": False,
        "monotonic_within_noise": True,
        "extremes_separated": True,
    }
    mixed = trend([point(1.0), point(2.0), point(1.5, 0.01), point(3.0)])
    assert mixed["direction"] == "increasing" and not mixed["monotonic_within_noise"]
    flat = trend([point(1.0), point(1.05)])
    assert flat["monotonic"] and not flat["extremes_separated"]


def first_legal_in_a_round(round_state, rng):
    """A one-round policy: it only understands a round ``State`` (as a v1-trained agent)."""
    assert not isinstance(round_state, MatchState)
    return jnp.argmax(legal_action_mask(round_state))


@pytest.mark.slow
def test_a_one_round_policy_plays_match3_on_the_current_round():
    env = ENVS["match3"]
    deck_orders, coins = deal_bank(3)
    legacy = current_round_only(first_legal_in_a_round, env)
    games = play_duplicate(env, legacy, last_legal, deck_orders, coins, KEY, batch_size=2)
    native = play_duplicate(env, first_legal, last_legal, deck_orders, coins, KEY, batch_size=2)
    for name in ("margin_a", "round_margin_a", "round_plies", "pile_draws_a"):
        np.testing.assert_array_equal(games[name], native[name])
