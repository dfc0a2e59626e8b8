"""The search's knobs and presets (lost_cities/search/config.py, conf/search): presets
load, build on one another and check their knobs."""

import dataclasses
from pathlib import Path

import pytest
from search_common import PRESETS, _cfg

from lost_cities.models.base import shipped_model
from lost_cities.search import SearchConfig, load_preset
from lost_cities.search import belief as belief_module
from lost_cities.search import config as search_config


def test_presets_load_and_check_their_knobs(tmp_path):
    cfg = _cfg()
    assert isinstance(cfg, SearchConfig) and cfg.worlds >= 1 and cfg.candidates >= 1
    assert _cfg(worlds=3).worlds == 3 and "3 worlds" in _cfg(worlds=3).describe()
    with pytest.raises(ValueError, match="unknown search knobs"):
        _cfg(world=8)
    with pytest.raises(ValueError, match=r"search.worlds=1000000000 is above 65536"):
        _cfg(worlds=10**9)
    with pytest.raises(ValueError, match=r"search.confirm_worlds=100000 is above"):
        _cfg(confirm_worlds=100_000)
    with pytest.raises(ValueError, match="at most 96 actions"):
        _cfg(candidates=97)
    with pytest.raises(ValueError, match="inference_pool=65 is above 64"):
        _cfg(inference_pool=65)
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
