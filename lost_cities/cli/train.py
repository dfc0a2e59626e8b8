"""``python -m lost_cities.train``: the main job (SPEC §1, §6; conf/config.yaml).

Side effects live here: the run dir (resolved config, metrics.jsonl, checkpoints,
learning-curve PNG), W&B, the progress bar and the closing evaluation. Training itself
is :class:`lost_cities.ppo.trainer.Trainer` (pure, one jitted update); ``init=bc``
first clones a teacher (:mod:`lost_cities.imitation.warm_start`, ``pretrain.jsonl``).

``resume=<run dir>`` continues that run from its newest good checkpoint with the config
it was started with; metrics rows past the checkpoint (written before an interruption)
are dropped, so the finished run has each update's row exactly once. Overrides that
would change that config are refused (named); ``ppo.total_decisions`` extends the run.

Nothing lies: a new run checks everything before it writes (a refused start changes
nothing on disk, and never writes into a dir that holds files); a non-finite learner
metric or parameter stops the run before that update's row or checkpoint is written
(:class:`NonFiniteError`); a ``checkpoint.best_metric`` that has not appeared by the
first gate (or the end) is an error.
"""

import contextlib
import difflib
import json
import logging
import math
import sys
import time
import uuid
from pathlib import Path

import hydra
import jax
import jax.numpy as jnp
import numpy as np
from hydra.core.hydra_config import HydraConfig
from jax.tree_util import Partial
from omegaconf import OmegaConf

from lost_cities import distributed, parallel
from lost_cities.agents import network_policy
from lost_cities.cli import CONF, remove_if_empty
from lost_cities.evaluation.gates import RESULT_METRICS, gate_metrics, run_gates
from lost_cities.imitation.warm_start import warm_start
from lost_cities.ppo import config as schema
from lost_cities.ppo.checkpoint import Checkpoints, check_checkpoint_dir, latest_step, quarantine, restore
from lost_cities.ppo.logger.none import NoneLogger
from lost_cities.ppo.run_dir import (
    CONFIG_FILE,
    EVALUATION_FILE,
    GATES_FILE,
    GATES_HISTORY_FILE,
    METRICS_FILE,
    read_gates_history,
    read_metrics,
)
from lost_cities.ppo.trainer import Trainer, num_updates


class NonFiniteError(FloatingPointError):
    """Training produced a non-finite loss, metric or parameter; the run stops there."""


def _floats(metrics):
    """The update's metrics as floats; NaN episode metrics (no episode of that kind ended) are
    dropped (a non-finite learner metric stops the run first: :func:`_non_finite_learner`)."""
    return {k: float(v) for k, v in jax.device_get(metrics).items() if math.isfinite(float(v))}


def _non_finite_learner(metrics):
    """The learner metrics (losses, entropy, KL, ...) that are NaN or infinite."""
    values = {k: float(v) for k, v in jax.device_get(metrics).items() if k.startswith("learner/")}
    return {k: v for k, v in values.items() if not math.isfinite(v)}


@jax.jit
def _all_finite(params):
    return jnp.all(jnp.stack([jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(params)]))


def _check_finite_update(update, bad, state, last_saved):
    """Stop before anything of a non-finite update is written (row, gates, checkpoint)."""
    keep = (
        f"the last good checkpoint (update {last_saved}) is unchanged"
        if last_saved
        else "no checkpoint was written"
    )
    if bad:
        names = ", ".join(f"{k}={v}" for k, v in sorted(bad.items()))
        raise NonFiniteError(f"update {update}: non-finite {names}; training stopped, {keep}")
    if not bool(_all_finite(state.params)):
        raise NonFiniteError(
            f"update {update}: the parameters became non-finite (a NaN/inf gradient or loss); "
            f"training stopped, {keep}"
        )


def _truncate_rows(run_dir, last_update):
    """Keep the rows up to the checkpointed update (a killed run may have written more)."""
    rows = [row for row in read_metrics(run_dir) if row["update"] <= last_update]
    (Path(run_dir) / METRICS_FILE).write_text("".join(json.dumps(row) + "\n" for row in rows))
    history = Path(run_dir) / GATES_HISTORY_FILE
    if history.exists():
        kept = [r for r in read_gates_history(run_dir) if r["update"] <= last_update]
        history.write_text("".join(json.dumps(r) + "\n" for r in kept))


def checkpoint_meta(trainer, update):
    cfg = trainer.cfg
    return {
        "env": trainer.env.name,
        "obs_version": trainer.env.obs_version,
        "obs_dim": trainer.env.obs_dim,
        "network": OmegaConf.to_container(cfg.network, resolve=True),
        "critic": OmegaConf.to_container(cfg.critic, resolve=True),
        "update": update,
        "config": OmegaConf.to_container(cfg, resolve=True),
    }


