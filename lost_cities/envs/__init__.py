"""Environments by name: ``make("single_round")`` or ``make("match3")``."""

from functools import cache

from lost_cities.envs.base import Env
from lost_cities.envs.match3 import make_match3
from lost_cities.envs.single_round import make_single_round

_REGISTRY = {"single_round": make_single_round, "match3": make_match3}


def names() -> list[str]:
    """The registered env names (every one is held to tests/envs/test_env_contract.py)."""
    return sorted(_REGISTRY)


def register(name, factory):
    _REGISTRY[name] = factory
    make.cache_clear()


@cache
def make(name: str) -> Env:
    """The env called ``name``; one instance per name, so jitted code keyed on its
    functions is compiled once per process, not once per ``make`` call."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown env {name!r}; choose one of {sorted(_REGISTRY)}")
    return _REGISTRY[name]()


__all__ = ["Env", "make", "names", "register"]
