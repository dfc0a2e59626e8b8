"""The web client's contract: what the TypeScript port (web/src) reads of the Python package, as data.

:func:`contract` gathers it from the modules that own each part, and :func:`write` writes it
as one JSON file, ``web/src/generated/contract.json`` (``python tools/web_contract.py``), which
the web client imports instead of keeping its own copies of the numbers:

| key            | from                                   | what                                         |
| -------------- | -------------------------------------- | -------------------------------------------- |
| ``cards``      | ``lost_cities.game.cards``             | card counts, hand size, deck draws, plies    |
| ``actions``    | ``lost_cities.game.cards``             | the action encoding (place types, sources)   |
| ``engine``     | ``lost_cities.game.engine``            | the ``loc`` codes, the move history          |
| ``match``      | ``lost_cities.game.match``             | rounds per match                             |
| ``observations`` | ``lost_cities.obs.v1``, ``.v2``      | each version's blocks (name, offset, size),  |
|                |                                        | card channels, scales, margin buckets        |
| ``features``   | ``lost_cities.networks.features``      | af1's placement and draw columns (name,      |
|                |                                        | offset, size), the expert's style it scores  |
|                |                                        | by (``lost_cities.bots``)                    |
| ``bots``       | ``lost_cities.bots.heuristic``         | the styles of the other bots the page plays  |
| ``search``     | ``conf/search/belief.yaml``            | the page's search preset, every knob          |
|                | (``load_preset("belief")``)            |                                              |

``tests/export/test_web_contract.py`` holds the committed file to :func:`contract`, so the
two sides cannot drift: a change on the Python side fails that test until the file is
written again, and the web tests then check the TypeScript code against the new file.
"""

import dataclasses
import json
from pathlib import Path

import numpy as np

from lost_cities.bots import expert as expert_bot
from lost_cities.bots import heuristic
from lost_cities.game import cards, engine, match
from lost_cities.networks import features
from lost_cities.obs import v1, v2
from lost_cities.search.config import load_preset

FORMAT_VERSION = 1
GENERATOR = "python tools/web_contract.py"
# Where the web client imports it from, relative to the checkout's root.
WEB_PATH = Path("web/src/generated/contract.json")
PAGE_PRESET = "belief"  # the search preset the page's search agent mirrors (web/src/search.ts)


def _blocks(layout):
    return [{"name": b.name, "offset": b.offset, "size": b.size} for b in layout]


def _float(x):
    """A float32 constant as the float64 that holds it exactly (JSON; TypeScript's ``Math.fround``
    of it is itself)."""
    return float(np.float32(x))


def _observations():
    return {
        v1.OBS_VERSION: {
            "dim": v1.OBS_DIM,
            "blocks": _blocks(v1.OBS_V1_LAYOUT),
            "channels": list(v1.CHANNELS),  # block "cards": card * len(channels) + channel
            "scales": {
                "deck_left": cards.DECK_DRAWS,
                "opponent_unknown": cards.HAND_SIZE,
                "plies": cards.MAX_STEPS,
                "expeditions": dict(v1.EXPEDITION_SCALES),  # each block: 5 values of each, in this order
                "board_margin": v1.SCORE_SCALE,
            },
        },
        v2.OBS_V2_VERSION: {
            "dim": v2.OBS_V2_DIM,
            "blocks": _blocks(v2.OBS_V2_LAYOUT),
            "reachable_places": v2.N_REACHABLE_PLACES,
            "margin_thresholds": [float(t) for t in v2.MARGIN_THRESHOLDS],
            "scales": {
                "margin": v2.MARGIN_SCALE,
                "board_margin": v2.BOARD_SCALE,
                "colour_ranks": v2.COLOUR_RANK_TOTAL,
                "rounds_left": v2.ROUNDS_LEFT_SCALE,
            },
        },
    }


