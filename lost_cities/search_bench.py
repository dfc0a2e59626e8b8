"""``python -m lost_cities.search_bench``: see :mod:`lost_cities.cli.search_bench`."""

from lost_cities.cli.search_bench import main

if __name__ == "__main__":
    raise SystemExit(main())