def _run_group(cfg):
    """W&B group: the sweep's dir name in a multirun, else the experiment name."""
    try:
        hydra_cfg = HydraConfig.get()
    except ValueError:
        return cfg.experiment_name
    if hydra_cfg.mode == hydra.types.RunMode.MULTIRUN:
        return f"{cfg.experiment_name}/{Path(hydra_cfg.sweep.dir).name}"
    return cfg.experiment_name


# Overrides a resume may give: they change no result of the updates already done (the
# devices and processes change only the order of float sums: lost_cities.parallel).
RESUME_ALLOWED = ("resume", "progress", "ppo.total_decisions", "devices", "distributed")


def _hydra_overrides():
    """The command line's overrides (``key=value``), or None outside a Hydra app."""
    try:
        return list(HydraConfig.get().overrides.task)
    except ValueError:
        return None


def _override_key(override):
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
        keys = [_override_key(o) for o in given]
    conflicts = []
    for override, key in zip(given, keys, strict=True):
        if key.startswith("hydra.") or any(key == a or key.startswith(a + ".") for a in RESUME_ALLOWED):
            continue
        if OmegaConf.select(cfg, key, default=None) is None and overrides is not None:
            conflicts.append(override)  # a group that only picks other values (experiment=...)
        elif _differs(cfg, saved, key):
            conflicts.append(override if overrides is not None else key)
    return conflicts


def _check_new_run_dir(run_dir):
    """A new run writes only into a dir that is absent or empty, and one whose checkpoints
    can be read back."""
    check_checkpoint_dir(run_dir)
    if run_dir.exists() and any(run_dir.iterdir()):
        held = ", ".join(sorted(p.name for p in run_dir.iterdir())[:6])
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
        overrides = _hydra_overrides()
    if cfg.resume is None:
        schema.validate(cfg)
        check_best_metric(cfg)
        run_dir = Path(run_dir)
        _check_new_run_dir(run_dir)
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
    if overrides is None or any(_override_key(o) == "ppo.total_decisions" for o in overrides):
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


def _check_best_seen(cfg, seen, update):
    """At the first gate and at the end: a best metric that never appeared is an error."""
    metric = cfg.checkpoint.best_metric
    if metric in seen:
        return
    close = difflib.get_close_matches(metric, sorted(seen), n=3, cutoff=0.5)
    raise ValueError(
        f"checkpoint.best_metric={metric!r} has no finite value in updates 1..{update}, so no best "
        f"checkpoint is kept (checkpoints/latest is); "
        + (f"did you mean {close}? " if close else "")
        + "name a metrics.jsonl key that every run has, e.g. gates/<gate>/win_rate"
    )


