"""Pooling evaluations on disjoint deal ranges: the pooled result is the result of the union."""

import itertools
import json

import numpy as np
import pytest

from lost_cities.cli.pool_results import main
from lost_cities.evaluation import compare, summarise
from lost_cities.evaluation.pooling import pool_results
from lost_cities.game.cards import MAX_STEPS

SPLITS = (0, 7, 8, 40, 41, 60)  # parts of 7, 1, 32, 1 and 19 deals: one-deal parts have no interval


def fake_games(rng, deals, rounds=3):
    """play_duplicate-shaped arrays: margins with draws, some rounds at MAX_STEPS."""
    round_margin = rng.integers(-30, 31, (2 * deals, rounds))
    return {
        "margin_a": round_margin.sum(axis=1) * rng.integers(0, 2, 2 * deals),  # zeros: draws
        "round_margin_a": round_margin,
        "round_plies": np.where(
            rng.random((2 * deals, rounds)) < 0.1, MAX_STEPS, rng.integers(30, 60, (2 * deals, rounds))
        ),
        "pile_draws_a": rng.integers(0, 3, (2 * deals, rounds)),
        "pile_draws_b": rng.integers(0, 3, (2 * deals, rounds)),
    }


def part_of(games, first, end, **settings):
    games = {name: value[2 * first : 2 * end] for name, value in games.items()}
    identity = {"agent": "a", "opponent": "b", "first_deal": first, "seconds": 1.0}
    return {**summarise(games, "match3"), **identity, **settings}


def assert_same_result(pooled, whole):
    for key, value in whole.items():
        if isinstance(value, float):
            assert pooled[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
        elif key == "rounds":
            for pooled_round, whole_round in zip(pooled[key], value, strict=True):
                assert_same_result(pooled_round, whole_round)
        else:
            assert pooled[key] == value, key


@pytest.fixture
def games():
    return fake_games(np.random.default_rng(3), SPLITS[-1])


def test_pooled_parts_give_the_result_of_all_their_deals(games):
    parts = [part_of(games, a, b) for a, b in itertools.pairwise(SPLITS)]
    pooled = pool_results(parts[::-1])  # in any order
    assert_same_result(pooled, summarise(games, "match3"))
    assert pooled["parts"] == [{"first_deal": a, "deals": b - a} for a, b in itertools.pairwise(SPLITS)]
    assert pooled["first_deal"] == 0 and pooled["seconds"] == len(parts)
    assert pooled["agent"] == "a" and pooled["opponent"] == "b"


def test_a_paired_comparison_pools_too(games):
    baseline_games = fake_games(np.random.default_rng(4), SPLITS[-1])
    parts = []
    for a, b in itertools.pairwise(SPLITS):
        part = part_of(games, a, b)
        part["baseline"] = part_of(baseline_games, a, b, agent="base")
        sliced = [{name: value[2 * a : 2 * b] for name, value in g.items()} for g in (games, baseline_games)]
        part["versus_baseline"] = compare(*sliced)
        parts.append(part)
    pooled = pool_results(parts)
    assert_same_result(pooled["versus_baseline"], compare(games, baseline_games))
    assert_same_result(pooled["baseline"], summarise(baseline_games, "match3"))
    assert pooled["baseline"]["agent"] == "base"
    with pytest.raises(ValueError, match="baseline"):
        pool_results([parts[0], part_of(games, 7, 8)])


@pytest.mark.parametrize(
    "change, message",
    [
        ({"first_deal": 5}, "overlap"),
        ({"agent": "c"}, "differ in agent"),
        ({"overrides": {"worlds": 8}}, "differ in overrides"),
        ({"env": "single_round"}, "differ in env"),
    ],
)
def test_parts_that_are_not_one_claim_are_refused(games, change, message):
    first, second = part_of(games, 0, 7), part_of(games, 7, 60)
    with pytest.raises(ValueError, match=message):
        pool_results([first, {**second, **change}])


def test_the_cli_writes_the_pooled_result_and_refuses_bad_parts(games, tmp_path, capsys):
    paths = []
    for a, b in ((0, 30), (30, 60)):
        paths.append(tmp_path / f"part{a}.json")
        paths[-1].write_text(json.dumps(part_of(games, a, b)))
    out = tmp_path / "pooled" / "all.json"
    assert main([*map(str, paths), "--out", str(out)]) == 0
    assert "2 parts, deals 0-29, 30-59" in capsys.readouterr().out
    assert_same_result(json.loads(out.read_text()), summarise(games, "match3"))

    out.unlink()
    (tmp_path / "gates.json").write_text(json.dumps({"passed": True, "first_deal": 0}))
    bad_parts = {
        paths[0]: "overlap",
        tmp_path / "gates.json": "not an evaluation",
        tmp_path / "none.json": "none.json",
    }
    for bad, message in bad_parts.items():
        with pytest.raises(SystemExit) as exit_:
            main([str(paths[0]), str(bad), "--out", str(out)])
        assert exit_.value.code == 2 and message in capsys.readouterr().err
        assert not out.exists()
