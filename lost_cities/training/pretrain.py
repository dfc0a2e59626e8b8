"""A behaviour-cloned policy as a checkpoint: ``python -m lost_cities.pretrain`` (conf/pretrain.yaml).

The run dir is a training run's (config, checkpoint, evaluation) without PPO updates:
``pretrain.jsonl`` holds the cloning metrics, ``checkpoints/latest/0`` the cloned
parameters, ``evaluation.json`` the clone's duplicate evaluation. Evaluate or export it
like any run dir, or start PPO from it with ``init.checkpoint=<run dir>``.
"""

from lost_cities.checkpoints import Checkpoints
from lost_cities.imitation.warm_start import warm_start
from lost_cities.ppo.trainer import Trainer
from lost_cities.training.lock import hold
from lost_cities.training.loop import checkpoint_meta, evaluate, print_evaluation
from lost_cities.training.resume import prepare_run_dir
from lost_cities.training.run_dir import remove_if_empty


def pretrain(cfg, output_dir):
    """Clone ``cfg.init.teacher`` into a new run dir ``output_dir``; print its evaluation. The
    dir's lock is held throughout, as a training run holds it (another run there is refused)."""
    if cfg.resume is not None:
        raise ValueError("pretrain runs cannot be resumed; start a new one (it is a few minutes)")
    if cfg.init.name != "bc" or cfg.init.checkpoint is not None:
        raise ValueError("pretrain clones a teacher: it needs init=bc with init.checkpoint=null")
    try:
        with hold(output_dir):
            _pretrain(cfg, output_dir)
    finally:
        remove_if_empty(output_dir)  # a refused or failed run leaves no empty dir


def _pretrain(cfg, output_dir):
    cfg, run_dir = prepare_run_dir(cfg, output_dir)  # validates before it writes
    trainer = Trainer.from_config(cfg)
    state = warm_start(trainer, trainer.init(cfg.seed), run_dir, progress=cfg.progress)
    checkpoints = Checkpoints(run_dir, 1)
    checkpoints.save(0, state, checkpoint_meta(trainer, 0))
    checkpoints.close()
    print(f"\nrun dir: {run_dir}\n  cloning metrics: {run_dir / 'pretrain.jsonl'}")
    print_evaluation(run_dir, evaluate(trainer, state, run_dir))
