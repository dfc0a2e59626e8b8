"""A new loop run's config checked and resolved before its run dir is written: the teacher's
search, the devices, the prior run and the start."""

import json
from pathlib import Path

import jax
from omegaconf import OmegaConf

from lost_cities import parallel
from lost_cities.improvement.run_dir import CONFIG_FILE, STATE_FILE, is_run_dir
from lost_cities.policies import ModelSpec, parse
from lost_cities.ppo.config import validate
from lost_cities.search.config import load_preset
from lost_cities.training import exploit

# Search knobs the teacher cannot take: the loop's rollouts are the champion's (or a fixed
# `rollout` policy's), valued at the round's end, in uniform or belief-dealt worlds.
UNSUPPORTED_KNOBS = ("leaf", "opponent_rollout", "next_move", "proposer", "endgame", "depth")


def teacher_config(teacher):
    knobs = OmegaConf.to_container(teacher.knobs, resolve=True)
    cfg = load_preset(teacher.search, **knobs)
    bad = [k for k in UNSUPPORTED_KNOBS if getattr(cfg, k) is not None]
    if bad:
        raise ValueError(
            f"teacher.search={teacher.search!r} sets {bad}: the loop's teacher rolls out with the champion "
            "(or a fixed `rollout` policy) to the round's end; choose a preset without them"
        )
    if teacher.hand == "real" and cfg.belief is not None:
        raise ValueError(
            f"teacher.hand=real with a belief ({cfg.belief}): the real hand leaves nothing for a belief "
            "to deal; set teacher.knobs.belief=null or teacher.hand=model"
        )
    if cfg.candidates < 2:
        raise ValueError(
            f"teacher: candidates={cfg.candidates}: a search needs at least 2 candidates to label"
        )
    return cfg


def check_generation(cfg):
    parallel.check_divides(parallel.make_mesh(cfg.devices), cfg.generate.games, "generate.games")
    judge, generate = cfg.teacher.judge, cfg.generate
    if judge.positions % generate.games or judge.positions > generate.games * generate.chunks:
        raise ValueError(
            f"teacher.judge.positions={judge.positions}: the judge labels whole chunk carries of "
            f"generate.games={generate.games} positions, at most generate.chunks={generate.chunks} of them"
        )


def exploiter_overrides(cfg, agent, champion_iteration):
    """The command line of a champion's exploiter (``python -m lost_cities.exploit`` would run
    it): the champion as the agent, the loop's budget and deals, a seed of its own."""
    own = cfg.exploiters
    seed = cfg.seed * 1000 + champion_iteration
    return [f"agent={agent}", f"updates={own.updates}", f"deals={own.deals}", f"seed={seed}", *own.overrides]


def check_exploiters(cfg):
    """Exploiters on: their config must compose and pass exploit's checks (a bot stands in for the
    champions, which do not exist yet), and exploit runs in one process."""
    if cfg.exploiters.updates == 0:
        return
    if jax.process_count() > 1:
        raise ValueError("exploiters.updates > 0: a best response trains in one process; run the loop in one")
    try:
        validate(exploit.compose(exploiter_overrides(cfg, "heuristic_expert", 0)))
    except Exception as error:
        raise ValueError(f"exploiters.overrides={list(cfg.exploiters.overrides)}: {error}") from error


def resolve_prior(cfg, run_dir):
    """Check ``prior`` and write it resolved into ``cfg``: the absolute run dir and the
    iterations pooled (the labels of finished iterations never change, so a resume pools
    the same)."""
    if cfg.prior.run is None:
        return
    source = Path(cfg.prior.run).absolute()
    if source == run_dir:
        raise ValueError(f"prior.run={cfg.prior.run}: this run itself; name an earlier run")
    if not is_run_dir(source):
        raise FileNotFoundError(
            f"prior.run={cfg.prior.run}: no {CONFIG_FILE} and {STATE_FILE} there; "
            "pass a run dir of lost_cities.improve"
        )
    saved = OmegaConf.load(source / CONFIG_FILE)
    if saved.env.name != cfg.env.name:
        raise ValueError(
            f"prior.run={cfg.prior.run} labelled env={saved.env.name}, this run plays env={cfg.env.name}"
        )
    finished = json.loads((source / STATE_FILE).read_text())["iteration"]
    iterations = finished if cfg.prior.iterations is None else cfg.prior.iterations
    if not 1 <= iterations <= finished:
        raise ValueError(
            f"prior.iterations={iterations}: prior.run={cfg.prior.run} has finished {finished} iterations"
        )
    cfg.prior.run, cfg.prior.iterations = str(source), iterations


def start_spec(start):
    spec = parse(start)
    if not isinstance(spec, ModelSpec):
        raise ValueError(f"start={start!r}: a run dir, checkpoint or .onnx model (or null: a fresh network)")
    return spec
