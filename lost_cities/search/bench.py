"""Cost of a search decision: ``python -m lost_cities.search.bench [--preset P] [--games N] [knob=value]``.

Positions are taken from expert-vs-expert matches (every 7th ply of a few hundred
matches, so early, middle and late round positions all occur). Prints, after compiling:

- ``batched_s_per_decision``: ``--games`` positions at once, as the duplicate evaluation
  computes them (``mover_actions``: sorted by the deck pointer, in its progress passes),
  divided by the number of positions;
- ``single_s_per_decision``: one position per call (as a person playing the agent sees
  it), the median over ``--single`` calls;
- ``rollout_policy_us_per_state``: one move of the rollout policy, batched over the
  positions (the unit a rollout repeats);
- ``rollout_plies_per_decision``: the plies simulated per decision, the rollouts (worlds x
  candidates, plus the confirmation pair) x the plies to the round's end or ``depth``
  (the budget), averaged over the positions;
- ``base_move_left_share``: the share of the positions at which the search plays another
  move than its base policy (how often the gate lets a challenger through).
"""

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.evaluation import resolve_policy
from lost_cities.evaluation.duplicate import mover_actions
from lost_cities.game.cards import N_CARDS
from lost_cities.search.config import knob_overrides, load_preset
from lost_cities.search.determinize import round_of
from lost_cities.search.spec import parse, resolve_search


def positions(env, count, seed=0, every=7, policy=None):
    """``count`` env states from ``policy``-vs-``policy`` play (batched, leading axis; every
    move's key fixed; default ``heuristic_expert``)."""
    player = make("heuristic_expert") if policy is None else policy
    games = max(1, -(-count * every // (env.rounds * 44)))
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(seed), games))

    def ply(states, _):
        moves = jax.vmap(player)(states, jnp.zeros((games, 2), jnp.uint32))
        return jax.vmap(env.step)(states, moves)[0], states

    _, record = jax.lax.scan(ply, states, None, length=env.rounds * 44)
    flat = jax.tree.map(lambda x: x[::every].reshape((-1,) + x.shape[2:]), record)
    live = np.flatnonzero(~np.asarray(jax.vmap(env.done)(flat)))[:count]
    return jax.tree.map(lambda x: x[live], flat)


def measure(policy, states, single=20):
    """``(batched, single, actions)``: seconds per decision on ``states`` (see the module
    doc; ``single`` is ``None`` when ``single`` calls are 0) and the batched actions."""
    n = int(jax.tree.leaves(states)[0].shape[0])
    keys = jax.random.split(jax.random.PRNGKey(1), n)
    everyone, progress = jnp.ones(n, bool), round_of(states).deck_ptr
    batched = jax.jit(lambda s, k: mover_actions(policy, s, k, everyone, n, progress))
    jax.block_until_ready(batched(states, keys))
    start = time.perf_counter()
    actions = jax.block_until_ready(batched(states, keys))
    batched_s = (time.perf_counter() - start) / n
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="heuristic_expert")
    parser.add_argument("--preset", default="default")
    parser.add_argument("--env", default="match3")
    parser.add_argument("--games", type=int, default=256)
    parser.add_argument("--single", type=int, default=20)
    parser.add_argument("knobs", nargs="*", help="knob overrides, e.g. worlds=16 depth=9")
    args = parser.parse_args(argv)
    overrides = knob_overrides(args.knobs)
    env = envs.make(args.env)
    spec = f"search/{args.preset}:{args.base}"
    cfg = load_preset(parse(spec)[0], **overrides)
    policy = resolve_search(spec, env, **overrides)
    states = positions(env, args.games)
    deck_left = N_CARDS - np.asarray(jax.vmap(env.round_state)(states).deck_ptr, np.int64)
    batched_s, single_s, actions = measure(policy, states, args.single)
    rollout_s, _, base_actions = measure(resolve_policy(cfg.rollout or args.base, env), states, 0)
    if cfg.rollout is not None:  # the rollouts are not the base's: its moves apart
        base_actions = measure(resolve_policy(args.base, env), states, 0)[2]
    print(f"spec={spec}")
    print(f"config={cfg}")
    print(f"positions={len(deck_left)}")
    print(f"rollout_plies_per_decision={np.mean([cfg.deciding(d).rollout_plies(d) for d in deck_left]):.0f}")
    print(f"batched_s_per_decision={batched_s:.5f}")
    if single_s is not None:
        print(f"single_s_per_decision={single_s:.5f}")
    print(f"rollout_policy_us_per_state={rollout_s * 1e6:.1f}")
    print(f"base_move_left_share={np.mean(np.asarray(actions) != np.asarray(base_actions)):.3f}")


if __name__ == "__main__":
    main()
