"""The tiny loop the improvement tests share: one round, a 16-unit MLP from fresh parameters,
a 2-world 2-candidate search (half of each ply's positions escalated by 2 worlds), 2 chunks of
4 games x 4 plies judged on both carries in 4 worlds, 2 epochs, 4-deal gates."""

import json
import sys

from hydra import compose, initialize_config_module

TINY = [
    "env=single_round",
    "network=mlp",
    "network.hidden=[16]",
    "start=null",
    "logger=none",
    "progress=false",
    "teacher.knobs.worlds=2",
    "teacher.knobs.candidates=2",
    "teacher.escalate.worlds=2",
    "generate.games=4",
    "generate.plies=4",
    "generate.chunks=2",
    "teacher.judge.positions=8",
    "teacher.judge.worlds=4",
    "student.epochs=2",
    "student.minibatch_size=8",
    "student.holdout=4",
    "gate.deals=4",
    "gate.batch_size=4",
    "anchors.deals=4",
    "anchors.batch_size=4",
    "iterations=2",
]


def tiny_cfg(overrides=()):
    with initialize_config_module(config_module="lost_cities.conf", version_base=None):
        return compose("improve", overrides=[*TINY, *overrides])


def rows_without_times(rows):
    return [
        {k: v for k, v in r.items() if not k.startswith("time/") and k != "labels/per_second"} for r in rows
    ]


def main():
    """``python tiny_loop.py <run dir> <phase> <iteration> [<detail>]``: run the tiny loop and
    ``kill -9`` this process right after that step is on disk (the resume tests)."""
    import os
    import signal

    from lost_cities.improvement.loop import improve
    from lost_cities.improvement.resume import prepare

    run_dir, phase, iteration = sys.argv[1], sys.argv[2], int(sys.argv[3])
    detail = json.loads(sys.argv[4]) if len(sys.argv) > 4 else None

    def on_step(p, i, d):
        if (p, i, d) == (phase, iteration, detail):
            os.kill(os.getpid(), signal.SIGKILL)

    cfg, run_dir = prepare(tiny_cfg(), run_dir)
    improve(cfg, run_dir, on_step=on_step)


if __name__ == "__main__":
    main()
