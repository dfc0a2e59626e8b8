"""``python -m lost_cities.carry_probe``: see :mod:`lost_cities.cli.carry_probe`."""

from lost_cities.cli.carry_probe import main

if __name__ == "__main__":
    raise SystemExit(main())
