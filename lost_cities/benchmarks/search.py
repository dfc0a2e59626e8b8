"""Cost of a search decision: ``python -m lost_cities.search_bench base=B search=P [search.<knob>=...]``.

Positions are taken from expert-vs-expert matches (every 7th ply of a few hundred
matches, so early, middle and late round positions all occur). Prints, after compiling:

- ``batched_s_per_decision``: ``games`` positions at once, as the duplicate evaluation
  computes them (``mover_actions``: sorted by the deck pointer, in its progress passes),
  divided by the number of positions;
- ``single_s_per_decision``: one position per call (as a person playing the agent sees
  it), the median over ``single`` calls;
- ``rollout_policy_us_per_state``: one move of the rollout policy, batched over the
  positions (the unit a rollout repeats);
- ``rollout_plies_per_decision``: the plies simulated per decision, the rollouts (worlds x
  candidates, plus the confirmation pair) x the plies to the round's end or ``depth``
  (the budget), averaged over the positions;
- ``search_decisions_per_sec`` and ``search_rollout_plies_per_sec``: the batched figure as
  rates (simulated plies per second: the plies per decision over the seconds per decision);
- ``base_move_left_share``: the share of the positions at which the search plays another
  move than its base policy (how often the gate lets a challenger through).
"""

import time

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities import envs
from lost_cities.evaluation.duplicate import mover_actions
from lost_cities.evaluation.positions import positions
from lost_cities.game.cards import N_CARDS
from lost_cities.game.views import current_round
from lost_cities.policies import make_policy
from lost_cities.search.config import load_preset


def measure(policy, states, single=20, runs=1):
    """``(batched, single, actions)``: seconds per decision on ``states`` (see the module
    doc; the median of ``runs`` batched calls; ``single`` is ``None`` when ``single`` calls
    are 0) and the batched actions."""
    n = int(jax.tree.leaves(states)[0].shape[0])
    keys = jax.random.split(jax.random.PRNGKey(1), n)
    everyone, progress = jnp.ones(n, bool), current_round(states).deck_ptr
    batched = jax.jit(lambda s, k: mover_actions(policy, s, k, everyone, n, progress))
    jax.block_until_ready(batched(states, keys))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        actions = jax.block_until_ready(batched(states, keys))
        times.append(time.perf_counter() - start)
    batched_s = float(np.median(times)) / n
    if single == 0:
        return batched_s, None, actions
    one = jax.jit(policy)
    jax.block_until_ready(one(jax.tree.map(lambda x: x[0], states), keys[0]))
    times = []
    for i in range(min(single, n)):
        state = jax.tree.map(lambda x, i=i: x[i], states)
        start = time.perf_counter()
        jax.block_until_ready(one(state, keys[i]))
        times.append(time.perf_counter() - start)
    return batched_s, float(np.median(times)), actions


def search_cost(base, preset, knobs, env_name="match3", games=256, single=20, runs=1):
    """The figures of the module doc, as ``{name: value}``, for ``search/<preset>:<base>``
    with ``knobs`` (all or some of the search's) over the preset's; the batched figure is
    the median of ``runs`` calls."""
    env = envs.make(env_name)
    spec = f"search/{preset}:{base}"
    cfg = load_preset(preset, **knobs)
    policy = make_policy(spec, env, **knobs)
    states = positions(env, games)
    deck_left = N_CARDS - np.asarray(jax.vmap(env.round_state)(states).deck_ptr, np.int64)
    batched_s, single_s, actions = measure(policy, states, single, runs)
    rollout_s, _, base_actions = measure(make_policy(cfg.rollout or base, env), states, 0)
    if cfg.rollout is not None:  # the rollouts are not the base's: its moves apart
        base_actions = measure(make_policy(base, env), states, 0)[2]
    plies = float(np.mean([cfg.deciding(d).rollout_plies(d) for d in deck_left]))
    figures = {
        "spec": spec,
        "config": cfg,
        "positions": len(deck_left),
        "rollout_plies_per_decision": f"{plies:.0f}",
        "batched_s_per_decision": f"{batched_s:.5f}",
        "search_decisions_per_sec": f"{1 / batched_s:.1f}",
        "search_rollout_plies_per_sec": f"{plies / batched_s:.0f}",
    }
    if single_s is not None:
        figures["single_s_per_decision"] = f"{single_s:.5f}"
    figures["rollout_policy_us_per_state"] = f"{rollout_s * 1e6:.1f}"
    figures["base_move_left_share"] = f"{np.mean(np.asarray(actions) != np.asarray(base_actions)):.3f}"
    return figures
