"""Write gates.json into finished run dirs that lack one: ``python post_hoc_gates.py RUN_DIR...``.

Training writes gates.json itself once gates are wired into it; this runs the same
``run_gates`` (conf/gates/default.yaml) on each run's final checkpoint.
"""

import json
import logging
import sys
from importlib import resources
from pathlib import Path

import jax
from omegaconf import OmegaConf

from lost_cities import agents
from lost_cities.evaluation import run_gates

logging.getLogger("absl").setLevel(logging.WARNING)
gates_cfg = OmegaConf.load(resources.files("lost_cities.conf") / "gates" / "default.yaml")
for run in map(Path, sys.argv[1:]):
    agent = agents.load(run)
    gates = run_gates(agent.env, agent.policy, gates_cfg, jax.random.key(0))
    (run / "gates.json").write_text(json.dumps(gates, indent=1, allow_nan=False) + "\n")
    print(run, {name: (round(g["win_rate"], 3), g["passed"]) for name, g in gates.items()})
