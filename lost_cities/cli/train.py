"""``python -m lost_cities.train``: the main job (SPEC §1, §6; conf/config.yaml).

Side effects live here: the run dir (resolved config, metrics.jsonl, checkpoints,
learning-curve PNG), W&B, the progress bar and the closing evaluation. Training itself
is :class:`lost_cities.ppo.trainer.Trainer` (pure, one jitted update); ``init=bc``
first clones a teacher (:mod:`lost_cities.imitation.warm_start`, ``pretrain.jsonl``).

``resume=<run dir>`` continues that run from its latest checkpoint with the config it
was started with; metrics rows past the checkpoint (written before an interruption)
are dropped, so the finished run has each update's row exactly once.
"""

import json
import logging
import math
import time
import uuid
from pathlib import Path

import hydra
import jax
import numpy as np
from hydra.core.hydra_config import HydraConfig
from jax.tree_util import Partial
from omegaconf import OmegaConf

from lost_cities.agents import network_policy
from lost_cities.cli import CONF
from lost_cities.evaluation.gates import gate_metrics, run_gates
from lost_cities.imitation.warm_start import warm_start
from lost_cities.ppo import config as schema
from lost_cities.ppo.checkpoint import Checkpoints, latest_step, restore
from lost_cities.ppo.run_dir import CONFIG_FILE, EVALUATION_FILE, GATES_FILE, METRICS_FILE, read_metrics
from lost_cities.ppo.trainer import Trainer, num_updates


def _floats(metrics):
    return {k: float(v) for k, v in jax.device_get(metrics).items() if math.isfinite(float(v))}


def _truncate_rows(run_dir, last_update):
    """Keep the rows up to the checkpointed update (a killed run may have written more)."""
    rows = [row for row in read_metrics(run_dir) if row["update"] <= last_update]
    (Path(run_dir) / METRICS_FILE).write_text("".join(json.dumps(row) + "\n" for row in rows))


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


def prepare_run_dir(cfg, run_dir):
    """The config to train with and the run dir (a resumed run's own, with its saved config)."""
    if cfg.resume is None:
        run_dir = Path(run_dir)
        if (run_dir / METRICS_FILE).exists():
            raise FileExistsError(f"{run_dir} already holds a run; continue it with resume={run_dir}")
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / CONFIG_FILE).write_text(OmegaConf.to_yaml(cfg, resolve=True))
        (run_dir / "wandb_id.txt").write_text(uuid.uuid4().hex[:12])
        return cfg, run_dir
    run_dir = Path(cfg.resume).absolute()
    if not (run_dir / CONFIG_FILE).exists():
        raise FileNotFoundError(
            f"resume={cfg.resume}: no {CONFIG_FILE} there; pass a run dir of lost_cities.train"
        )
    saved = OmegaConf.merge(OmegaConf.structured(schema.TrainConfig), OmegaConf.load(run_dir / CONFIG_FILE))
    saved.resume = str(run_dir)
    saved.progress = cfg.progress
    return saved, run_dir


