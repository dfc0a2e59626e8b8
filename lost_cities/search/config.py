"""The search's knobs (:class:`SearchConfig`) and named presets (``conf/search/<name>.yaml``)."""

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from omegaconf import OmegaConf

CONF_DIR = Path(__file__).resolve().parent.parent.parent / "conf" / "search"


@dataclass(frozen=True)
class SearchConfig:
    """Knobs of the determinized search (see lost_cities/search/agent.py).

    - ``worlds``: sampled worlds per decision (every candidate is scored on all of them).
    - ``candidates``: the base move plus the base policy's next best, ``candidates`` in all.
    - ``depth``: plies played after a candidate before the leaf value; ``None``: to the
      round's end (the leaf is then the exact round result in match terms).
    - ``gate_points`` / ``gate_z``: leave the base move only for a candidate whose mean
      paired gain over it exceeds ``gate_points`` points (in utility units when scaled)
      and ``gate_z`` standard errors of that mean.
    - ``start_value``: points for starting the next round (a round other than the last).
    - ``scales``: per round, ``tanh(points / scale)`` as the utility (0: raw points).
    - ``proposer``: the scorer that ranks the candidates (a ``BOT_SCORES`` name); ``None``:
      the base policy's own scores.
    """

    worlds: int = 16
    candidates: int = 4
    depth: int | None = None
    gate_points: float = 1.0
    gate_z: float = 1.0
    start_value: float = 0.0
    scales: tuple = (0.0, 0.0, 0.0)
    proposer: str | None = None

    def __post_init__(self):
        if self.worlds < 1 or self.candidates < 1:
            raise ValueError(f"search needs worlds >= 1 and candidates >= 1, got {self}")
        if len(self.scales) != 3:
            raise ValueError(f"search.scales needs one scale per round (3), got {self.scales}")
        object.__setattr__(self, "scales", tuple(float(s) for s in self.scales))

    def rollout_plies(self, plies_left):
        """Plies one decision simulates when ``plies_left`` remain in the round (the cost)."""
        depth = plies_left if self.depth is None else min(self.depth, plies_left)
        return self.worlds * self.candidates * depth


def load_preset(name="default", **overrides):
    """``conf/search/<name>.yaml`` as a :class:`SearchConfig`, with ``overrides`` applied."""
    path = CONF_DIR / f"{name}.yaml"
    if not path.exists():
        names = sorted(p.stem for p in CONF_DIR.glob("*.yaml"))
        raise ValueError(f"unknown search preset {name!r}; choose one of {names}")
    values = OmegaConf.to_container(OmegaConf.load(path), resolve=True)
    known = {f.name for f in dataclasses.fields(SearchConfig)}
    unknown = (set(values) | set(overrides)) - known
    if unknown:
        raise ValueError(f"unknown search knobs {sorted(unknown)}; the knobs are {sorted(known)}")
    values.update(overrides)
    if "scales" in values:
        values["scales"] = tuple(values["scales"])
    return SearchConfig(**values)
