"""Critics (``conf/critic/``): ``shared`` value head or ``omniscient`` separate network."""
