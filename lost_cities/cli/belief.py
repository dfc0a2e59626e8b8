"""``python -m lost_cities.belief``: fit a learned belief on a policy's self-play, check its
calibration, or export it for the web client (conf/cli/belief.yaml)."""

from pathlib import Path

import hydra

from lost_cities import envs
from lost_cities.cli import CLI_CONF, reporting_input_errors
from lost_cities.export.belief import export_onnx
from lost_cities.imitation.belief import calibration, train
from lost_cities.policies import make_policy
from lost_cities.search.belief import load, save

ACTIONS = ("train", "check", "export")


# The counts each action reads, with their least values (``moves``' most: imitation.belief.train).
COUNTS = {
    "train": {"positions": 1, "held_out": 1, "steps": 1, "batch": 1, "moves": 0},
    "check": {"check_positions": 1},
    "export": {},
}


def check_counts(cfg):
    """The action's counts are whole numbers in range, and ``lr`` positive: named when not."""
    for key, least in COUNTS[cfg.action].items():
        value = cfg[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{key}={value!r} must be a whole number >= {least}")
    if cfg.action == "train" and not (isinstance(cfg.lr, int | float) and cfg.lr > 0):
        raise ValueError(f"lr={cfg.lr!r} must be a positive number")


def run(cfg):
    """The command's one job, by ``cfg.action``; every input is checked before the work."""
    if cfg.action not in ACTIONS:
        raise ValueError(f"action={cfg.action!r}; choose one of {list(ACTIONS)}")
    check_counts(cfg)
    if cfg.action == "export":
        if cfg.out is None:
            raise ValueError("action=export needs out=<file.onnx>")
        model, manifest = export_onnx(load(cfg.belief), cfg.out, cfg.belief)
        print(f"wrote {model} ({model.stat().st_size} bytes) and {manifest}")
        return
    if cfg.base is None:
        raise ValueError(f"action={cfg.action} needs base=<the self-play policy>")
    env = envs.make(cfg.env)
    policy = make_policy(cfg.base, env)
    if cfg.action == "train":
        out = Path(cfg.belief)
        if not out.parent.is_dir():
            raise FileNotFoundError(f"belief={out}: no such directory {out.parent}")
        knobs = ("positions", "steps", "moves", "seed", "hidden", "held_out", "batch", "lr")
        belief = train(env, policy, cfg.base, **{k: cfg[k] for k in knobs})
        save(out, belief)
        losses = f"{belief.report['held_out_loss']:.4f} (uniform {belief.report['uniform_loss']:.4f})"
        print(f"held-out loss per unseen card {losses}; wrote {out}")
        return
    rows, s = calibration(load(cfg.belief, env.name), env, policy, cfg.check_positions)
    print("belief decile     belief  in hand  dealt by the worlds")
    for lo, hi, mean, truth, dealt in rows:
        print(f"[{lo:.3f}, {hi:.3f}]  {mean:.3f}   {truth:.3f}    {dealt:.3f}")
    print(
        f"{s['positions']} positions, {s['unseen']:.1f} unseen cards and {s['hand']:.2f} in the opponent's "
        f"unknown hand on average; loss per unseen card {s['loss']:.4f} (uniform {s['uniform_loss']:.4f}): "
        f"{s['nats_removed']:.2f} nats of the hand's {s['hand_entropy']:.2f} removed"
    )


@hydra.main(version_base=None, config_path=CLI_CONF, config_name="belief")
@reporting_input_errors
def main(cfg):
    run(cfg)


if __name__ == "__main__":
    main()
