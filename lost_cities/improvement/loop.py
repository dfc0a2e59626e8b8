"""The loop: ``python -m lost_cities.improve`` calls :func:`run` (conf/improve.yaml).

Iteration ``i`` has five phases (six with exploiters), each leaving files from which a
stopped run (``kill -9`` anywhere, or ``time_limit_minutes``) resumes exactly:

0. **exploit** (``exploiters.updates`` > 0, once a champion): a best response trained against
   the champion before the first iteration it generates (:mod:`lost_cities.training.exploit`,
   ``exploiters/<its iteration>``, resumable as that command is): its ``exploit.json`` is the
   champion's exploitability, and it plays ``exploiters.share`` of generation's games (a slot
   of the opponent mix that each new champion's exploiter takes over);
1. **generate**: ``generate.chunks`` chunks of labelled self-play positions
   (:mod:`~lost_cities.improvement.labels`), ``labels/<i>/chunk-<k>.npz``; a chunk is
   written whole with the games' carry, and a resume starts at the first missing one;
2. **judge**: the teacher's gain over the champion without its selection bias, on
   ``teacher.judge.positions`` of the chunks' carried positions
   (:mod:`~lost_cities.improvement.judge`), ``judged/<i>.json``;
3. **distill**: a student fitted to the pooled labels of the last ``student.window``
   iterations (:mod:`~lost_cities.improvement.distill`), checkpointed after every epoch in
   ``students/<i>`` (an ordinary checkpoint dir: ``evaluate agent=<run>/students/<i>``);
4. **gate**: the student against the champion, a paired duplicate match on deals no
   iteration trains on (bank v1 from ``gate.first``, fresh deals every iteration),
   ``gates/<i>.json``; the rule promotes it when the margin's interval is above 0 (with
   ``gate.opponent``, both play that opponent and the rule reads their deal-by-deal difference);
5. **record**: the champion's anchors (the learning curve: the same deals every
   iteration, against ``anchors.opponents`` and the first champion), one row in
   ``iterations.jsonl`` and W&B, ``curve.png``, and ``state.json`` (the iteration done and
   the champion), written last: a row past ``state.json`` is dropped on resume.

Every random draw comes from ``seed`` and the iteration, so a resumed run makes the labels,
students and decisions of an uninterrupted one.

With several processes (:mod:`lost_cities.distributed`: ``JAX_COORDINATOR_ADDRESS``,
``JAX_NUM_PROCESSES`` and ``JAX_PROCESS_ID`` set for each) every process runs this loop on
the same config, over one mesh of all their devices: generation's games, the gates' and the
anchors' deals are split over it, and the chunks' labels are gathered whole. Process 0 holds
the run dir's lock and writes its files (the run dir must be one filesystem that every
process reads); the checkpoints are saved by all together (orbax), and the processes meet at
a barrier wherever one reads what process 0 wrote. The student is fitted replicated: every
device computes the whole fit (a few percent of an iteration).
"""

import contextlib
import functools
import json
import os
import sys
import time
from pathlib import Path

import hydra
import jax
import numpy as np
from flax import struct
from hydra.core.hydra_config import HydraConfig
from jax.tree_util import Partial
from omegaconf import OmegaConf, open_dict

from lost_cities import distributed, models, parallel
from lost_cities.checkpoints import Checkpoints, restore, steps
from lost_cities.envs import make as make_env
from lost_cities.evaluation import compare, deal_bank, play_duplicate, summarise
from lost_cities.improvement import dataset, judge
from lost_cities.improvement.distill import Distiller, init_params
from lost_cities.improvement.labels import Labeller, own_decisions
from lost_cities.improvement.report import plot_curve
from lost_cities.improvement.resolve import exploiter_overrides, start_spec, teacher_config
from lost_cities.improvement.resume import followed_config, keep_resumed_settings, prepare
from lost_cities.improvement.run_dir import STATE_FILE, append_row, prior_chain, read_rows, write_json
from lost_cities.models import network_policy
from lost_cities.networks import current_targets
from lost_cities.networks.critic.shared import SharedCritic
from lost_cities.networks.nets import build_network
from lost_cities.policies import make_policy
from lost_cities.search.belief import load as load_belief
from lost_cities.search.belief import world_sampler
from lost_cities.training import exploit
from lost_cities.training.lock import hold
from lost_cities.training.report import ANCHOR_METRICS, ITERATIONS_FILE
from lost_cities.training.run_dir import remove_if_empty

