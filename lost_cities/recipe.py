"""``python -m lost_cities.recipe``: see :mod:`lost_cities.cli.recipe`."""

from lost_cities.cli.recipe import main

if __name__ == "__main__":
    raise SystemExit(main())
