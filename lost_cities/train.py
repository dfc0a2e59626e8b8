"""``python -m lost_cities.train``: see :mod:`lost_cities.cli.train`."""

from lost_cities.cli.train import main

if __name__ == "__main__":
    raise SystemExit(main())
