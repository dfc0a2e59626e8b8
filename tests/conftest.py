"""Shared pytest options and fixtures: ``--full`` switches long profiles (e.g. 100,000
differential games) on; a session-wide persistent compilation cache; ``match_states``,
positions met in play, serves the search's tests and those beside them."""

import os

import jax
import pytest


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true", help="run the long profiles (slow)")


@pytest.fixture(scope="session")
def full(request):
    return request.config.getoption("--full")


@pytest.fixture(scope="session", autouse=True)
def jax_cache(tmp_path_factory):
    """A persistent compilation cache for the session, one for all xdist workers and the
    commands the tests start (the environment carries it to ``python -m lost_cities.train``
    and the rest): a program compiled again, from a new jit of the same function (a Trainer
    or a search policy built anew, a training run repeated, the same tiny run in another
    worker's test), is read back instead. A size limit turns on JAX's file lock, so that one
    process never reads another's half-written entry. Programs that compile in under half a
    second are not worth the write (zlib on the executable)."""
    base = tmp_path_factory.getbasetemp()
    path = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "jax_cache"
    settings = {
        "jax_compilation_cache_dir": str(path),
        "jax_persistent_cache_min_compile_time_secs": 0.5,
        "jax_compilation_cache_max_size": 8 << 30,
    }
    before = {name: getattr(jax.config, name) for name in settings}
    environ = {name.upper(): os.environ.get(name.upper()) for name in settings}
    for name, value in settings.items():
        jax.config.update(name, value)
        os.environ[name.upper()] = str(value)
    yield path
    for name, value in before.items():
        jax.config.update(name, value)
    for name, value in environ.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="session")
def match_states():
    """MatchStates met in play (tests/search_common.py plays them), for the search's tests and
    those beside them (tests/export, tests/evaluation, tests/test_policies.py). Pure data,
    played (compiled) once a session."""
    from search_common import play_match_states

    return play_match_states()
