"""A run's learning curve draws an episode mean over enough episodes: an update that finished
one episode against an opponent must not draw its 0 or 1 as a spike."""

import json
import math

from lost_cities.training.report import MIN_EPISODES, _series, count_key, episode_weighted


def test_count_key_names_the_mean_s_own_count():
    assert count_key("episode/heuristic_expert/win") == "episode/heuristic_expert/count"
    assert count_key("episode/margin") == "episode/count"
    assert count_key("learner/entropy") is None


def test_one_episode_update_does_not_spike():
    # 100 episodes at a 0.5 win rate, then one update with a single lost episode.
    values, counts = [0.5, 0.0], [100, 1]
    smooth = episode_weighted(values, counts)
    assert smooth[0] == 0.5
    assert math.isclose(smooth[1], 50 / 101)  # the lost episode weighs 1 of 101, not all


def test_window_reaches_back_until_enough_episodes_and_no_further():
    values = [1.0, 0.0, 0.0]
    counts = [1000, MIN_EPISODES // 2, MIN_EPISODES // 2]
    # The last update's window holds the two 0.0 updates (MIN_EPISODES together) and stops.
    assert episode_weighted(values, counts)[2] == 0.0
    # With one episode fewer it must take the 1.0 update too.
    counts[1] -= 1
    assert episode_weighted(values, counts)[2] > 0.9


def test_updates_without_episodes_stay_gaps():
    assert episode_weighted([float("nan"), 1.0, None], [0, 3, 0]) == [None, 1.0, None]


def test_series_reads_the_counts_from_metrics_rows():
    rows = [
        {"update": 1, "episode/bot/win": 0.5, "episode/bot/count": 200.0},
        {"update": 2, "episode/bot/win": 1.0, "episode/bot/count": 1.0},
        {"update": 3, "episode/bot/win": float("nan"), "episode/bot/count": 0.0},
    ]
    rows = json.loads(json.dumps(rows))  # as metrics.jsonl holds them (NaN included)
    xs, ys = _series(rows, "episode/bot/win")
    assert xs == [1, 2]
    assert ys[0] == 0.5 and math.isclose(ys[1], 101 / 201)
    # A key without counts is drawn as logged.
    assert _series([{"update": 1, "learner/entropy": 2.0}], "learner/entropy") == ([1], [2.0])