def train(cfg, run_dir, progress=None):
    """Train to ``ppo.total_decisions``; returns ``(trainer, state, run_dir)``."""
    cfg, run_dir = prepare_run_dir(cfg, run_dir)
    schema.validate(cfg)  # every group, gates included, before anything is built
    trainer = Trainer.from_config(cfg)
    state = trainer.init(cfg.seed)
    if cfg.resume is None:
        state = warm_start(trainer, state, run_dir, progress=cfg.progress and progress is None)
    else:
        if latest_step(run_dir) is None:
            raise FileNotFoundError(f"resume={run_dir}: no checkpoint yet in {run_dir}/checkpoints/latest")
        abstract = jax.tree.map(lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype), state)
        state, _ = restore(run_dir / "checkpoints" / "latest", abstract)
        _truncate_rows(run_dir, int(state.update))

    total = num_updates(cfg.ppo)
    start = int(state.update)
    logger = hydra.utils.instantiate(cfg.logger)
    logger.start(
        run_dir,
        OmegaConf.to_container(cfg, resolve=True),
        _run_group(cfg),
        run_dir.name,
        (run_dir / "wandb_id.txt").read_text(),
    )
    checkpoints = Checkpoints(run_dir, cfg.checkpoint.max_to_keep)
    update = jax.jit(trainer.update)
    greedy = network_policy(trainer.env, trainer.network)
    recent = []
    bar = _progress_bar(cfg, start, total) if progress is None else progress
    with open(run_dir / METRICS_FILE, "a") as metrics_file:
        clock, steps_before = time.perf_counter(), int(state.env_steps)
        for _ in range(start, total):
            state, metrics = update(state)
            row = {"update": int(state.update), **_floats(metrics)}
            now, steps = time.perf_counter(), int(state.env_steps)
            row["time/env_steps_per_sec"] = (steps - steps_before) / (now - clock)
            if _gates_due(cfg, row["update"], total):
                row.update(_run_gates(cfg, trainer, greedy, state, run_dir, logger))
            clock, steps_before = time.perf_counter(), steps
            metrics_file.write(json.dumps(row) + "\n")
            metrics_file.flush()
            logger.log(row, step=row["update"])
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
    if bar is not None:
        bar.close()
    checkpoints.close()
    return trainer, state, run_dir, logger


def _gates_due(cfg, update, total):
    every = cfg.gates.every_updates
    return update == total or (every > 0 and update % every == 0)


def _run_gates(cfg, trainer, greedy, state, run_dir, logger):
    """Gate the greedy policy: ``gates.json`` gets the results, the metrics row their scalars.

    ``greedy`` is built once per run, so the evaluation loop compiles once per opponent
    and later gates only feed it new parameters.
    """
    results = run_gates(trainer.env, Partial(greedy, state.params), cfg.gates, jax.random.PRNGKey(cfg.seed))
    (Path(run_dir) / GATES_FILE).write_text(json.dumps(results, indent=1))
    logger.gates(results, step=int(state.update))
    return gate_metrics(results)


def _recent(rows, key):
    values = [row[key] for row in rows if key in row]
    return float(np.mean(values)) if values else None


def _progress_bar(cfg, start, total):
    if not cfg.progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=start, desc="updates", unit="upd", dynamic_ncols=True)


def plot_learning_curve(run_dir):
    """``learning_curve.png``: the run's win rates, margin and losses (and gates) against env steps."""
    from lost_cities.cli.report import plot_run  # matplotlib only when plotting

    return plot_run(run_dir)


def evaluate(trainer, state, run_dir):
    """A short duplicate evaluation of the greedy policy against ``evaluation.opponents``."""
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
        )
    (Path(run_dir) / EVALUATION_FILE).write_text(json.dumps(results, indent=1))
    return results


@hydra.main(config_path=CONF, config_name="config", version_base=None)
def main(cfg):
    logging.getLogger("absl").setLevel(logging.WARNING)  # orbax logs every manager operation at INFO
    trainer, state, run_dir, logger = train(cfg, HydraConfig.get().runtime.output_dir)
    plot = plot_learning_curve(run_dir)
    results = evaluate(trainer, state, run_dir)
    summary = {
        f"eval/{name}/{key}": r[key]
        for name, r in results.items()
        for key in ("win_rate", "win_rate_lower", "margin_mean")
    }
    summary.update({k: v for k, v in read_metrics(run_dir)[-1].items() if k.startswith("gates/")})
    logger.summary(summary)
    logger.finish()
    print(f"\nrun dir: {run_dir}")
    print(f"  config: {run_dir / CONFIG_FILE}\n  metrics: {run_dir / METRICS_FILE}\n  plot: {plot}")
    print(f"  checkpoints: {run_dir / 'checkpoints'} (latest, best)")
    print_evaluation(run_dir, results)


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
