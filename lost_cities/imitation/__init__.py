"""Imitation: a policy network warm-started from a scripted teacher (``conf/init/bc.yaml``)."""

from lost_cities.imitation.bc import BCState, BehaviourCloning

__all__ = ["BCState", "BehaviourCloning"]
