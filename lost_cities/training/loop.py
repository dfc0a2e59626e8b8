"""The training run: ``python -m lost_cities.train`` calls :func:`run` (conf/config.yaml).

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
first gate (or the end) is an error. While a run writes into its dir it holds the dir's lock
(:mod:`lost_cities.training.lock`): a second run or resume of that dir is refused, naming the
holder's pid; a killed run's lock does not block the next.
"""

import contextlib
import difflib
import json
import sys
import time
from pathlib import Path

import hydra
import jax
import numpy as np
from hydra.core.hydra_config import HydraConfig
from jax.tree_util import Partial
from omegaconf import OmegaConf

from lost_cities import distributed, parallel
from lost_cities.checkpoints import Checkpoints, latest_step, quarantine, restore, steps
from lost_cities.evaluation import deal_bank, duplicate_evaluate
from lost_cities.evaluation.gates import gate_metrics, run_gates
from lost_cities.imitation.warm_start import warm_start
from lost_cities.models import Agent, network_policy
from lost_cities.policies import make_policy
from lost_cities.ppo import config as schema
from lost_cities.ppo.logger.none import NoneLogger
from lost_cities.ppo.trainer import Trainer, num_updates
from lost_cities.training.guards import check_finite_update, floats, non_finite_learner
from lost_cities.training.lock import hold
from lost_cities.training.report import plot_run
from lost_cities.training.resume import prepare_run_dir
from lost_cities.training.run_dir import (
    CONFIG_FILE,
    EVALUATION_FILE,
    GATES_FILE,
    GATES_HISTORY_FILE,
    METRICS_FILE,
    read_gates_history,
    read_metrics,
    remove_if_empty,
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
    process (:mod:`lost_cities.distributed`); only process 0 writes files, metrics and W&B,
    holding the run dir's lock (:mod:`lost_cities.training.lock`: a second run of it is refused).
    """
    distributed.check(cfg.distributed)
    writes = distributed.is_main()
    with hold(written_dir(cfg, run_dir)) if writes else contextlib.nullcontext():
        return _train(cfg, run_dir, progress, overrides, writes)


def written_dir(cfg, run_dir):
    """The dir a run writes into: the resumed run's, else ``run_dir``."""
    return Path(cfg.resume).absolute() if cfg.resume is not None else Path(run_dir)


def _train(cfg, run_dir, progress, overrides, writes):
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
                check_finite_update(int(state.update), non_finite_learner(metrics), state, last_saved)
                row = {"update": int(state.update), **floats(metrics)}
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
    if distributed.is_main():
        for step, _ in skipped:
            moved = quarantine(latest, step)
            print(f"resume: moved the bad checkpoint {latest}/{step} to {moved}", file=sys.stderr)
        best = latest.parent / "best"  # a save killed after its best copy: the step is saved again
        for step in (s for s in steps(best) if s > done):
            moved = quarantine(best, step)
            print(
                f"resume: moved the best checkpoint {best}/{step}, past update {done}, to {moved}",
                file=sys.stderr,
            )
        saved_total = OmegaConf.load(run_dir / CONFIG_FILE).ppo.total_decisions
        if saved_total != cfg.ppo.total_decisions:
            (run_dir / CONFIG_FILE).write_text(OmegaConf.to_yaml(cfg, resolve=True))
            print(f"resume: extending the run from {saved_total} to {cfg.ppo.total_decisions} decisions")
        print(f"resume: continuing {run_dir} from {latest}/{done} (update {done} of {total})")
        _truncate_rows(run_dir, done)
    # The others read the run dir next (metrics.jsonl, the checkpoint dirs their orbax managers
    # list): not while process 0 rewrites it, or they could see another run than it does.
    distributed.barrier("resume: process 0 has written the run dir")
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
    return plot_run(run_dir)


def evaluate(trainer, state, run_dir, mesh=None):
    """A short duplicate evaluation of the greedy policy against ``evaluation.opponents``
    (its games split over ``mesh``'s devices; only process 0 writes ``evaluation.json``)."""
    cfg = trainer.cfg.evaluation
    agent = Agent(trainer.env, trainer.network, state.params, {})
    deck_orders, coins = deal_bank(cfg.deals)
    results = {}
    for name in cfg.opponents:
        opponent = make_policy(name, trainer.env)
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


def run(cfg, output_dir):
    """``python -m lost_cities.train``: train in ``output_dir`` (or resume), plot and evaluate;
    returns :func:`objective` (for a sweeper; None off process 0)."""
    try:
        with hold(written_dir(cfg, output_dir)) if distributed.is_main() else contextlib.nullcontext():
            return _run(cfg, output_dir)
    finally:
        remove_if_empty(output_dir)


def _run(cfg, output_dir):
    trainer, state, run_dir, logger = train(cfg, output_dir)
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
    print_gates(run_dir)
    print_evaluation(run_dir, results)
    return objective(trainer.cfg, run_dir)


def print_evaluation(run_dir, results):
    print(f"  evaluation: {run_dir / EVALUATION_FILE}")
    for name, r in results.items():
        print(f"  vs {name:>18}: {_result_line(r)}")


def print_gates(run_dir):
    """The last gates (``gates.json``), ``heuristic_expert`` first: the strongest scripted
    opponent is the number a reader looks for, and it must not hide in a file."""
    path = Path(run_dir) / GATES_FILE
    if not path.exists():
        return
    gates = json.loads(path.read_text())
    print(f"  gates: {path}")
    for name, r in sorted(gates.items(), key=lambda item: item[1]["opponent"] != "heuristic_expert"):
        mark = "passed" if r["passed"] else "FAILED"
        print(f"  vs {name:>18}: {_result_line(r)}  {mark}")


def _result_line(r):
    """A duplicate result: the win rate with its Wilson interval, the margin with its interval."""
    margin = f"margin {r['margin_mean']:+.1f}"
    if r.get("margin_lower") is not None:
        margin += f" [{r['margin_lower']:+.1f}, {r['margin_upper']:+.1f}]"
    return (
        f"win {r['win_rate']:.3f} [{r['win_rate_lower']:.3f}, {r['win_rate_upper']:.3f}] "
        f"{margin} over {r['deals']} duplicate deals"
    )
