"""Starting or resuming a run dir: everything is checked before anything is written.

A new run validates its config and refuses a dir that already holds files; ``resume=<run
dir>`` continues a run with the config it started with, refusing overrides it would ignore
(named); ``ppo.total_decisions`` extends the run.
"""

import uuid
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from omegaconf import OmegaConf

from lost_cities.checkpoints import check_checkpoint_dir
from lost_cities.evaluation.gates import RESULT_METRICS
from lost_cities.ppo import config as schema
from lost_cities.ppo.trainer import num_updates
from lost_cities.training.lock import LOCK_FILE
from lost_cities.training.run_dir import CONFIG_FILE

# Overrides a resume may give: they change no result of the updates already done (the
# devices and processes change only the order of float sums: lost_cities.parallel).
RESUME_ALLOWED = ("resume", "progress", "ppo.total_decisions", "devices", "distributed")


def hydra_overrides():
    """The command line's overrides (``key=value``), or None outside a Hydra app."""
    try:
        return list(HydraConfig.get().overrides.task)
    except ValueError:
        return None


def override_key(override):
    """``+a.b=1``, ``~a.b`` or ``a.b=1`` -> ``a.b``: the key an override sets."""
    return override.lstrip("+~").split("=", 1)[0]


def _differs(cfg, saved, key):
    mine, theirs = OmegaConf.select(cfg, key, default=None), OmegaConf.select(saved, key, default=None)
    if OmegaConf.is_config(mine) or OmegaConf.is_config(theirs):
        mine = OmegaConf.to_container(mine, resolve=True) if OmegaConf.is_config(mine) else mine
        theirs = OmegaConf.to_container(theirs, resolve=True) if OmegaConf.is_config(theirs) else theirs
    return mine != theirs


def _leaf_keys(node, prefix=""):
    for key, value in node.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _leaf_keys(value, name + ".")
        else:
            yield name


def resume_conflicts(cfg, saved, overrides, original):
    """The overrides a resume would ignore: each given key whose value differs from the
    run's, unless the run was started with that very override (``original``). Without
    a command line (``overrides`` None: called from Python) every key of ``cfg`` counts."""
    if overrides is None:
        keys = list(_leaf_keys(OmegaConf.to_container(cfg, resolve=True)))
        given = keys
    else:
        given = [o for o in overrides if o not in original]
        keys = [override_key(o) for o in given]
    conflicts = []
    for override, key in zip(given, keys, strict=True):
        if key.startswith("hydra.") or any(key == a or key.startswith(a + ".") for a in RESUME_ALLOWED):
            continue
        if OmegaConf.select(cfg, key, default=None) is None and overrides is not None:
            conflicts.append(override)  # a group that only picks other values (experiment=...)
        elif _differs(cfg, saved, key):
            conflicts.append(override if overrides is not None else key)
    return conflicts


def check_new_run_dir(run_dir):
    """A new run writes only into a dir that is absent or empty (but for its own lock), and
    one whose checkpoints can be read back."""
    check_checkpoint_dir(run_dir)
    files = sorted(p.name for p in run_dir.iterdir() if p.name != LOCK_FILE) if run_dir.exists() else []
    if files:
        held = ", ".join(files[:6])
        raise FileExistsError(
            f"{run_dir} already holds files ({held}); a new run never writes into another's dir: "
            f"continue that run with resume={run_dir}, or leave hydra.run.dir at its unique default"
        )


