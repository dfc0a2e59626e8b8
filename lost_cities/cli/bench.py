"""``python -m lost_cities.bench [--batch 8192] [--steps 256] [--runs 5] [--skip-train]``: the
engine's, the observations' and a PPO update's throughput (:mod:`lost_cities.benchmarks.engine`).

Prints ``key=value`` lines (rates: medians of ``--runs`` timed runs). A plain argparse CLI:
it writes no run dir and composes no config of its own.
"""

import argparse

import jax

from lost_cities.benchmarks.engine import (
    GAMES,
    make_random_play,
    median_rate,
    observation_cost_us,
    train_throughput,
)

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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lost_cities.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=positive, default=8192, help="games stepped at once")
    parser.add_argument("--steps", type=positive, default=256, help="steps per timed run")
    parser.add_argument("--runs", type=positive, default=5, help="timed runs (the median is printed)")
    parser.add_argument("--skip-train", action="store_true", help="skip the PPO training throughput")
    parser.add_argument("--devices", default="all", help="the training update's devices: all or a count")
    args = parser.parse_args(argv)

    print(f"backend={jax.default_backend()}")
    print(f"device_count={jax.device_count()}")  # the engine loops use one; the training update --devices
    print(f"batch_size={args.batch}")
    print(f"steps={args.steps}")
    print(f"runs={args.runs}")
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
    if not args.skip_train:
        train = train_throughput([f"devices={args.devices}"])
        print(f"train_devices={train['devices']}")
        print(f"train_env_steps_per_sec={train['train_env_steps_per_sec']:.0f}")
        print(f"train_engine_share={train['engine_share']:.3f}")


if __name__ == "__main__":
    main()
