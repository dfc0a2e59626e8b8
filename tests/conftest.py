"""Shared pytest options and fixtures: ``--full`` switches long profiles (e.g. 100,000
differential games) on; ``match_states``, positions met in play, serves the search's tests
and those beside them."""

import pytest


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", help="run the long profiles (slow)")


@pytest.fixture(scope="session")
def full(request):
    return request.config.getoption("--full")


@pytest.fixture(scope="session")
def match_states():
    """MatchStates met in play (tests/search_common.py plays them), for the search's tests and
    those beside them (tests/export, tests/evaluation, tests/test_policies.py). Pure data,
    played (compiled) once a session."""
    from search_common import play_match_states

    return play_match_states()
