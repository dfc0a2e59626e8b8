"""``init=``: where PPO's first parameters come from (conf/init/).

- ``none``: the network's fresh initialisation.
- ``bc``: behaviour cloning of ``init.teacher`` (:mod:`lost_cities.imitation.bc`), run
  here before PPO, or read from ``init.checkpoint`` (a ``python -m lost_cities.pretrain``
  run dir). ``init.start`` (a run dir) gives the parameters cloning starts from: with a
  search teacher on that same run, the clone is one step of expert iteration. The
  optimizer state starts afresh, and a league's pool is refilled with the
  cloned parameters (its snapshots are the learner's past, which starts here).
"""

import json
import sys
import time
from pathlib import Path

import jax
from omegaconf import OmegaConf

from lost_cities.checkpoints import restore_params
from lost_cities.imitation.bc import BehaviourCloning
from lost_cities.models.base import read_manifest
from lost_cities.models.checkpoint import checkpoint_step
from lost_cities.models.exported import read_policy_params
from lost_cities.networks import current_targets
from lost_cities.policies import ModelSpec, SearchSpec, make_policy, parse
from lost_cities.ppo.opponent.league import init_pool
from lost_cities.search.config import load_preset

PRETRAIN_FILE = "pretrain.jsonl"  # one row of cloning metrics per BC update


def clone(trainer, init_cfg, params, key, log_path=None, progress=True):
    """``params`` after ``init_cfg.updates`` cloning updates; rows written to ``log_path``."""
    teacher, opponent = teacher_and_opponent(init_cfg, trainer.env)
    bc = BehaviourCloning(trainer.env, trainer.network, teacher, init_cfg, opponent)
    state = bc.init(key, params)
    update = jax.jit(bc.update)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=init_cfg.updates, desc=f"cloning {init_cfg.teacher}", unit="upd", dynamic_ncols=True)
    if log_path is not None:
        Path(log_path).write_text("")  # a row per update as it finishes: a long clone shows its progress
    rows, clock = [], time.perf_counter()
    for _ in range(init_cfg.updates):
        state, metrics = update(state)
        row = {"update": int(state.update), **{k: float(v) for k, v in jax.device_get(metrics).items()}}
        row["time/seconds"] = time.perf_counter() - clock
        rows.append(row)
        if log_path is not None:
            with Path(log_path).open("a") as log:
                log.write(json.dumps(row) + "\n")
        if bar is not None:
            bar.update(1)
            bar.set_postfix(accuracy=f"{row['bc/accuracy']:.3f}")
    if bar is not None:
        bar.close()
    return state.params, rows


def teacher_and_opponent(init_cfg, env):
    """The teacher, and ``init.opponent``'s policy (or None). A search teacher facing an
    opponent takes it as its opponent's model (``opponent_rollout``) unless its preset names one."""
    teacher, opponent = parse(init_cfg.teacher), init_cfg.opponent
    if opponent is None:
        return make_policy(teacher, env), None
    if isinstance(teacher, SearchSpec) and load_preset(teacher.preset).opponent_rollout is None:
        return make_policy(teacher, env, opponent_rollout=opponent), make_policy(opponent, env)
    return make_policy(teacher, env), make_policy(opponent, env)


def warm_start(trainer, state, run_dir, progress=True):
    """The fresh :class:`~lost_cities.ppo.trainer.TrainState` with ``cfg.init``'s parameters
    (``run_dir`` None: the cloning rows are not written, as in a process other than 0)."""
    init_cfg = trainer.cfg.init
    if init_cfg.name == "none":
        return state
    if init_cfg.checkpoint is not None:
        params = load_pretrained(init_cfg.checkpoint, trainer, template=state.params)
    else:
        start = state.params
        if init_cfg.start is not None:
            start = load_pretrained(init_cfg.start, trainer, "init.start", template=state.params)
        key = jax.random.fold_in(jax.random.PRNGKey(trainer.cfg.seed), 1)
        log_path = None if run_dir is None else Path(run_dir) / PRETRAIN_FILE
        params, _ = clone(trainer, init_cfg, start, key, log_path, progress)
    league = state.league
    if league is not None:
        league = init_pool(params, trainer.opponents.league[1].pool_size)
    anchor = None if state.anchor is None else params  # ppo.anchor_kl's reference: the clone
    magnet = None if state.magnet is None else params  # ppo.magnet_kl's first magnet: the same
    opt_state = trainer.optimizer.init(params)
    return state.replace(params=params, opt_state=opt_state, league=league, anchor=anchor, magnet=magnet)


def load_pretrained(checkpoint, trainer, key="init.checkpoint", template=None):
    """The parameters of a pretrain (or training) run dir, checked against this run's network
    (``key``: the setting that named it, for the error). An exported model (``.onnx``, e.g. a
    shipped agent) gives its policy's weights, the critic's coming from ``template`` (this
    run's fresh parameters; the model has no critic). So does a checkpoint whose critic is
    another kind than this run's (e.g. the self-improvement loop's champions, which hold the
    exported model's placeholder): its policy must match, its critic cannot serve."""
    try:
        spec = parse(checkpoint)
    except (ValueError, FileNotFoundError) as error:
        raise type(error)(f"{key}={checkpoint}: {error}") from error
    if not isinstance(spec, ModelSpec):
        raise ValueError(f"{key}={checkpoint!r}: a run dir, checkpoint dir or exported .onnx model")
    if spec.exported:
        return _exported_params(spec.path, trainer, key, template)
    params, meta = restore_params(*checkpoint_step(spec.path))
    own = trainer.init_params() if template is None else template
    if template is not None and _shapes(_critic(params)) != _shapes(_critic(own)):
        params = {**params, "params": {**params["params"], "critic": _critic(own)}}
        print(
            f"{key}={checkpoint}: its policy's weights; its critic ({meta.get('critic')}) is not this "
            f"run's ({dict(trainer.cfg.critic)}), which starts fresh",
            file=sys.stderr,
        )
    if meta.get("env") != trainer.env.name or _shapes(params) != _shapes(own):
        raise ValueError(
            f"{key}={checkpoint}: its network ({meta.get('network')}, env {meta.get('env')}) "
            f"does not match this run's ({dict(trainer.cfg.network)}, env {trainer.env.name})"
        )
    return jax.tree.map(jax.numpy.asarray, params)


def _critic(params):
    """The critic's subtree of a network's parameters (``{"params": {..., "critic": ...}}``)."""
    return params.get("params", {}).get("critic")


def _shapes(tree):
    return jax.tree.map(lambda x: (tuple(x.shape), str(x.dtype)), tree)


def _exported_params(model, trainer, key, template):
    meta = read_manifest(model)
    wanted = OmegaConf.to_container(trainer.cfg.network, resolve=True)
    found = current_targets(meta.get("network") or {})
    if meta.get("env") != trainer.env.name or found != wanted:
        raise ValueError(
            f"{key}={model}: its network ({meta.get('network')}, env {meta.get('env')}) "
            f"does not match this run's ({wanted}, env {trainer.env.name})"
        )
    return read_policy_params(model, trainer.init_params() if template is None else template)
