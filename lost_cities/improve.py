"""``python -m lost_cities.improve``: see :mod:`lost_cities.cli.improve`."""

from lost_cities.cli.improve import main

if __name__ == "__main__":
    raise SystemExit(main())
