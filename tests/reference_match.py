"""A plain-Python reference for the 3-round match and observation v2 (docs/rules.md, docs/encodings.md).

Built on the independent round reference ``RefRound``; it shares no code with
``lost_cities``. The v2 features are computed from the reference round's lists, as
documented in ``lost_cities/obs/v2.py``'s layout table.
"""

import numpy as np
from reference_engine import (
    N_CARDS,
    N_COLOURS,
    RefRound,
    colour_of,
    is_handshake,
    rank_of,
)

N_ROUNDS = 3
N_MATCH_FEATURES = 512 - 454
PER_2, PER_50, PER_54, PER_75 = (np.float32(1) / np.float32(scale) for scale in (2, 50, 54, 75))
FEATURE_SCALES = np.array(
    [PER_75] + [1] * 9 + [1] * 3 + [PER_2, 1, 1, 1, PER_50, PER_75] + [1] * 9 + [PER_54] * 30, np.float32
)
CARD_COLOUR = [colour_of(card) for card in range(N_CARDS)]
CARD_RANK = [0 if is_handshake(card) else rank_of(card) for card in range(N_CARDS)]  # 0: no number
# Bucket edges as integers: bucket i holds the margins m with LOWER[i] <= m <= UPPER[i].
BUCKET_RANGES = [
    (-(10**9), -50),
    (-49, -25),
    (-24, -10),
    (-9, -1),
    (0, 0),
    (1, 9),
    (10, 24),
    (25, 49),
    (50, 10**9),
]


def margin_bucket_one_hot(margin):
    hits = [lower <= margin <= upper for lower, upper in BUCKET_RANGES]
    assert sum(hits) == 1, margin
    return [float(h) for h in hits]


class RefMatch:
    """Three ``RefRound``s; the carry, start rule and final reward of docs/rules.md."""

    def __init__(self, deck_orders, coins):
        self.moves = 0  # legal placements made in the whole match
        self.deck_orders = [[int(c) for c in order] for order in deck_orders]
        self.coins = [int(c) for c in coins]
        self.carry = [0.0, 0.0]
        self.round_idx = 0
        self.starter = self.coins[0]
        self.round = RefRound(self.deck_orders[0], self.starter)
        self.done = False
        self.later_starts = []  # (carry before the round, its starter) for rounds 2 and 3
        self.round_lengths = []  # plies of each finished round

    @property
    def to_move(self):
        return self.round.to_move

    def legal_mask(self):
        return self.round.legal_mask()

    def step(self, action):
        """Returns ``(reward2, done)``; illegal and post-end actions are no-ops."""
        if self.done:
            return [0.0, 0.0], True
        plies = self.round.plies
        _, round_over = self.round.step(action)
        self.moves += self.round.plies - plies
        if not round_over:
            return [0.0, 0.0], False
        self.round_lengths.append(self.round.plies)
        boards = self.round.board_score()
        self.carry = [self.carry[0] + boards[0], self.carry[1] + boards[1]]
        if self.round_idx == N_ROUNDS - 1:
            self.done = True
            c0, c1 = self.carry
            return [c0 - c1, c1 - c0], True
        self.round_idx += 1
        if self.carry[0] != self.carry[1]:
            self.starter = 0 if self.carry[0] > self.carry[1] else 1
        else:
            self.starter = self.coins[self.round_idx]
        self.later_starts.append((tuple(self.carry), self.starter))
        self.round = RefRound(self.deck_orders[self.round_idx], self.starter)
        return [0.0, 0.0], False

    def match_features(self, player):
        """float32[58]: observation v2 after its 454 v1 entries (the layout table's 454..511).

        Each entry is a small integer times its float32 scale (a reciprocal, as documented
        there), one float32 product, so the values are exact and compared bit for bit.
        """
        r = self.round
        opponent = 1 - player
        carry_margin = self.carry[player] - self.carry[opponent]
        board_margin = r.boards[player] - r.boards[opponent]
        projected = carry_margin + board_margin
        # Only deck draws from now on: plies alternate and the len(deck)-th ply draws the
        # last card; the player to move makes the odd-numbered plies.
        last_drawer = r.to_move if len(r.deck) % 2 == 1 else 1 - r.to_move
        draws_last = not self.done and last_drawer == player
        in_piles = [card for pile in r.piles for card in pile]
        unseen = r.deck + [c for c in r.hands[opponent] if c not in r.known[opponent]]
        raw = (
            [carry_margin]
            + margin_bucket_one_hot(carry_margin)
            + [i == self.round_idx for i in range(N_ROUNDS)]
            + [
                N_ROUNDS - 1 - self.round_idx,
                r.to_move == player,
                self.starter == player,
                draws_last,
                board_margin,
                projected,
            ]
            + margin_bucket_one_hot(projected)
            + _reachable(r.highest[player], [r.hands[player], in_piles, unseen])
            + _reachable(r.highest[opponent], [r.known[opponent], in_piles, unseen])
        )
        return np.array(raw, np.float32) * FEATURE_SCALES


def _reachable(highest, places):
    """Per place, per colour: the rank total of the numbers above ``highest[colour]``."""
    totals = []
    for place in places:
        per_colour = [0] * N_COLOURS
        for card in place:
            colour, rank = CARD_COLOUR[card], CARD_RANK[card]
            if rank > highest[colour]:
                per_colour[colour] += rank
        totals += per_colour
    return totals


def random_deals(rng, n):
    """``n`` match deals as numpy arrays: deck orders int32[n, 3, 60] and coins int32[n, 3]."""
    orders = np.stack([np.stack([rng.permutation(N_CARDS) for _ in range(N_ROUNDS)]) for _ in range(n)])
    return orders.astype(np.int32), rng.integers(0, 2, (n, N_ROUNDS)).astype(np.int32)


def mirror_deals(orders, coins):
    """The same deals with the seats swapped: deck positions 0..7 and 8..15 exchanged, coins flipped."""
    mirrored = orders.copy()
    mirrored[..., :8], mirrored[..., 8:16] = orders[..., 8:16], orders[..., :8]
    return mirrored, 1 - coins
