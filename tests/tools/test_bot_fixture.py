"""The web client's committed bot fixture (web/tests/fixtures/bots.json) must still be what
the Python bots produce: web/tests/bots.test.ts holds the TypeScript expert to it, and this
test fails when the Python expert changes without the fixture (and the port) following."""

import json
from pathlib import Path

from bot_fixture import FORMAT_VERSION, build_fixture

FIXTURE = Path(__file__).resolve().parents[2] / "web" / "tests" / "fixtures" / "bots.json"


def test_the_committed_bot_fixture_is_what_the_python_bots_play():
    committed = json.loads(FIXTURE.read_text())
    assert committed["format_version"] == FORMAT_VERSION
    rebuilt = build_fixture(committed["seed"], len(committed["matches"]))
    assert rebuilt["matches"] == committed["matches"]
