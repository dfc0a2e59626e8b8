"""``python -m lost_cities.bench``: see :mod:`lost_cities.cli.bench`."""

from lost_cities.cli.bench import main

if __name__ == "__main__":
    raise SystemExit(main())
