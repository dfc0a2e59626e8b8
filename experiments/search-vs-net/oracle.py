"""The value of information to this search: the same search, told what no player may know.

    python experiments/search-vs-net/oracle.py REVEAL SCRIPT.py ARGS ...

runs ``experiments/search-vs-net/SCRIPT.py ARGS`` (``realized.py`` or ``run.py``) with the search's
worlds drawn from more than the mover's information set:

- ``REVEAL=hand``: the opponent's hand as it truly is; only the deck's order is dealt
  afresh (and, in a match, the later rounds, as in an honest world). An upper bound on
  what any inference of the opponent's hand (a learned belief, the exact model's
  posterior) can add to this one-step search: no belief knows the hand better.
- ``REVEAL=all``: the true world itself, the deck's order and the later rounds included.

Why it exists: the experiments before it measured every lever of the honest search on
the page's net against the net, and none reached the bar of 0.65. These two ceilings say
how much of the gap a better belief could close at all (``hand``), and how much is the
deck's luck that no honest search can know (``all``). This is a diagnostic; the package's
search never reveals anything (tests/search/'s no-cheating tests).
"""

import json
import runpy
import sys
from pathlib import Path

import jax

from lost_cities.game.views import current_round, with_round
from lost_cities.search import inference
from lost_cities.search.determinize import deck_dealt_afresh, determinize


def hand_revealed(rng, env_state):
    """An honest world (:func:`determinize`) but for the opponent's true hand."""
    world_key, deck_key = jax.random.split(rng)
    world = determinize(world_key, env_state)
    return with_round(world, deck_dealt_afresh(deck_key, current_round(env_state)))


def true_world(rng, env_state):
    """The true state, whatever the key."""
    del rng
    return env_state


REVEALS = {"hand": hand_revealed, "all": true_world}


def run_script(script, args):
    """Run ``experiments/search-vs-net/SCRIPT ARGS`` in this process (after a diagnostic has replaced
    one of the search's functions)."""
    path = Path(__file__).resolve().parent / Path(script).name
    if not path.is_file():
        raise SystemExit(f"{script}: no such script in {path.parent}")
    sys.argv = [str(path), *args]
    runpy.run_path(str(path), run_name="__main__")


def run_with_worlds(worlds, script, args, tag):
    """Run ``experiments/search-vs-net/SCRIPT ARGS`` with the search's worlds drawn by
    ``worlds(rng, env_state)``, and put ``tag`` (what the search was told) in its row."""
    inference.determinize = worlds  # sample_worlds looks the name up when it is traced
    run_script(script, args)
    out = Path(args[1])  # both scripts: DEALS|POSITIONS OUT.json ...
    text = out.read_text()
    row = {**tag, **json.loads(text)}
    out.write_text(json.dumps(row, indent=2 if text.count("\n") > 1 else None) + "\n")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in REVEALS:
        raise SystemExit(f"usage: oracle.py {{{'|'.join(REVEALS)}}} SCRIPT.py ARGS ...")
    reveal, script, *args = sys.argv[1:]
    run_with_worlds(REVEALS[reveal], script, args, {"reveal": reveal})


if __name__ == "__main__":
    main()
