"""``python -m lost_cities.belief``: see :mod:`lost_cities.cli.belief`."""

from lost_cities.cli.belief import main

if __name__ == "__main__":
    raise SystemExit(main())