# The critic an exported model's network is built with (models.load_exported): it holds none.
EXPORTED_CRITIC = {"_target_": "lost_cities.networks.critic.shared.SharedCritic", "gae_lambda": 0.0}


@struct.dataclass
class Weights:
    """A champion's checkpoint: its parameters only."""

    params: dict


class TimeLimit(Exception):
    """``time_limit_minutes`` passed: the run stops, resumable, between two steps."""


class Loop:
    """The run's parts, built once from its config; :meth:`iterate` runs one iteration."""

    def __init__(self, cfg, run_dir, on_step=None):
        self.cfg, self.run_dir, self.on_step = cfg, Path(run_dir), on_step
        self.env = make_env(cfg.env.name)
        self.teacher = teacher_config(cfg.teacher)
        self.key = jax.random.PRNGKey(cfg.seed)
        self.clock = time.monotonic()
        self.writes = distributed.is_main()
        self.mesh = parallel.make_mesh(cfg.devices)
        parallel.check_divides(self.mesh, cfg.generate.games, "generate.games")
        self.priors = prior_chain(cfg)

    # ---- the champion --------------------------------------------------------------

    def first_champion(self):
        """The start model saved as ``champions/0000`` (the run does not read ``start`` again)."""
        cfg, env = self.cfg, self.env
        if cfg.start is None:
            critic = hydra.utils.instantiate(cfg.critic)
            network = build_network(cfg.network, critic)
            params = init_params(env, network, critic, jax.random.fold_in(self.key, 0))
            network_cfg = OmegaConf.to_container(cfg.network, resolve=True)
            critic_cfg = OmegaConf.to_container(cfg.critic, resolve=True)
        else:
            agent = models.load(start_spec(cfg.start).path, env)
            params, network_cfg = agent.params, current_targets(agent.meta["network"])
            critic_cfg = current_targets(
                agent.meta["critic"] or EXPORTED_CRITIC
            )  # an exported model has none
        meta = {
            "env": env.name,
            "obs_version": env.obs_version,
            "obs_dim": env.obs_dim,
            "network": network_cfg,
            "critic": critic_cfg,
            "update": 0,
        }
        checkpoints = Checkpoints(self.run_dir / "champions" / "0000", max_to_keep=1)
        checkpoints.save(0, self._replicated(Weights(params)), meta)
        checkpoints.close()
        distributed.barrier("the first champion is saved")
        return "champions/0000"

    def load(self, relative):
        """The agent (JAX network and parameters) of a champion or student dir."""
        return models.load_checkpoint(self.run_dir / relative, self.env)

    # ---- phases ---------------------------------------------------------------------

    def exploiter(self, iteration, state):
        """The champion's exploiter, trained now unless it finished: ``(its policy spec, its
        exploit.json)`` (``exploiters/<the champion's iteration>``), or ``(None, {})`` when off."""
        cfg = self.cfg.exploiters
        if cfg.updates == 0:
            return None, {}
        directory = self.run_dir / "exploiters" / f"{state['champion_iteration']:04d}"
        result = directory / exploit.RESULT_FILE
        if not result.exists():
            if (directory / exploit.CONFIG_FILE).exists():
                overrides = [f"resume={directory}"]
            else:
                champion = self.run_dir / state["champion"]
                overrides = exploiter_overrides(self.cfg, champion, state["champion_iteration"])
            exploit_cfg = exploit.compose([*overrides, "progress=false"])
            with open_dict(exploit_cfg):
                exploit_cfg.logger = self.cfg.logger
            directory.parent.mkdir(exist_ok=True)
            exploit.exploit(exploit_cfg, directory, overrides)
            self._step("exploit", iteration)
        return str(directory / exploit.BEST_RESPONSE_DIR), json.loads(result.read_text())

    def _step(self, phase, iteration, detail=None):
        if self.on_step is not None:
            self.on_step(phase, iteration, detail)
        limit = self.cfg.time_limit_minutes
        late = limit is not None and time.monotonic() - self.clock > 60 * limit
        if distributed.agree(late):  # process 0's clock: every process stops at the same step
            raise TimeLimit(f"stopped after {limit} minutes during {phase} of iteration {iteration}")

    def generate(self, iteration, champion, exploiter=None):
        """The iteration's label chunks (those already on disk are kept); returns the labels
        of the iteration and those made by this call (a resumed generation made fewer).
        ``exploiter``: the champion's exploiter's spec, a share of the games' opponent."""
        cfg = self.cfg.generate
        labeller = self._labeller(champion, exploiter)
        params = self._replicated(champion.params)
        made, games = 0, None
        for k in range(cfg.chunks):
            path = dataset.chunk_path(self.run_dir, iteration, k)
            if path.exists():
                continue
            if games is None:  # a resumed generation's first chunk: the carry on disk
                games = self._games_before(iteration, k, labeller)
            games, labels = labeller.chunk(params, games)
            labels, carry = parallel.fetch((labels, games))  # a collective: every process gathers
            labels = own_decisions(labels)
            if self.writes:
                dataset.write_chunk(path, labels, carry)
            made += len(labels["label"])
            self._step("generate", iteration, k)
        distributed.barrier(f"iteration {iteration}'s labels are written")
        return dataset.count(dataset.chunk_paths(self.run_dir, iteration, cfg.chunks)), made

    def judge(self, iteration, champion, exploiter=None):
        """The teacher's unbiased gain on a sample of the iteration's positions
        (:mod:`~lost_cities.improvement.judge`), ``judged/<i>.json``; ``{}`` when off."""
        cfg = self.cfg.teacher.judge
        path = self.run_dir / "judged" / f"{iteration:04d}.json"
        if cfg.positions == 0:
            return {}
        if path.exists():
            return json.loads(path.read_text())
        labeller = self._labeller(champion, exploiter)
        chunks = self.cfg.generate.chunks
        spread = np.unique(np.linspace(0, chunks - 1, cfg.positions // labeller.games).round().astype(int))
        template = labeller.init(jax.random.fold_in(self.key, 1))
        paths = [dataset.chunk_path(self.run_dir, iteration, k) for k in spread]
        carries = [dataset.read_carry(path, template) for path in paths]
        states = jax.tree.map(lambda *x: np.concatenate(x), *(c.states for c in carries))
        key = jax.random.fold_in(jax.random.fold_in(self.key, 5), iteration)
        gains = judge.judged_gains(labeller, champion.params, states, key, cfg.worlds, cfg.hand)
        result = judge.summary(gains)
        if self.writes:
            path.parent.mkdir(exist_ok=True)
            write_json(path, result)
        distributed.barrier(f"iteration {iteration}'s teacher is judged")
        self._step("judge", iteration)
        return result

    def _labeller(self, champion, exploiter=None):
        cfg = self.cfg
        opponents = tuple(sorted(cfg.generate.opponents.items()))
        if cfg.exploiters.updates > 0:  # its slot is the mix's last, whichever champion's it is
            opponents += ((exploiter, cfg.exploiters.share),)
        return _labeller(
            self.env.name,
            _network_key(champion),
            self.teacher,
            cfg.teacher.hand,
            cfg.generate.games,
            cfg.generate.plies,
            cfg.teacher.temperature,
            cfg.generate.play,
            opponents,
            (cfg.teacher.escalate.share, cfg.teacher.escalate.worlds),
        )

    def _games_before(self, iteration, k, labeller):
        """The games carry chunk ``k`` of ``iteration`` starts from: the previous chunk's."""
        template = labeller.init(jax.random.fold_in(self.key, 1))
        if (iteration, k) == (1, 0):
            games = template
        elif k > 0:
            games = dataset.read_carry(dataset.chunk_path(self.run_dir, iteration, k - 1), template)
        else:
            last = dataset.chunk_path(self.run_dir, iteration - 1, self.cfg.generate.chunks - 1)
            games = dataset.read_carry(last, template)
        split = parallel.batch_sharding(self.mesh)
        shardings = jax.tree.map(lambda _: split, games).replace(key=parallel.replicated(self.mesh))
        return parallel.place(games, shardings)

    def distill(self, iteration, champion):
        """The student of ``iteration`` (resumed from its newest epoch checkpoint), and its scores."""
        cfg = self.cfg.student
        labels = dataset.pooled(self.run_dir, iteration, cfg.window, self.cfg.generate.chunks, self.priors)
        n = len(labels["label"])
        keep = n - min(cfg.holdout, n // 2)  # the newest labels are the pool's last
        train = {name: jax.numpy.asarray(value[:keep]) for name, value in labels.items()}
        held = {name: jax.numpy.asarray(value[keep:]) for name, value in labels.items()}
        distiller = _distiller(
            _network_key(champion), cfg.targets, cfg.lr, cfg.epochs, cfg.minibatch_size, keep
        )
        key = jax.random.fold_in(jax.random.fold_in(self.key, 2), iteration)
        directory = self.run_dir / "students" / f"{iteration:04d}"
        start = champion.params if cfg.init == "champion" else None
        if start is None:
            critic = hydra.utils.instantiate(OmegaConf.create(current_targets(champion.meta["critic"])))
            start = init_params(self.env, champion.network, critic, jax.random.fold_in(key, 0))
        state = self._replicated(distiller.init(start, jax.random.fold_in(key, 1)))
        train, held = self._replicated(train), self._replicated(held)
        done = steps(directory / "checkpoints" / "latest")
        if done:
            state = restore(directory / "checkpoints" / "latest", state)[0]
        meta = {k: champion.meta[k] for k in ("env", "obs_version", "obs_dim", "network", "critic")}
        checkpoints = Checkpoints(directory, max_to_keep=1)
        metrics = {}
        while int(state.epoch) < cfg.epochs:
            state, metrics = distiller.epoch(state, train)
            epoch = int(state.epoch)
            checkpoints.save(epoch, state, {**meta, "update": epoch, "train": _floats(metrics)})
            self._step("distill", iteration, epoch)
        checkpoints.close()
        distributed.barrier(f"iteration {iteration}'s student is saved")
        scores = {}
        if len(held["label"]):
            student = _floats(distiller.score(state.params, held))
            scores = {
                "student/accuracy": student["accuracy"],
                "student/cross_entropy": student["cross_entropy"],
                "champion/accuracy": float(np.mean(np.asarray(held["base"] == held["label"]))),
            }
        train_metrics = _floats(metrics) if metrics else _saved_train_metrics(directory)
        newest = dataset.read_labels(dataset.chunk_paths(self.run_dir, iteration, self.cfg.generate.chunks))
        return {
            "labels/pooled": n,
            "labels/held_out": n - keep,
            "teacher/gain_points": float(newest["gain"].mean()),
            "teacher/changed": float((newest["label"] != newest["base"]).mean()),
            "student/train_accuracy": train_metrics.get("accuracy"),
            "student/train_cross_entropy": train_metrics.get("cross_entropy"),
            **scores,
        }

    def gate(self, iteration, student, champion, policy):
        """The student against the champion on the iteration's gate deals (``gates/<i>.json``)."""
        cfg = self.cfg.gate
        path = self.run_dir / "gates" / f"{iteration:04d}.json"
        if path.exists():
            return json.loads(path.read_text())
        first = self._gate_first(iteration)
        me, incumbent = Partial(policy, student.params), Partial(policy, champion.params)
        if cfg.opponent is None:
            results = self._match(me, incumbent, cfg, first)
        else:  # both against the opponent on the same deals, seats and key: a paired difference
            opponent = make_policy(cfg.opponent, self.env)
            games = self._games(me, opponent, cfg, first)
            champion_games = self._games(incumbent, opponent, cfg, first)
            results = {
                **summarise(games, self.env.name),
                "versus_champion": compare(games, champion_games),
                "champion": summarise(champion_games, self.env.name),
                "opponent": cfg.opponent,
            }
        results["deals_first"] = first
        if self.writes:
            path.parent.mkdir(exist_ok=True)
            write_json(path, results)
        self._step("gate", iteration)
        return results

    def _gate_first(self, iteration):
        """Iteration ``iteration``'s first gate deal: where the previous gate's deals ended."""
        if iteration == 1:
            return self.cfg.gate.first
        previous = json.loads((self.run_dir / "gates" / f"{iteration - 1:04d}.json").read_text())
        return previous["deals_first"] + previous["deals"]

    def _match(self, a, b, cfg, first):
        return summarise(self._games(a, b, cfg, first), self.env.name)

    def _games(self, a, b, cfg, first):
        """``a`` against ``b`` on ``cfg.deals`` deals from ``first``: the played games."""
        deck_orders, coins = deal_bank(cfg.deals, first=first)
        key = jax.random.fold_in(self.key, 4)
        sharding = parallel.batch_sharding(self.mesh)
        a, b = self._replicated(a), self._replicated(b)
        return play_duplicate(self.env, a, b, deck_orders, coins, key, cfg.batch_size, sharding=sharding)

    def _replicated(self, tree):
        """``tree``'s arrays on every device of the mesh, of every process (restored
        parameters sit on one of this process's)."""
        sharding = parallel.replicated(self.mesh)

        def put(x):
            return parallel.place(x, sharding) if isinstance(x, jax.Array | np.ndarray) else x

        return jax.tree.map(put, tree)

    def anchors(self, champion, first_champion, policy):
        """The champion against the anchors and the first champion, on the anchors' deals."""
        cfg = self.cfg.anchors
        me = Partial(policy, champion.params)
        row = {}
        opponents = {name: make_policy(name, self.env) for name in cfg.opponents}
        if champion is not first_champion:
            opponents["first"] = Partial(policy, first_champion.params)
        for name, opponent in opponents.items():
            results = self._match(me, opponent, cfg, cfg.first)
            for metric in ANCHOR_METRICS:
                row[f"anchors/{name}/{metric}"] = results[metric]
            row[f"anchors/{name}/max_steps_rate"] = results["max_steps_rate"]
        return row


def _network_key(agent):
    return json.dumps(current_targets(agent.meta["network"]), sort_keys=True)


def _network(network_key):
    """The network of a champion's config; its critic does not matter: only the policy is used."""
    return build_network(OmegaConf.create(json.loads(network_key)), SharedCritic(gae_lambda=0.0))


@functools.lru_cache(maxsize=4)
def _distiller(network_key, targets, lr, epochs, minibatch_size, n_labels):
    """One distiller (one compiled epoch) per config and pool size."""
    return Distiller(_network(network_key), targets, lr, epochs, minibatch_size, n_labels)


def teacher_deal(search, hand, env_name):
    """The teacher's world sampler (``Labeller``'s ``deal``): the real hand's worlds for
    ``teacher.hand=real``, else the search's belief's, else None (uniform worlds)."""
    if hand == "real":
        return judge.real_hand_world
    return None if search.belief is None else world_sampler(load_belief(search.belief, env_name))


@functools.lru_cache(maxsize=4)
def _labeller(env_name, network_cfg, teacher, hand, games, plies, temperature, play, opponents, escalate):
    """One labeller (one compiled chunk) per config, shared by every champion of a run and
    by runs of the same config in one process (a resumed run, the tests)."""
    env = make_env(env_name)
    network = _network(network_cfg)
    deal = teacher_deal(teacher, hand, env_name)
    rollout = None if teacher.rollout is None else make_policy(teacher.rollout, env)
    mix = tuple((make_policy(name, env), share) for name, share in opponents)
    return Labeller(env, network, teacher, games, plies, temperature, play, deal, rollout, mix, escalate)


def _floats(metrics):
    return {name: float(value) for name, value in jax.device_get(metrics).items()}


def _saved_train_metrics(directory):
    """The last epoch's training metrics, from its checkpoint's metadata (a resumed run)."""
    meta_dir = directory / "checkpoints" / "latest"
    step = steps(meta_dir)[0]
    meta = json.loads((meta_dir / str(step) / "meta" / "metadata").read_text())
    return meta.get("train", {})


def improve(cfg, run_dir, on_step=None, logger=None):
    """Run (or resume) the loop in ``run_dir`` until ``cfg.iterations`` are done; returns
    the rows of ``iterations.jsonl``. ``on_step(phase, iteration, detail)`` is called after
    each step is on disk (a chunk, an epoch, a gate, a record)."""
    loop = Loop(cfg, run_dir, on_step)
    run_dir, writes = loop.run_dir, loop.writes
    state_path = run_dir / STATE_FILE
    if not state_path.exists():
        champion = loop.first_champion()
        if writes:
            write_json(state_path, {"iteration": 0, "champion": champion, "champion_iteration": 0})
        distributed.barrier("the run's state is written")
    state = json.loads(state_path.read_text())
    rows = [r for r in read_rows(run_dir) if r["iteration"] <= state["iteration"]]
    distributed.barrier("every process read the rows")
    if writes:
        (run_dir / ITERATIONS_FILE).write_text("".join(json.dumps(r) + "\n" for r in rows))
    first = loop.load("champions/0000")
    policy = network_policy(loop.env, first.network)
    if not rows:
        row = {
            "iteration": 0,
            "promoted": True,
            "champion": state["champion"],
            **loop.anchors(first, first, policy),
        }
        if writes:
            append_row(run_dir, row, logger)
        rows.append(row)
    while state["iteration"] < cfg.iterations:
        i = state["iteration"] + 1
        champion = loop.load(state["champion"])
        times, clock = {}, time.perf_counter()
        generating = state["champion_iteration"]
        exploiter, exploited = loop.exploiter(i, state)
        if exploiter is not None:
            times["time/exploit"], clock = time.perf_counter() - clock, time.perf_counter()
        labels, made = loop.generate(i, champion, exploiter)
        times["time/generate"], clock = time.perf_counter() - clock, time.perf_counter()
        judged = loop.judge(i, champion, exploiter)
        times["time/judge"], clock = time.perf_counter() - clock, time.perf_counter()
        distilled = loop.distill(i, champion)
        times["time/distill"], clock = time.perf_counter() - clock, time.perf_counter()
        student_dir = f"students/{i:04d}"
        student = loop.load(student_dir)
        gate = loop.gate(i, student, champion, policy)
        times["time/gate"], clock = time.perf_counter() - clock, time.perf_counter()
        promoted = _promotes(gate, cfg.gate.rule)
        if promoted:
            state = {"iteration": i, "champion": student_dir, "champion_iteration": i}
            anchors = loop.anchors(student, first, policy)
        else:
            state = {**state, "iteration": i}
            anchors = {k: v for k, v in rows[-1].items() if k.startswith("anchors/")}
        times["time/anchors"] = time.perf_counter() - clock
        row = {
            "iteration": i,
            "labels/made": labels,
            **distilled,
            **judged,
            **{f"exploit/{m}": exploited[m] for m in ANCHOR_METRICS if exploited},
            **{f"exploit/gain_{m}": exploited["gain"][m] for m in _EXPLOIT_GAIN if exploited},
            **({"exploit/champion_iteration": generating} if exploited else {}),
            **{f"gate/{m}": gate[m] for m in _GATE_METRICS},
            **{f"gate/versus_champion/{m}": v for m, v in gate.get("versus_champion", {}).items()},
            "promoted": promoted,
            "champion": state["champion"],
            **anchors,
            **times,
            "time/iteration": sum(times.values()),
        }
        row["labels/per_second"] = made / times["time/generate"] if made else None  # this process's
        rows.append(row)
        if writes:
            append_row(run_dir, row, logger)
            plot_curve(rows, run_dir / "curve.png")
            write_json(state_path, state)
        distributed.barrier(f"iteration {i} is recorded")
        loop._step("record", i)
    return rows


# The generating champion's exploitability in its iteration's row (its exploiter against it: the
# anchors' metrics), and the best response's margin gained over the champion's own net.
_EXPLOIT_GAIN = ("margin_diff", "margin_diff_lower", "margin_diff_upper")
_GATE_METRICS = (*ANCHOR_METRICS, "deals", "max_steps_rate")


def _promotes(gate, rule):
    """The rule on the student's margin against the champion, or (``gate.opponent``) on its
    deal-by-deal difference from the champion against the opponent."""
    paired = gate.get("versus_champion")
    if paired is not None:
        lower = paired["margin_diff_lower" if rule == "margin" else "score_diff_lower"]
        return lower is not None and lower > 0
    if rule == "margin":
        return gate["margin_lower"] is not None and gate["margin_lower"] > 0
    return gate["win_rate_lower"] > 0.5


def _printer(cfg):
    """A line on stderr per step: a loop runs for hours, mostly unattended."""
    clock = time.monotonic()
    totals = {"generate": cfg.generate.chunks, "distill": cfg.student.epochs}

    def on_step(phase, iteration, detail):
        step = "" if detail is None else f" {detail + (phase == 'generate')}/{totals[phase]}"
        minutes = (time.monotonic() - clock) / 60
        print(
            f"[{minutes:7.1f} min] iteration {iteration}/{cfg.iterations} {phase}{step}",
            file=sys.stderr,
            flush=True,
        )

    return on_step


def _start_logger(cfg, run_dir):
    logger = hydra.utils.instantiate(cfg.logger)
    wandb_id = run_dir / "wandb_id.txt"
    if not wandb_id.exists():
        wandb_id.write_text(os.urandom(6).hex())
    config = OmegaConf.to_container(cfg, resolve=True)
    logger.start(run_dir, config, cfg.experiment_name, run_dir.name, wandb_id.read_text())
    return logger


def run(cfg):
    """The CLI's entry: prepare the run dir (process 0, under its lock), run the loop, report."""
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    target = Path(cfg.resume).absolute() if cfg.resume is not None else run_dir
    writes = distributed.is_main()
    try:
        with hold(target) if writes else contextlib.nullcontext():
            if writes:
                cfg, target = prepare(cfg, target)
                if cfg.resume is not None:
                    keep_resumed_settings(cfg, target)
            target = distributed.broadcast_path(Path(target))  # also: process 0 has prepared it
            if not writes:
                cfg = followed_config(cfg, target)
            logger = _start_logger(cfg, target) if writes else None
            try:
                printer = _printer(cfg) if cfg.progress and writes else None
                rows = improve(cfg, target, on_step=printer, logger=logger)
            except TimeLimit as stop:
                if writes:
                    print(f"{stop}; continue with resume={target}", file=sys.stderr)
                return None
            finally:
                if logger is not None:
                    logger.finish()
    finally:
        remove_if_empty(run_dir)  # a refused start, Hydra's own dir of a resume, or another process's
    if not writes:
        return rows
    last = rows[-1]
    print(f"{target}: {last['iteration']} iterations, champion {last['champion']}")
    return rows
