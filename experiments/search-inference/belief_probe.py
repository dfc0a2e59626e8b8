"""How much does public play tell the mover about the opponent's hand?

    python experiments/search-inference/belief_probe.py [POSITIONS] > results/belief_probe.txt

At POSITIONS positions of expert-vs-expert matches (every 3rd ply, the true state), every
card the mover has not seen (the deck and the opponent's unknown hand) is put in a class
by what is public about it, and the share of that class truly in the opponent's hand is
set against the share a uniform world gives it (the opponent's unknown hand size over the
unseen count, position by position). Then a belief that scales each unseen card's uniform
odds by its class's ratio (renormalized to the hand size) is scored against the uniform
one: the log-likelihood of the true hand (as independent per-card draws), in bits per
position.

Why: the search's judge (offline.py) says that knowing the opponent's hand
would more than double what a search decision gains (1.91 against 0.83 points at 4
candidates), and filtering worlds by the opponent's recent moves gained little. This
measures whether a better model of the hand (a belief over worlds) has much to find.
"""

import sys

import numpy as np

from lost_cities import envs
from lost_cities.evaluation.positions import positions
from lost_cities.game.cards import N_CARDS, N_HANDSHAKE_SLOTS, N_SLOTS
from lost_cities.game.engine import LOC_HAND


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    state = positions(envs.make("match3"), count, seed=5, every=3).round
    loc = np.asarray(state.loc).astype(int)
    rows = np.arange(loc.shape[0])
    mover = np.asarray(state.to_move).astype(int)
    opponent = 1 - mover
    unseen = (loc < LOC_HAND) | (loc == LOC_HAND + opponent[:, None])
    in_hand = loc == LOC_HAND + opponent[:, None]
    uniform = in_hand.sum(1) / unseen.sum(1)

    cards = np.arange(N_CARDS)
    colour, slot = cards // N_SLOTS, cards % N_SLOTS
    handshake = slot < N_HANDSHAKE_SLOTS
    top = np.asarray(state.exp_top).astype(int)[rows, opponent][:, colour]  # [N, 60]
    started = (np.asarray(state.exp_count).astype(int)[rows, opponent] > 0)[:, colour]
    dead = started & (handshake[None] | (slot[None] <= top))  # it can never play them
    late = (np.asarray(state.plies).astype(int) > 30)[:, None]
    classes = {
        "dead for the opponent (below its expedition's top)": dead,
        "live in a colour the opponent has started": started & ~dead,
        "a colour the opponent has not started": ~started,
        "  of which handshakes": ~started & handshake[None],
        "  of which 8-10": ~started & (slot[None] >= 9),
        "dead for the opponent, after ply 30": dead & late,
        "live, started colour, after ply 30": started & ~dead & late,
    }
    print(f"{loc.shape[0]} positions of expert-vs-expert matches, {int(unseen.sum())} unseen cards")
    print("class | cards | in the opponent's hand | uniform worlds | ratio")
    ratio = np.ones(loc.shape, float)
    for name, members in classes.items():
        m = members & unseen
        truth, model = in_hand[m].mean(), np.broadcast_to(uniform[:, None], m.shape)[m].mean()
        print(f"{name} | {int(m.sum())} | {truth:.3f} | {model:.3f} | {truth / model:.2f}")
        if not name.startswith(" ") and "after" not in name:
            ratio = np.where(members, truth / model, ratio)

    def bits(p):
        p = np.clip(p, 1e-6, 1 - 1e-6)
        ll = np.where(in_hand, np.log2(p), np.log2(1 - p))
        return np.sum(np.where(unseen, ll, 0.0), axis=1)

    base = np.broadcast_to(uniform[:, None], loc.shape)
    weights = np.where(unseen, base * ratio, 0.0)
    belief = weights * (in_hand.sum(1) / weights.sum(1))[:, None]
    gain = bits(belief) - bits(base)
    print(
        f"log-likelihood of the true hand, uniform {bits(base).mean():.2f} bits per position; "
        f"the class belief {gain.mean():+.3f} bits (s.e. {gain.std() / np.sqrt(gain.size):.3f})"
    )


if __name__ == "__main__":
    main()
