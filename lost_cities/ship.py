"""``python -m lost_cities.ship``: see :mod:`lost_cities.cli.ship`."""

from lost_cities.cli.ship import main

if __name__ == "__main__":
    raise SystemExit(main())
