"""Shared pytest options and fixtures: ``--full`` switches long profiles (e.g. 100,000
differential games) on; a session-wide persistent compilation cache; ``match_states``,
positions met in play, serves the search's tests and those beside them."""

import jax
import pytest


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", help="run the long profiles (slow)")


@pytest.fixture(scope="session")
def full(request):
    return request.config.getoption("--full")


@pytest.fixture(scope="session", autouse=True)
def jax_cache(tmp_path_factory):
    """A persistent compilation cache for the session (one per xdist worker): a program
    compiled again, from a new jit of the same function (a Trainer or a search policy built
    anew, a training run repeated), is read back instead. Programs that compile in under
    half a second are not worth the write (zlib on the executable)."""
    path = tmp_path_factory.getbasetemp() / "jax_cache"
    names = ("jax_compilation_cache_dir", "jax_persistent_cache_min_compile_time_secs")
    before = [getattr(jax.config, name) for name in names]
    jax.config.update(names[0], str(path))
    jax.config.update(names[1], 0.5)
    yield path
    for name, value in zip(names, before, strict=True):
        jax.config.update(name, value)


@pytest.fixture(scope="session")
def match_states():
    """MatchStates met in play (tests/search_common.py plays them), for the search's tests and
    those beside them (tests/export, tests/evaluation, tests/test_policies.py). Pure data,
    played (compiled) once a session."""
    from search_common import play_match_states

    return play_match_states()
