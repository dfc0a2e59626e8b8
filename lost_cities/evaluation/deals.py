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
# The most deals a bank is drawn to (first + n): 1,000,000 deals hold 720 MB and take minutes
# to draw, a hundred times a strength claim's 10,000; a bigger number is a typo, refused at once.
MAX_DEALS = 1_000_000


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
    check_bank(n, version, first)
    n, first = int(n), int(first)
    deck_orders, coins = _cached_bank(first + n, version)
    return deck_orders[first:], coins[first:]


def check_bank(n, version="v1", first=0):
    """Refuse what :func:`deal_bank` cannot give, naming the setting (``bank``, ``deals``,
    ``first_deal``): a check that costs nothing, made before any agent is loaded."""
    if version not in _SEEDS:
        raise ValueError(f"bank={version!r}: no such deal bank version; the versions are {sorted(_SEEDS)}")
    for key, value, minimum in (("deals", n, 1), ("first_deal", first, 0)):
        if isinstance(value, bool) or int(value) != value or value < minimum:
            raise ValueError(f"{key}={value!r} must be a whole number >= {minimum}")
    if int(first) + int(n) > MAX_DEALS:
        raise ValueError(
            f"first_deal={first} + deals={n} reaches past deal {MAX_DEALS:,}, the most a bank is drawn "
            f"to ({MAX_DEALS:,} deals hold 720 MB; a claim takes 10,000)"
        )


def bank_versions():
    return sorted(_SEEDS)