def train(cfg, run_dir, progress=None, overrides=None):
    """Train to ``ppo.total_decisions``; returns ``(trainer, state, run_dir, logger)``.

    ``overrides``: the command line (read from Hydra when None), which ``resume=`` checks.
    The update runs data-parallel over ``devices`` (:mod:`lost_cities.parallel`) of every
    process (:mod:`lost_cities.distributed`); only process 0 writes files, metrics and W&B.
    """
    distributed.check(cfg.distributed)
    writes = distributed.is_main()
    if writes:
        cfg, run_dir = prepare_run_dir(cfg, run_dir, overrides)
    run_dir = distributed.broadcast_path(Path(run_dir))
    if not writes:  # the same checks; a resume reads the run's saved config (prepare writes nothing then)
        cfg = prepare_run_dir(cfg, run_dir, overrides)[0] if cfg.resume else schema.validate(cfg)
    mesh = parallel.make_mesh(cfg.devices)
    parallel.check_divides(mesh, cfg.ppo.num_envs, "ppo.num_envs")
    if writes:
        print(f"train: {parallel.describe(mesh)}", file=sys.stderr)
    trainer = Trainer.from_config(cfg)
    state = trainer.init(cfg.seed)
    total = num_updates(cfg.ppo)
    batch = cfg.ppo.num_envs * cfg.ppo.rollout_length
    if total * batch != cfg.ppo.total_decisions:
        print(
            f"note: ppo.total_decisions={cfg.ppo.total_decisions} is {total} updates of {batch} "
            f"decisions: the run trains on {total * batch} (a whole number of updates)",
            file=sys.stderr,
        )
    shardings = parallel.state_shardings(state, mesh)
    if cfg.resume is None:
        show = cfg.progress and progress is None and writes
        state = warm_start(trainer, state, run_dir if writes else None, progress=show)
    else:
        state = _resume(cfg, state, shardings, run_dir, total)
    state = parallel.place(state, shardings)

    start = int(state.update)
    logger = hydra.utils.instantiate(cfg.logger) if writes else NoneLogger()
    logger.start(
        run_dir,
        OmegaConf.to_container(cfg, resolve=True),
        _run_group(cfg),
        run_dir.name,
        (run_dir / "wandb_id.txt").read_text(),
    )
    checkpoints = Checkpoints(run_dir, cfg.checkpoint.max_to_keep)
    update = parallel.parallel_update(trainer, shardings, mesh)
    games = parallel.batch_sharding(mesh)
    greedy = network_policy(trainer.env, trainer.network)
    recent = []
    seen = {key for row in read_metrics(run_dir) for key in row}
    gated = any(key.startswith("gates/") for key in seen)
    last_saved = start or None
    bar = (_progress_bar(cfg, start, total, mesh) if progress is None else progress) if writes else None
    try:
        with open(run_dir / METRICS_FILE, "a") if writes else contextlib.nullcontext() as metrics_file:
            clock, steps_before = time.perf_counter(), int(state.env_steps)
            for _ in range(start, total):
                state, metrics = update(state)
                metrics = jax.device_get(metrics)
                _check_finite_update(int(state.update), _non_finite_learner(metrics), state, last_saved)
                row = {"update": int(state.update), **_floats(metrics)}
                now, steps = time.perf_counter(), int(state.env_steps)
                row["time/env_steps_per_sec"] = (steps - steps_before) / (now - clock)
                gate_now = _gates_due(cfg, row["update"], total)
                if gate_now:
                    row.update(_run_gates(cfg, trainer, greedy, state, run_dir, logger, games, writes))
                clock, steps_before = time.perf_counter(), steps
                if writes:
                    metrics_file.write(json.dumps(row) + "\n")
                    metrics_file.flush()
                logger.log(row, step=row["update"])
                seen.update(row)
                if (gate_now and not gated) or row["update"] == total:
                    _check_best_seen(cfg, seen, row["update"])
                gated = gated or gate_now
                recent = (recent + [row])[-cfg.checkpoint.every_updates :]
                if bar is not None:
                    bar.update(1)
                    bar.set_postfix(
                        steps_s=f"{row['time/env_steps_per_sec']:.0f}",
                        win=_recent(recent, "episode/win_vs_fixed"),
                    )
                if row["update"] % cfg.checkpoint.every_updates == 0 or row["update"] == total:
                    best = _recent(recent, cfg.checkpoint.best_metric)
                    checkpoints.save(row["update"], state, checkpoint_meta(trainer, row["update"]), best)
                    last_saved = row["update"]
    finally:
        checkpoints.close()
    if bar is not None:
        bar.close()
    return trainer, state, run_dir, logger


def _resume(cfg, state, shardings, run_dir, total):
    """The state of the run's newest good checkpoint, restored straight into this run's
    ``shardings`` (any device count); a corrupt newer one is moved aside."""
    latest = run_dir / "checkpoints" / "latest"
    if latest_step(run_dir) is None:
        raise FileNotFoundError(f"resume={run_dir}: no checkpoint yet in {latest}")
    abstract = jax.tree.map(lambda x, s: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=s), state, shardings)
    state, _, skipped = restore(latest, abstract)
    distributed.barrier("resume: every process read the checkpoint")
    done = int(state.update)
    if done >= total:
        raise ValueError(
            f"resume={run_dir}: the run is finished (update {done} of {total}); to train it longer "
            f"pass ppo.total_decisions=<more than {done * cfg.ppo.num_envs * cfg.ppo.rollout_length}>"
        )
    # Past the checks: only now does the resume write into the run dir (process 0 only).
    if not distributed.is_main():
        return state
    for step, _ in skipped:
        moved = quarantine(latest, step)
        print(f"resume: moved the bad checkpoint {latest}/{step} to {moved}", file=sys.stderr)
    saved_total = OmegaConf.load(run_dir / CONFIG_FILE).ppo.total_decisions
    if saved_total != cfg.ppo.total_decisions:
        (run_dir / CONFIG_FILE).write_text(OmegaConf.to_yaml(cfg, resolve=True))
        print(f"resume: extending the run from {saved_total} to {cfg.ppo.total_decisions} decisions")
    print(f"resume: continuing {run_dir} from {latest}/{done} (update {done} of {total})")
    _truncate_rows(run_dir, done)
    return state


def _gates_due(cfg, update, total):
    every = cfg.gates.every_updates
    return update == total or (every > 0 and update % every == 0)


