"""``python -m lost_cities.replay``: see :mod:`lost_cities.cli.replay`."""

from lost_cities.cli.replay import main

if __name__ == "__main__":
    raise SystemExit(main())
