"""Starting or resuming a loop's run dir, as :mod:`lost_cities.training.resume` is for
``train``: a new run's config is checked (:mod:`~lost_cities.improvement.resolve`) and written
before anything else; ``resume=<run dir>`` continues a run with the config it started with,
refusing overrides that would change what it computed (named)."""

from pathlib import Path

from omegaconf import OmegaConf

from lost_cities.improvement import config as schema
from lost_cities.improvement.resolve import (
    check_exploiters,
    check_generation,
    resolve_prior,
    start_spec,
    teacher_config,
)
from lost_cities.improvement.run_dir import CONFIG_FILE
from lost_cities.training.resume import hydra_overrides, override_key

# Overrides a resume may give: none changes what the iterations already done compute (a
# gate's size applies from the next gate on; each gate starts where the last one ended).
RESUME_ALLOWED = (
    "resume",
    "iterations",
    "time_limit_minutes",
    "progress",
    "devices",
    "gate.deals",
    "gate.batch_size",
)


# Of those, the ones that go on applying: a resume writes them into the run's config.yaml, so
# that a later `resume=<dir>` alone keeps the bigger gates and the longer run.
RESUME_KEPT = ("iterations", "gate.deals", "gate.batch_size")


# Settings added after runs were saved, with the value that gives such a run's behaviour: a
# resume of a run saved without them gets these.
ADDED_SETTINGS = {
    "gate.opponent": None,
    "prior": {"run": None, "iterations": None},
    "generate.opponents": {},
    "teacher.escalate": {"share": 0.0, "worlds": 0},
    "teacher.hand": "model",
    "teacher.judge": {"positions": 0, "worlds": 256, "hand": "uniform"},
    "teacher.judge.hand": "uniform",
    "exploiters": {"updates": 0, "share": 0.25, "deals": 500, "overrides": []},
}


_ABSENT = object()


def _flat(node, prefix=""):
    for key, value in node.items():
        if isinstance(value, dict) and value:
            yield from _flat(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _allowed(key):
    return any(key == a or key.startswith(a + ".") for a in RESUME_ALLOWED)


def _value(cfg, key):
    value = OmegaConf.select(cfg, key, default=None)
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value


def _conflicts(cfg, saved, overrides):
    """The settings a resume would change that it may not (all but ``RESUME_ALLOWED``): those
    the command line gives (``overrides``) with another value than the run's; from Python
    (``overrides`` None) every setting of ``cfg``."""
    if overrides is None:
        mine = dict(_flat(OmegaConf.to_container(cfg, resolve=True)))
        theirs = dict(_flat(OmegaConf.to_container(saved, resolve=True)))
        keys = set(mine) | set(theirs)
        return sorted(k for k in keys if not _allowed(k) and mine.get(k) != theirs.get(k))
    keys = [override_key(o) for o in overrides]
    return sorted(
        k
        for k in keys
        if not k.startswith("hydra.") and not _allowed(k) and _value(cfg, k) != _value(saved, k)
    )


def saved_config(run_dir):
    """``run_dir``'s config.yaml, with :data:`ADDED_SETTINGS` where it predates them."""
    saved = OmegaConf.load(Path(run_dir) / CONFIG_FILE)
    for key, value in ADDED_SETTINGS.items():
        if OmegaConf.select(saved, key, default=_ABSENT) is _ABSENT:
            OmegaConf.update(saved, key, value, merge=False)
    return saved


def prepare(cfg, run_dir, overrides=None):
    """``(cfg, run_dir)``: a new run's checked dir with its config written, or the resumed
    run's own dir and saved config (with the allowed overrides applied). A resume refuses the
    command line's ``overrides`` (default: Hydra's) that would change the run."""
    if cfg.resume is None:
        OmegaConf.to_object(cfg)  # the schema's checks
        teacher_config(cfg.teacher)
        if cfg.start is not None:
            start_spec(cfg.start)
        check_generation(cfg)
        check_exploiters(cfg)
        run_dir = Path(run_dir).absolute()
        resolve_prior(cfg, run_dir)
        files = [p.name for p in run_dir.iterdir() if p.name != ".lock"] if run_dir.exists() else []
        if files:
            raise FileExistsError(
                f"{run_dir} already holds files ({', '.join(sorted(files)[:6])}); "
                f"resume={run_dir} continues it"
            )
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / CONFIG_FILE).write_text(OmegaConf.to_yaml(cfg, resolve=True))
        return cfg, run_dir
    run_dir = Path(cfg.resume).absolute()
    if not (run_dir / CONFIG_FILE).exists():
        raise FileNotFoundError(
            f"resume={cfg.resume}: no {CONFIG_FILE} there; pass a run dir of lost_cities.improve"
        )
    saved = saved_config(run_dir)
    given = hydra_overrides() if overrides is None else list(overrides)
    conflicts = _conflicts(cfg, saved, given)
    if conflicts:
        raise ValueError(
            f"resume={cfg.resume} continues the run with the config it started with; "
            f"these differ: {conflicts}. "
            f"Only {list(RESUME_ALLOWED[1:])} may change on resume"
        )
    given_keys = None if given is None else {override_key(o) for o in given}
    for key in RESUME_ALLOWED:  # from the command line; from Python, all of cfg's
        if given_keys is None or key in given_keys:
            OmegaConf.update(saved, key, OmegaConf.select(cfg, key), merge=False)
    check_generation(saved)
    saved.resume = str(run_dir)
    OmegaConf.to_object(OmegaConf.merge(OmegaConf.structured(schema.ImproveConfig), saved))
    return saved, run_dir


def keep_resumed_settings(cfg, run_dir):
    """Write the resume's :data:`RESUME_KEPT` settings into ``run_dir``'s config.yaml (the
    rows of iterations.jsonl keep what each gate played)."""
    path = Path(run_dir) / CONFIG_FILE
    saved = OmegaConf.load(path)
    changed = [key for key in RESUME_KEPT if OmegaConf.select(saved, key) != OmegaConf.select(cfg, key)]
    for key in changed:
        OmegaConf.update(saved, key, OmegaConf.select(cfg, key), merge=False)
    if changed:
        temporary = path.with_suffix(".yaml.tmp")
        temporary.write_text(OmegaConf.to_yaml(saved, resolve=True))
        temporary.replace(path)  # whole or not at all
    return changed


def followed_config(cfg, run_dir):
    """A process other than 0: the config process 0 prepared and saved in ``run_dir``
    (resolved), with this command line's :data:`RESUME_ALLOWED` settings, as process 0's."""
    saved = saved_config(run_dir)
    for key in RESUME_ALLOWED:
        OmegaConf.update(saved, key, OmegaConf.select(cfg, key), merge=False)
    if cfg.resume is not None:
        saved.resume = str(run_dir)
    return saved
