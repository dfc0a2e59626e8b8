"""``python -m lost_cities.bench [--runs 5] [--only engine,features,train,bc,search] [--profile DIR]``:
every throughput figure of the project in one run (docs/performance.md).

Prints ``key=value`` lines, each rate the median of ``--runs`` timed runs after compile:

- ``engine``: random legal play of a round and of a match, alone and with the observation
  (v1, v2) every ply (:mod:`lost_cities.benchmarks.engine`);
- ``features``: ``af1`` action features a second, from the observation and from the
  state's own view (:mod:`lost_cities.benchmarks.features`);
- ``train``: the default PPO update (env steps and learner decisions a second, the engine's
  share), data-parallel over ``--devices`` (:mod:`lost_cities.benchmarks.training`);
- ``bc``: the default cloning update (decisions labelled by ``heuristic_expert`` and
  fitted a second, :mod:`lost_cities.benchmarks.learning`);
- ``search``: search decisions and simulated rollout plies a second, the ``--search``
  preset on ``--search-base`` over ``--search-games`` positions batched
  (:mod:`lost_cities.benchmarks.search`).

``--profile DIR`` prints instead where a network move's and a PPO update's time goes and
writes their ``jax.profiler`` traces under DIR (:mod:`lost_cities.benchmarks.profile`).
A plain argparse CLI: it writes no run dir and composes no config of its own.
"""

import argparse

import jax

SECTIONS = ("engine", "features", "train", "bc", "search")
MOST = 1 << 24  # a count above this is a typo (16.8 million games or steps)


def positive(text):
    """A whole number in 1..:data:`MOST` (argparse names the flag in its error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= value <= MOST:
        raise argparse.ArgumentTypeError(f"{value} must be in 1..{MOST}")
    return value


def sections(text):
    """A comma-separated subset of :data:`SECTIONS`."""
    chosen = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(f"{text!r}: choose among {','.join(SECTIONS)}")
    return chosen


def engine(args):
    from lost_cities.benchmarks.engine import GAMES, make_random_play, median_rate, observation_cost_us

    print(f"batch_size={args.batch}")
    print(f"steps={args.steps}")
    measures = [
        ("steps_per_sec", "round", False),
        ("obs_steps_per_sec", "round", True),
        ("match_steps_per_sec", "match", False),
        ("obs_v2_steps_per_sec", "match", True),
    ]
    rates = {}
    for key, game, with_obs in measures:
        elapsed, rates[key] = median_rate(
            make_random_play(GAMES[game](), args.batch, args.steps, with_obs), args.runs
        )
        if key == "steps_per_sec":
            print(f"elapsed_sec={elapsed:.4f}")
        print(f"{key}={rates[key]:.0f}", flush=True)
    v1_cost = observation_cost_us(rates["obs_steps_per_sec"], rates["steps_per_sec"])
    v2_cost = observation_cost_us(rates["obs_v2_steps_per_sec"], rates["match_steps_per_sec"])
    print(f"obs_cost_us={v1_cost:.3f}")
    print(f"obs_v2_cost_us={v2_cost:.3f}")
    print(f"obs_v2_cost_ratio={v2_cost / v1_cost:.2f}")


def features(args):
    from lost_cities.benchmarks.features import feature_rates

    for key, value in feature_rates(runs=args.runs).items():
        print(f"{key}={value:.0f}", flush=True)


def train(args):
    from lost_cities.benchmarks.engine import train_throughput

    overrides = [f"devices={args.devices}"] + ([f"ppo.num_envs={args.train_envs}"] if args.train_envs else [])
    figures = train_throughput(overrides, repeats=args.runs)
    print(f"train_num_envs={args.train_envs or 'config'}")
    print(f"train_devices={figures['devices']}")
    print(f"train_env_steps_per_sec={figures['train_env_steps_per_sec']:.0f}")
    print(f"train_learner_decisions_per_sec={figures['train_learner_decisions_per_sec']:.0f}")
    print(f"train_engine_share={figures['engine_share']:.3f}", flush=True)


def bc(args):
    from lost_cities.benchmarks.learning import bc_label_rate

    figures = bc_label_rate(runs=args.runs)
    print(f"bc_labels_per_sec={figures['bc_labels_per_sec']:.0f}", flush=True)


def search(args):
    from lost_cities.benchmarks.search import search_cost

    figures = search_cost(
        args.search_base, args.search, {}, games=args.search_games, single=0, runs=args.runs
    )
    for key in ("search_decisions_per_sec", "search_rollout_plies_per_sec", "rollout_plies_per_decision"):
        print(f"{key}={figures[key]}", flush=True)


def profile(args):
    from lost_cities import envs, models
    from lost_cities.benchmarks.profile import op_table, ply_costs, positions, update_costs
    from lost_cities.models.base import shipped_model

    env = envs.make("match3")
    agent = models.load(shipped_model(args.search_base) or args.search_base, env)
    print(f"# a greedy move of {args.search_base} over 2048 live positions, us per position")
    for stage, us in ply_costs(agent, env, lanes=2048).items():
        print(f"{us:8.2f}  {stage}")
    states = positions(env, 2048)
    keys = jax.random.split(jax.random.PRNGKey(0), jax.tree.leaves(states)[0].shape[0])
    rows, total = op_table(jax.vmap(agent.policy), (states, keys), f"{args.profile}/move")
    print(f"# its XLA:CPU ops (trace in {args.profile}/move), {total:.1f} ms of thunks: ms, calls, op")
    for ms, calls, op in rows:
        print(f"{ms:8.2f} {calls:5d}  {op}")
    for network in ("action", "mlp"):
        parts = update_costs([f"network={network}"], runs=args.runs)
        print(
            f"# a default PPO update, network={network}: "
            + ", ".join(f"{k} {parts[k]:.3f} s" for k in ("update", "rollout", "epochs"))
            + f"; the epochs' arithmetic {parts['epochs_gflop']:.1f} GFLOP"
            + f" ({parts['epochs_gflop'] / parts['epochs']:.0f} GFLOP/s)"
        )


SECTION_RUNS = {"engine": engine, "features": features, "train": train, "bc": bc, "search": search}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lost_cities.bench", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=positive, default=5, help="timed runs per figure (the median is printed)"
    )
    parser.add_argument(
        "--only", type=sections, default=list(SECTIONS), help=f"a subset of {','.join(SECTIONS)}"
    )
    parser.add_argument("--batch", type=positive, default=8192, help="engine: games stepped at once")
    parser.add_argument("--steps", type=positive, default=256, help="engine: steps per timed run")
    parser.add_argument("--devices", default="all", help="train: the update's devices, all or a count")
    parser.add_argument("--train-envs", type=positive, help="train: ppo.num_envs (default: the config's 256)")
    parser.add_argument("--search", default="belief", help="search: the preset (conf/search/)")
    parser.add_argument("--search-base", default="bc-ppo-xi6-bal2700.onnx", help="search: its base policy")
    parser.add_argument("--search-games", type=positive, default=128, help="search: positions batched")
    parser.add_argument("--profile", metavar="DIR", help="print where the time goes; traces under DIR")
    args = parser.parse_args(argv)

    print(f"backend={jax.default_backend()}")
    print(f"device_count={jax.device_count()}")  # one device everywhere but train (--devices)
    print(f"runs={args.runs}")
    if args.profile:
        profile(args)
        return
    for name in args.only:
        SECTION_RUNS[name](args)


if __name__ == "__main__":
    main()