def prepare_run_dir(cfg, run_dir, overrides=None):
    """The config to train with and the run dir (a resumed run's own, with its saved config).

    Everything is checked before anything is written: a refused start changes nothing
    on disk. A new run validates its config, refuses a dir that already holds files and
    then writes ``config.yaml``, ``.hydra/overrides.yaml`` (the command line, for
    ``lost_cities.report``) and ``wandb_id.txt``. A resume refuses overrides it would
    ignore; ``ppo.total_decisions`` (more than the run has done) extends the run.
    """
    if overrides is None:
        overrides = hydra_overrides()
    if cfg.resume is None:
        schema.validate(cfg)
        check_best_metric(cfg)
        run_dir = Path(run_dir)
        check_new_run_dir(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / CONFIG_FILE).write_text(OmegaConf.to_yaml(cfg, resolve=True))
        (run_dir / ".hydra").mkdir(exist_ok=True)
        (run_dir / ".hydra" / "overrides.yaml").write_text(OmegaConf.to_yaml(list(overrides or [])))
        (run_dir / "wandb_id.txt").write_text(uuid.uuid4().hex[:12])
        return cfg, run_dir
    run_dir = Path(cfg.resume).absolute()
    if not (run_dir / CONFIG_FILE).exists():
        raise FileNotFoundError(
            f"resume={cfg.resume}: no {CONFIG_FILE} there; pass a run dir of lost_cities.train"
        )
    saved = OmegaConf.merge(
        OmegaConf.structured(schema.TrainConfig), with_later_keys(OmegaConf.load(run_dir / CONFIG_FILE))
    )
    original_path = run_dir / ".hydra" / "overrides.yaml"
    original = list(OmegaConf.load(original_path)) if original_path.exists() else []
    conflicts = resume_conflicts(cfg, saved, overrides, original)
    if conflicts:
        raise ValueError(
            f"resume={cfg.resume} continues the run with the config it started with; it would ignore "
            f"{conflicts}. Drop them, or start a new run with them. Only ppo.total_decisions "
            "(to extend the run), progress, devices and distributed may change on resume"
        )
    saved.resume = str(run_dir)
    saved.progress, saved.devices, saved.distributed = cfg.progress, cfg.devices, cfg.distributed
    if overrides is None or any(override_key(o) == "ppo.total_decisions" for o in overrides):
        extend_budget(saved.ppo, cfg.ppo.total_decisions)
    schema.validate(saved)
    return saved, run_dir


def extend_budget(ppo, total_decisions):
    """Set the run's budget; a longer one restarts an annealed rate at the old end (the line
    to 0 at the new end takes over there), recorded in ``ppo.anneal_restarts`` so that the
    run's config.yaml stays its whole schedule: a new run of it repeats the extended run."""
    old_end = num_updates(ppo)
    ppo.total_decisions = total_decisions
    if ppo.anneal_lr and num_updates(ppo) > old_end:
        ppo.anneal_restarts = [*ppo.anneal_restarts, old_end]


# Keys added after runs were saved, with the value that keeps such a run's behaviour: a
# resume of an older run reads them from here (the saved config is not rewritten).
LATER_KEYS = {
    "ppo.anchor_kl": 0.0,
    "ppo.lr_warmup_updates": 0,
    "ppo.anneal_restarts": [],  # a run extended before it existed: its config.yaml lacks its restarts
    "ppo.magnet_kl": 0.0,
    "ppo.magnet_reset_updates": 0,
    "init.start": None,  # init=bc only
}


def with_later_keys(saved):
    """``saved`` (a run's config.yaml) with every :data:`LATER_KEYS` key it lacks."""
    for dotted, value in LATER_KEYS.items():
        group, key = dotted.split(".")
        if dotted == "init.start" and saved.get("init", {}).get("name") != "bc":
            continue
        if group in saved and key not in saved[group]:
            saved[group][key] = value
    return saved


def check_best_metric(cfg):
    """A ``gates/`` best metric must name a configured gate and a gate metric."""
    metric = cfg.checkpoint.best_metric
    if not metric.startswith("gates/") or metric == "gates/passed":
        return
    parts = metric.split("/")
    gates, known = list(cfg.gates.gates), (*RESULT_METRICS, "passed")
    if len(parts) != 3 or parts[1] not in gates or parts[2] not in known:
        raise ValueError(
            f"checkpoint.best_metric={metric!r} names no gate metric; gates here: {gates}, "
            f"each with gates/<gate>/<one of {list(known)}> (or gates/passed)"
        )
