"""A stand-in for the entry points a recipe runs (tests/training/test_recipe.py): it logs its
command line, writes what the real one writes last (``evaluation.json``, or a gate's
``results.json``), and can be told to die once half-way, as an interrupted run would, or to
have the recipe stopped by SIGTERM half-way (as ``kill`` or a scheduler would)."""

import json
import os
import signal
import sys
import time
from pathlib import Path


def main(argv):
    entry = os.environ["FAKE_ENTRY"]
    args = dict(a.split("=", 1) for a in argv)
    run_dir = Path(args.get("resume") or args["hydra.run.dir"])
    log = Path(os.environ["FAKE_LOG"])
    with log.open("a") as f:
        f.write(json.dumps({"entry": entry, "dir": run_dir.name, "args": args}) + "\n")
    run_dir.mkdir(parents=True, exist_ok=True)
    if entry == "evaluate":
        result = {
            "win_rate": 0.6,
            "win_rate_lower": 0.55,
            "win_rate_upper": 0.65,
            "margin_mean": 3.0,
            "deals": int(args["deals"]),
        }
        (run_dir / "results.json").write_text(json.dumps(result))
        return 0
    died = log.with_name(f"died-{run_dir.name}")
    stop = run_dir.name in os.environ.get("FAKE_STOP", "").split(",")
    if (stop or run_dir.name in os.environ.get("FAKE_DIE", "").split(",")) and not died.exists():
        died.touch()
        (run_dir / "config.yaml").write_text("partial\n")
        if entry == "train":
            (run_dir / "checkpoints" / "latest" / "1").mkdir(parents=True)
        if stop:
            os.kill(os.getppid(), signal.SIGTERM)
            time.sleep(60)  # killed by the recipe before this ends
        return 3
    (run_dir / "evaluation.json").write_text("{}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
