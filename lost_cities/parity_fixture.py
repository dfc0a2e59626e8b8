"""``python -m lost_cities.parity_fixture``: see :mod:`lost_cities.cli.parity_fixture`."""

from lost_cities.cli.parity_fixture import main

if __name__ == "__main__":
    raise SystemExit(main())
