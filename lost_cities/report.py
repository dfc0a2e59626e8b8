"""``python -m lost_cities.report``: see :mod:`lost_cities.cli.report`."""

from lost_cities.cli.report import main

if __name__ == "__main__":
    raise SystemExit(main())
