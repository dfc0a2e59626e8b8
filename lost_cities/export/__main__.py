"""``python -m lost_cities.export``: see :mod:`lost_cities.cli.export`."""

from lost_cities.cli.export import main

raise SystemExit(main())
