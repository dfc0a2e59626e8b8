"""The agents the web page plays, shipped with the Python package as ``lost_cities.shipped``
(pyproject.toml maps this folder there), so that specs and presets name them from anywhere."""
