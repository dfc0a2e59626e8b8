"""Where the time goes (``python -m lost_cities.bench --profile DIR``): docs/performance.md.

Two views of the same computation, because XLA:CPU's thunk times alone mislead (a dot
may run on the thread pool while its thunk's span ends; a loop's span holds its body's):

- :func:`ply_costs`: an ablation of one network move over a batch of live positions, each
  stage jitted on its own and timed (median of several calls): the engine's step, the
  observation, the action features and their parts, the network and its parts, the whole
  greedy policy. What a search rollout repeats per lane and ply.
- :func:`update_costs`: a default PPO update, its rollout and its epochs timed apart, and
  the epochs' arithmetic (XLA's count of one minibatch gradient's operations, times the
  steps): over the dense rate, the time the epochs could take at best.
- :func:`op_table`: a ``jax.profiler`` trace of one call, its XLA:CPU thunks' times summed
  by the ``op_name`` (the JAX source scope) each came from, loops and conditionals left
  out (their spans contain their bodies'). The trace stays in ``trace_dir`` for
  Perfetto (``*.trace.json.gz``) or TensorBoard.
"""

import collections
import gzip
import json
import re
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.bots.expert import expert_values
from lost_cities.evaluation.positions import positions
from lost_cities.game.engine import legal_action_mask, step
from lost_cities.game.views import current_round
from lost_cities.networks import features as af
from lost_cities.ppo.config import compose
from lost_cities.ppo.sgd import minibatch_epochs
from lost_cities.ppo.trainer import Trainer, sgd_batch

CONTROL_FLOW = re.compile(r"^(while|cond|conditional|call)\b")


def median_seconds(fn, *args, runs=7):
    """Compile and warm ``jax.jit(fn)``, then the median seconds of ``runs`` calls."""
    fn = jax.jit(fn)
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def ply_costs(agent, env, lanes=4096, runs=7):
    """``{stage: microseconds per lane}`` of one greedy move of ``agent`` (a JAX agent with an
    ActionNet or MLP) over ``lanes`` live positions of expert self-play."""
    states = positions(env, lanes)
    n = int(current_round(states).deck_ptr.shape[0])
    net, params = agent.network, agent.params
    mover_obs = jax.vmap(lambda s: env.observe(s, env.to_move(s)))
    obs = jax.jit(mover_obs)(states)
    stages = {
        "engine step (legal mask, step)": (
            jax.vmap(lambda r: step(r, jnp.argmax(legal_action_mask(r)).astype(jnp.int32))[0]),
            (current_round(states),),
        ),
        "observation": (mover_obs, (states,)),
    }
    if net.input_features is af.batched_action_features:
        views = jax.jit(jax.vmap(af.view_state))(obs)
        context = jax.jit(jax.vmap(af.match_context))(obs)
        features = jax.jit(af.batched_action_features)(obs)
        stages.update(
            {
                "features: view_state": (jax.vmap(af.view_state), (obs,)),
                "features: legal mask": (jax.vmap(legal_action_mask), (views,)),
                "features: expert scores": (jax.vmap(expert_values), (views, *context)),
                "features: all": (af.batched_action_features, (obs,)),
                "network: trunk": (lambda o: net.apply(params, o, method=lambda m, o: m.trunk(o)), (obs,)),
                "network: given features": (
                    lambda o, f: net.apply(params, o, f, method="logits"),
                    (obs, features),
                ),
            }
        )
    stages["network: with its features"] = (lambda o: net.apply(params, o, method="logits"), (obs,))
    keys = jax.random.split(jax.random.PRNGKey(0), n)
    stages["whole policy (observation, features, network, argmax)"] = (jax.vmap(agent.policy), (states, keys))
    return {name: median_seconds(fn, *args, runs=runs) / n * 1e6 for name, (fn, args) in stages.items()}


def update_costs(overrides=(), runs=3):
    """``{part: seconds}`` of one PPO update of the training config with ``overrides``:
    the whole update, its rollout and its ``epochs x minibatches`` steps, each jitted alone."""
    cfg = compose(["logger=none", "init=none", *overrides])
    trainer = Trainer.from_config(cfg)
    state = trainer.init(cfg.seed)
    update = jax.jit(trainer.update)
    state, _ = update(state)  # past the first rollout's start-up
    ppo = cfg.ppo
    run = jax.jit(lambda ts: trainer.rollout.run(ts.params, ts.slots, ts.key, 0.0, None))
    _, rows, _, _ = run(state)
    size = ppo.num_envs * ppo.rollout_length
    batch = sgd_batch(rows, rows.value, rows.value)  # any floats as advantages: the cost is the same

    def epochs(params, opt_state, batch, key):
        loss = lambda p, b: trainer.loss(p, b, 1.0, None, None)  # noqa: E731
        return minibatch_epochs(
            loss, trainer.optimizer, params, opt_state, batch, key, ppo.epochs, ppo.minibatches
        )

    minibatch = jax.tree.map(lambda x: x[: size // ppo.minibatches], batch)
    grad = jax.jit(jax.grad(lambda p, b: trainer.loss(p, b, 1.0, None, None)[0]))
    return {
        "update": median_seconds(update, state, runs=runs),
        "rollout": median_seconds(run, state, runs=runs),
        "epochs": median_seconds(epochs, state.params, state.opt_state, batch, state.key, runs=runs),
        "epochs_gflop": ppo.epochs * ppo.minibatches * flops(grad, state.params, minibatch) / 1e9,
        "decisions": size,
    }


def flops(fn, *args):
    """XLA's count of the floating-point operations of the jitted ``fn`` on ``args`` (loop-free
    code only: XLA counts a loop's body once)."""
    analysis = fn.lower(*args).compile().cost_analysis()
    return (analysis[0] if isinstance(analysis, list) else analysis)["flops"]


def op_table(fn, args, trace_dir, top=25):
    """``(rows, total_ms)``: the ``top`` op_names by summed thunk milliseconds in one traced
    call of ``jax.jit(fn)(*args)`` (after a warm-up call), as ``(ms, calls, op_name)``."""
    fn = jax.jit(fn)
    jax.block_until_ready(fn(*args))
    trace_dir = Path(trace_dir).resolve()
    with jax.profiler.trace(str(trace_dir), create_perfetto_trace=True):
        jax.block_until_ready(fn(*args))
    names = op_names(fn.lower(*args).compile().as_text())
    trace = max(trace_dir.rglob("*.trace.json.gz"), key=lambda p: p.stat().st_mtime)
    events = json.loads(gzip.decompress(trace.read_bytes()))
    events = events["traceEvents"] if isinstance(events, dict) else events
    total = collections.Counter()
    calls = collections.Counter()
    for event in events:
        name = event.get("name")
        if event.get("ph") != "X" or name not in names or CONTROL_FLOW.match(name):
            continue
        total[names[name]] += event.get("dur", 0) / 1e3
        calls[names[name]] += 1
    rows = [(ms, calls[op], op) for op, ms in total.most_common(top)]
    return rows, float(sum(total.values()))


def op_names(hlo_text):
    """``{instruction: op_name}`` of a compiled HLO module's text, the scope trimmed of
    ``jit(...)/`` prefixes and loop bodies' ``while/body/closed_call/`` steps."""
    names = {}
    for match in re.finditer(r"^\s*(?:ROOT )?%?([\w.\-]+) = .*?op_name=\"([^\"]*)\"", hlo_text, re.M):
        scope = re.sub(r"^(jit\([^)]*\)/)+", "", match.group(2))
        names.setdefault(match.group(1), scope.replace("while/body/closed_call/", ""))
    return names