def _run_gates(cfg, trainer, greedy, state, run_dir, logger, games, writes):
    """Gate the greedy policy: ``gates.json`` gets the results, the metrics row their scalars.

    ``greedy`` is built once per run, so the evaluation loop compiles once per opponent
    and later gates only feed it new parameters. ``games``: the games' sharding (every
    process plays its share); only the writing process writes.
    """
    key = jax.random.PRNGKey(cfg.seed)
    results = run_gates(trainer.env, Partial(greedy, state.params), cfg.gates, key, sharding=games)
    if not writes:
        return gate_metrics(results)
    (Path(run_dir) / GATES_FILE).write_text(json.dumps(results, indent=1))
    with open(Path(run_dir) / GATES_HISTORY_FILE, "a") as history:
        history.write(json.dumps({"update": int(state.update), "gates": results}) + "\n")
    logger.gates(results, step=int(state.update))
    return gate_metrics(results)


def _recent(rows, key):
    values = [row[key] for row in rows if key in row]
    return float(np.mean(values)) if values else None


def _progress_bar(cfg, start, total, mesh):
    """The updates' bar, named by what they run on (``updates cpu x2``: backend and device count)."""
    if not cfg.progress:
        return None
    from tqdm import tqdm

    desc = f"updates {jax.default_backend()} x{mesh.devices.size}"
    return tqdm(total=total, initial=start, desc=desc, unit="upd", dynamic_ncols=True)


def plot_learning_curve(run_dir):
    """``learning_curve.png``: the run's win rates, margin and losses (and gates) against env steps."""
    from lost_cities.cli.report import plot_run  # matplotlib only when plotting

    return plot_run(run_dir)


def evaluate(trainer, state, run_dir, mesh=None):
    """A short duplicate evaluation of the greedy policy against ``evaluation.opponents``
    (its games split over ``mesh``'s devices; only process 0 writes ``evaluation.json``)."""
    from lost_cities.agents import Agent
    from lost_cities.evaluation import deal_bank, duplicate_evaluate
    from lost_cities.evaluation.policies import resolve_policy

    cfg = trainer.cfg.evaluation
    agent = Agent(trainer.env, trainer.network, state.params, {})
    deck_orders, coins = deal_bank(cfg.deals)
    results = {}
    for name in cfg.opponents:
        opponent = resolve_policy(name, trainer.env)
        results[name] = duplicate_evaluate(
            trainer.env,
            agent.policy,
            opponent,
            deck_orders,
            coins,
            jax.random.PRNGKey(0),
            batch_size=cfg.batch_size,
            sharding=None if mesh is None else parallel.batch_sharding(mesh),
        )
    if distributed.is_main():
        (Path(run_dir) / EVALUATION_FILE).write_text(json.dumps(results, indent=1))
    return results


def objective(cfg, run_dir):
    """What a sweep (``hydra/sweeper=optuna_gates``) maximizes: the run's ``checkpoint.best_metric``,
    averaged over the last ``checkpoint.every_updates`` rows as the best checkpoint's score is."""
    rows = read_metrics(run_dir)[-cfg.checkpoint.every_updates :]
    return _recent(rows, cfg.checkpoint.best_metric)


@hydra.main(config_path=CONF, config_name="config", version_base=None)
def main(cfg):
    """Train, plot and evaluate; returns :func:`objective` (for a sweeper; None off process 0)."""
    logging.getLogger("absl").setLevel(logging.WARNING)  # orbax logs every manager operation at INFO
    output_dir = HydraConfig.get().runtime.output_dir
    try:
        trainer, state, run_dir, logger = train(cfg, output_dir)
    finally:
        remove_if_empty(output_dir)
    results = evaluate(trainer, state, run_dir, parallel.make_mesh(trainer.cfg.devices))
    if not distributed.is_main():
        return
    plot = plot_learning_curve(run_dir)
    summary = {
        f"eval/{name}/{key}": r[key]
        for name, r in results.items()
        for key in ("win_rate", "win_rate_lower", "margin_mean")
    }
    summary.update({k: v for k, v in read_metrics(run_dir)[-1].items() if k.startswith("gates/")})
    logger.summary(summary)
    logger.finish()
    kinds = [k for k in ("latest", "best") if latest_step(run_dir, k) is not None]
    print(f"\nrun dir: {run_dir}")
    print(f"  config: {run_dir / CONFIG_FILE}\n  metrics: {run_dir / METRICS_FILE}\n  plot: {plot}")
    print(f"  checkpoints: {run_dir / 'checkpoints'} ({', '.join(kinds)})")
    print_evaluation(run_dir, results)
    return objective(trainer.cfg, run_dir)


def print_evaluation(run_dir, results):
    print(f"  evaluation: {run_dir / EVALUATION_FILE}")
    for name, r in results.items():
        print(
            f"  vs {name:>18}: win {r['win_rate']:.3f} "
            f"[{r['win_rate_lower']:.3f}, {r['win_rate_upper']:.3f}] "
            f"margin {r['margin_mean']:+.1f} over {r['deals']} duplicate deals"
        )


if __name__ == "__main__":
    main()