def _expert():
    """``heuristic_expert``'s scoring as af1 reads it (lost_cities/bots/expert.py, heuristic.py)."""
    return {
        "style": _style(expert_bot.EXPERT),
        "expedition_cost": heuristic.EXPEDITION_COST,
        "gift_to_empty_expedition": heuristic.GIFT_TO_EMPTY_EXPEDITION,
        "handshake_worth": heuristic.HANDSHAKE_WORTH,
        "turns_for_full_hand": expert_bot.TURNS_FOR_FULL_HAND,
        "lead_shift_per_round": [_float(x) for x in np.asarray(expert_bot.LEAD_SHIFT_PER_ROUND)],
    }


def _style(style):
    return {
        name: value if isinstance(value, bool) else float(value)
        for name, value in dataclasses.asdict(style).items()
    }


def _bots():
    """The scripted bots the page plays besides the expert (web/src/bots.ts): their styles."""
    return {"heuristic_cautious": {"style": _style(heuristic.CAUTIOUS)}}


def _features():
    return {
        features.AF_VERSION: {
            "placement": {
                "rows": features.N_PLACEMENTS,  # row hand_slot * n_place_types + place_type
                "width": features.N_PLACEMENT_FEATURES,
                "columns": _blocks(features.PLACEMENT_COLUMNS),
            },
            "draw": {
                "rows": cards.N_ACTIONS,  # row = action id
                "width": features.N_DRAW_FEATURES,
                "columns": _blocks(features.DRAW_COLUMNS),
            },
            "expert_floor": features.EXPERT_FLOOR,
            "expert_scale": _float(features.EXPERT_SCALE),
            "last_round": features.LAST_ROUND,
            "expert": _expert(),
        }
    }


def _search():
    cfg = load_preset(PAGE_PRESET)
    knobs = dataclasses.asdict(cfg)
    knobs["scales"] = list(cfg.scales)
    knobs["endgame"] = None if cfg.endgame is None else dict(cfg.endgame)
    return {"preset": PAGE_PRESET, "knobs": knobs}


def contract():
    """The contract as a JSON-ready dict (see the module doc)."""
    return {
        "generated_by": GENERATOR,
        "note": (
            "Generated from the Python package by lost_cities/export/web_contract.py: do not edit. "
            "Change the Python side and run `python tools/web_contract.py`."
        ),
        "format_version": FORMAT_VERSION,
        "cards": {
            "n_colours": cards.N_COLOURS,
            "n_slots": cards.N_SLOTS,
            "n_cards": cards.N_CARDS,
            "n_handshake_slots": cards.N_HANDSHAKE_SLOTS,
            "hand_size": cards.HAND_SIZE,
            "dealt": cards.DEALT,
            "deck_draws": cards.DECK_DRAWS,
            "max_steps": cards.MAX_STEPS,
        },
        "actions": {
            "n_place_types": cards.N_PLACE_TYPES,
            "n_draw_sources": cards.N_DRAW_SOURCES,
            "n_actions": cards.N_ACTIONS,
            "play": 0,
            "discard": 1,
            "deck": 0,
            "encoding": "(hand_slot * n_place_types + place_type) * n_draw_sources + draw_source",
        },
        "engine": {
            "loc_hand": engine.LOC_HAND,
            "loc_known": engine.LOC_KNOWN,
            "loc_expedition": engine.LOC_EXPEDITION,
            "loc_pile": engine.LOC_PILE,
            "move_history": engine.MOVE_HISTORY,
            "no_move": int(engine.NO_MOVE),
        },
        "match": {"n_rounds": match.N_ROUNDS},
        "observations": _observations(),
        "features": _features(),
        "bots": _bots(),
        "search": _search(),
    }


def render(data=None):
    """The file's text: :func:`contract` (or ``data``) as indented JSON, one trailing newline."""
    return json.dumps(contract() if data is None else data, indent=2) + "\n"


def write(path=WEB_PATH):
    """Write :func:`contract` to ``path`` (default: the web client's copy); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render())
    return path
