"""The web client's generated contract (web/src/generated/contract.json) is what the Python
package says: a change to a layout, an encoding or the page's search preset that is not
written out again (``python tools/web_contract.py``) fails here, and the web tests then hold
the TypeScript code to the file."""

import json
from pathlib import Path

import pytest
import web_contract as tool

from lost_cities.export.web_contract import GENERATOR, WEB_PATH, contract, render
from lost_cities.networks.features import DRAW_COLUMNS, EXPERT_TOTAL, N_DRAW_FEATURES, N_PLACEMENT_FEATURES
from lost_cities.obs.v1 import OBS_DIM, OBS_V1_LAYOUT, Block, block, layout
from lost_cities.obs.v2 import OBS_V2_DIM, OBS_V2_LAYOUT

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / WEB_PATH


def test_the_committed_file_is_the_contract():
    assert COMMITTED.is_file(), f"{WEB_PATH} is missing: run python tools/web_contract.py"
    committed = json.loads(COMMITTED.read_text())
    assert committed == contract(), f"{WEB_PATH} is out of date: run python tools/web_contract.py"
    assert COMMITTED.read_text() == render(), (
        f"{WEB_PATH} is not as written: rerun python tools/web_contract.py"
    )
    assert committed["generated_by"] == GENERATOR == "python tools/web_contract.py"


def test_layouts_tile_their_arrays():
    data = contract()
    layouts = [
        (data["observations"]["v1"]["blocks"], OBS_DIM),
        (data["observations"]["v2"]["blocks"], OBS_V2_DIM),
        (data["features"]["af1"]["placement"]["columns"], N_PLACEMENT_FEATURES),
        (data["features"]["af1"]["draw"]["columns"], N_DRAW_FEATURES),
    ]
    for blocks, size in layouts:
        assert blocks[0]["offset"] == 0
        for before, after in zip(blocks, blocks[1:], strict=False):
            assert after["offset"] == before["offset"] + before["size"]
        assert blocks[-1]["offset"] + blocks[-1]["size"] == size
    # the hand-written offsets the layouts replaced
    assert OBS_DIM == 454 and OBS_V2_DIM == 512 and (N_PLACEMENT_FEATURES, N_DRAW_FEATURES) == (28, 10)
    offsets = [block(OBS_V2_LAYOUT, name).offset for name in ("carry_margin", "round", "my_reachable")]
    assert offsets == [454, 464, 482]
    assert (block(OBS_V1_LAYOUT, "deck_left").offset, block(OBS_V1_LAYOUT, "plies").offset) == (420, 422)
    assert EXPERT_TOTAL == block(DRAW_COLUMNS, "expert_total").offset == 8


def test_layout_helpers():
    blocks = layout((("a", 2), ("b", 3)), start=1)
    assert blocks == (Block("a", 1, 2), Block("b", 3, 3)) and blocks[1].stop == 6
    with pytest.raises(ValueError, match="distinct"):
        layout((("a", 1), ("a", 2)))


def test_the_search_knobs_are_the_page_preset():
    """The page's search (web/src/search.ts reads these knobs from the committed file) is
    conf/search/belief.yaml: ``fast`` (the default preset with 16 worlds) with 32 worlds dealt
    by the shipped belief of bc-ppo-xi6-bal2700. Written out, so that a change to a preset
    (belief.yaml, or fast.yaml or default.yaml under it) fails here, not only in the page."""
    page = {
        "worlds": 32,
        "candidates": 4,
        "depth": None,
        "leaf": None,
        "rollout": None,
        "opponent_rollout": None,
        "next_move": None,
        "gate_points": 1.0,
        "gate_z": 1.0,
        "prior_points": 0.0,
        "confirm_worlds": 0,
        "start_value": 0.0,
        "scales": [0.0, 0.0, 0.0],
        "proposer": None,
        "belief": "bc-ppo-xi6-bal2700",
        "inference_pool": 1,
        "inference_moves": 1,
        "endgame": None,
    }
    assert contract()["search"] == {"preset": "belief", "knobs": page}
    assert json.loads(COMMITTED.read_text())["search"] == {"preset": "belief", "knobs": page}


def test_the_script_writes_and_checks(tmp_path, capsys):
    out = tmp_path / "contract.json"
    assert tool.main(["--out", str(out), "--check"]) == 1
    assert tool.main(["--out", str(out)]) == 0
    assert json.loads(out.read_text()) == contract()
    assert tool.main(["--out", str(out), "--check"]) == 0
    out.write_text(out.read_text().replace('"worlds": 32', '"worlds": 31'))
    assert tool.main(["--out", str(out), "--check"]) == 1
    capsys.readouterr()
