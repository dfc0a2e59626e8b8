"""``python -m lost_cities.evaluate``: see :mod:`lost_cities.cli.evaluate`."""

from lost_cities.cli.evaluate import main

if __name__ == "__main__":
    raise SystemExit(main())
