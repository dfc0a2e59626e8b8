"""Fixed, versioned deal banks, so that two evaluations compare on identical deals.

A bank version names a generator *and* its seed. Deal ``i`` of a version never
changes, and ``deal_bank(n)`` is a prefix of ``deal_bank(m)`` for ``n < m`` (deals
are drawn one after another from one stream). Changing anything about how a
version's deals are generated (seed, algorithm, order of draws) requires a new
version name; results computed on different versions are not comparable.

v1 uses numpy's legacy ``RandomState`` (Mersenne Twister), whose stream numpy
guarantees stable across releases; numpy's ``Generator`` and ``jax.random`` make no
such promise (jax changed its default key derivation in 0.5), so neither can back a
bank that must stay fixed.
"""

import functools

import numpy as np

from lost_cities.game.cards import N_CARDS

ROUNDS_PER_DEAL = 3  # a deal holds what the longest game (match3) needs

_SEEDS = {"v1": 20_261_130}


@functools.lru_cache(maxsize=8)
def _cached_bank(n: int, version: str):
    rng = np.random.RandomState(_SEEDS[version])
    deck_orders = np.empty((n, ROUNDS_PER_DEAL, N_CARDS), np.int32)
    coins = np.empty((n, ROUNDS_PER_DEAL), np.int32)
    for i in range(n):
        for r in range(ROUNDS_PER_DEAL):
            deck_orders[i, r] = rng.permutation(N_CARDS)
        coins[i] = rng.randint(0, 2, size=ROUNDS_PER_DEAL)
    deck_orders.flags.writeable = False
    coins.flags.writeable = False
    return deck_orders, coins


def deal_bank(n: int, version: str = "v1", first: int = 0):
    """Deals ``first .. first + n - 1`` of bank ``version``: ``(deck_orders int32[n, 3, 60],
    coins int32[n, 3])``. ``first > 0`` gives a range disjoint from the usual prefix, so an
    agent can be chosen on one range and its strength claimed on another.

    The arrays are read-only (they are cached and shared between callers).
    """
    if version not in _SEEDS:
        raise ValueError(f"unknown deal bank version {version!r}; choose one of {sorted(_SEEDS)}")
    n, first = int(n), int(first)
    if n < 1:
        raise ValueError(f"a deal bank needs at least one deal, got n={n}")
    if first < 0:
        raise ValueError(f"the first deal is a bank index >= 0, got first={first}")
    deck_orders, coins = _cached_bank(first + n, version)
    return deck_orders[first:], coins[first:]


def bank_versions():
    return sorted(_SEEDS)
