"""Configs of the Hydra CLIs other than training (``pkg://lost_cities.conf.cli``).

A config dir of their own, without the training groups, so that ``env=match3`` or
``opponent=heuristic_expert`` are plain values here.
"""
