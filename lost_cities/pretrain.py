"""``python -m lost_cities.pretrain``: see :mod:`lost_cities.cli.pretrain`."""

from lost_cities.cli.pretrain import main

if __name__ == "__main__":
    raise SystemExit(main())
