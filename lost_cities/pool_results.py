"""``python -m lost_cities.pool_results``: see :mod:`lost_cities.cli.pool_results`."""

from lost_cities.cli.pool_results import main

if __name__ == "__main__":
    raise SystemExit(main())
