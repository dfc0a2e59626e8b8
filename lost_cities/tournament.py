"""``python -m lost_cities.tournament``: see :mod:`lost_cities.cli.tournament`."""

from lost_cities.cli.tournament import main

if __name__ == "__main__":
    raise SystemExit(main())
