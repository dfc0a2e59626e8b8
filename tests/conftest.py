"""Shared pytest options: ``--full`` switches long profiles (e.g. 100,000 differential games) on."""

import pytest


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", help="run the long profiles (slow)")


@pytest.fixture(scope="session")
def full(request):
    return request.config.getoption("--full")
