"""The web client's committed parity fixture must still be what the Python engine produces.

web/tests/parity.test.ts checks the TypeScript engine against the fixture; this test
closes the loop, so that a change to the engine or the observations that is not
carried over to the web client (and its fixture regenerated) fails here.
"""

import base64
import json
import zlib
from pathlib import Path

from lost_cities.cli.parity_fixture import FORMAT_VERSION, OBSERVATIONS, build_fixture

FIXTURE = Path(__file__).resolve().parents[2] / "web" / "tests" / "fixtures" / "parity.json"
PACKED = {"masks"}


def unpacked(match):
    """The match with its packed arrays decompressed (zlib's bytes may differ across versions)."""
    decoded = {key: value for key, value in match.items() if key not in PACKED and key != "observations"}
    decoded.update({key: zlib.decompress(base64.b64decode(match[key])) for key in PACKED})
    decoded["observations"] = {
        version: zlib.decompress(base64.b64decode(packed))
        for version, packed in match["observations"].items()
    }
    return decoded


def test_fixture_is_current():
    committed = json.loads(FIXTURE.read_text())
    assert committed["format_version"] == FORMAT_VERSION
    assert set(committed["observations"]) == set(OBSERVATIONS), (
        "regenerate: python -m lost_cities.parity_fixture --out web/tests/fixtures/parity.json"
    )
    fresh = build_fixture(n_matches=1, n_stalling=0, seed=committed["seed"])
    assert unpacked(fresh["matches"][0]) == unpacked(committed["matches"][0]), (
        "the engine no longer reproduces the web parity fixture; if the change is intended, port it to "
        "web/src and regenerate: python -m lost_cities.parity_fixture --out web/tests/fixtures/parity.json"
    )
