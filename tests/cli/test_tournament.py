"""``python -m lost_cities.tournament players=[...]``: every pair played or reused, each pair's
results kept, the ratings table written with its provenance; bad settings refused before any
game, leaving nothing behind."""

import json
import subprocess
import sys

import pytest

from lost_cities.cli.tournament import slug

PLAYERS = ["random", "discard_only", "heuristic_cautious"]


def _tournament(cwd, *overrides):
    command = [sys.executable, "-m", "lost_cities.tournament", "progress=false", "deals=2", *overrides]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)


def _reused_pair(path):
    """A results file of discard_only vs random (as an evaluation writes it): 20 games, all won."""
    results = {
        "schema_version": 1, "env": "match3", "bank": "v1", "agent": "discard_only", "opponent": "random",
        "deals": 10, "games": 20, "wins": 20, "draws": 0, "losses": 0, "win_rate": 1.0,
        "win_rate_lower": 0.839, "win_rate_upper": 1.0, "margin_mean": 208.0, "margin_lower": 200.0,
        "margin_upper": 216.0, "plies_per_round": 71.0, "max_steps_rate": 0.0,
    }  # fmt: skip
    path.write_text(json.dumps(results))
    return path


@pytest.mark.slow
def test_all_play_all_plays_or_reuses_every_pair_and_writes_the_ratings(tmp_path):
    reused = _reused_pair(tmp_path / "old.json")
    out = tmp_path / "table"
    page = tmp_path / "page" / "ratings.json"
    done = _tournament(
        tmp_path,
        f"players=[{','.join(PLAYERS)}]",
        "anchor=heuristic_cautious",
        f"reuse=[{reused}]",
        f"out_dir={out}",
        f"ratings_out={page}",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = json.loads((out / "ratings.json").read_text())
    assert json.loads(page.read_text()) == table
    assert table["format"] == "lost-cities-ratings" and table["anchor"] == "heuristic_cautious"
    assert table["provenance"]["command"].startswith("python -m lost_cities.tournament")
    assert {"commit", "date"} <= set(table["provenance"])
    pairs = {frozenset((p["a"], p["b"])): p for p in table["pairs"]}
    assert set(pairs) == {frozenset(x) for x in [PLAYERS[:2], PLAYERS[::2], PLAYERS[1:]]}
    old = pairs[frozenset(PLAYERS[:2])]
    assert old["reused_from"] == str(reused) and old["deals"] == 10
    for pair in table["pairs"]:
        kept = json.loads((out / pair["file"]).read_text())
        assert kept["agent"] == pair["a"] and kept["games"] == pair["games"]
        if "reused_from" not in pair:
            assert pair["deals"] == 2 and kept["provenance"]["command"].startswith("python -m lost_cities")
    ratings = {row["player"]: row for row in table["players"]}
    assert ratings["heuristic_cautious"]["rating"] == 1500.0 and ratings["heuristic_cautious"]["se"] == 0
    assert ratings["discard_only"]["rating"] > ratings["random"]["rating"]  # the reused 20-0 counts
    assert "| player | rating |" in (out / "ratings.md").read_text()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ([f"players=[{','.join(PLAYERS)}]", "anchor=heuristic_expert"], "must be one of players"),
        (["players=[random]"], "at least two distinct players"),
        (["players=[random,discard_only]", "anchor=random", "a=random", "b=random"], "not both"),
        (["players=[random,discard_only]", "anchor=random", "slow.players=[staller]"], "slow.players"),
        ([], "give a= and b="),
    ],
)
@pytest.mark.slow
def test_bad_settings_are_refused_before_any_game(tmp_path, overrides, message):
    done = _tournament(tmp_path, *overrides)
    assert done.returncode != 0 and message in done.stderr, done.stderr[-2000:]
    assert not (tmp_path / "outputs").exists()


@pytest.mark.slow
def test_a_reused_file_of_another_pair_is_refused(tmp_path):
    reused = _reused_pair(tmp_path / "old.json")
    done = _tournament(tmp_path, "players=[random,heuristic_cautious]", "anchor=random", f"reuse=[{reused}]")
    assert done.returncode != 0 and "not a pair of players" in done.stderr, done.stderr[-2000:]


def test_slugs_name_search_and_net_players_apart():
    assert slug("search/belief:web/public/bc-ppo-xi6-bal2700.onnx") == "search-belief-bc-ppo-xi6-bal2700"
    assert slug("web/public/bc-ppo-xi6-bal2700.onnx") == "bc-ppo-xi6-bal2700"
    assert slug("heuristic_expert") == "heuristic_expert"
