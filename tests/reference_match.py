"""A plain-Python reference for the 3-round match and observation v2 (SPEC §3, §4).

Built on the independent round reference ``RefRound``; it shares no code with
``lost_cities``. The v2 features are computed from the reference round's lists, as
documented in ``lost_cities/match_observation.py``'s layout table.
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
OBS_V2_DIM = 512
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
    """Three ``RefRound``s; the carry, start rule and final reward of SPEC §3."""

    def __init__(self, deck_orders, coins):
        self.deck_orders = [[int(c) for c in order] for order in deck_orders]
        self.coins = [int(c) for c in coins]
        self.carry = [0.0, 0.0]
        self.round_idx = 0
        self.starter = self.coins[0]
        self.round = RefRound(self.deck_orders[0], self.starter)
        self.done = False

    @property
    def to_move(self):
        return self.round.to_move

    def legal_mask(self):
        return self.round.legal_mask()

    def step(self, action):
        """Returns ``(reward2, done)``; illegal and post-end actions are no-ops."""
        if self.done:
            return [0.0, 0.0], True
        _, round_over = self.round.step(action)
        if not round_over:
            return [0.0, 0.0], False
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
        self.round = RefRound(self.deck_orders[self.round_idx], self.starter)
        return [0.0, 0.0], False

    def _reachable(self, seat, places):
        """Per place (a set of card ids), per colour: ranks of numbers above ``seat``'s highest."""
        values = []
        for place in places:
            per_colour = [0] * N_COLOURS
            for card in place:
                if not is_handshake(card) and rank_of(card) > self.round.highest[seat][colour_of(card)]:
                    per_colour[colour_of(card)] += rank_of(card)
            values += [v / 54 for v in per_colour]
        return values

    def observation_v2(self, player):
        r = self.round
        opponent = 1 - player
        carry_margin = self.carry[player] - self.carry[opponent]
        boards = r.board_score()
        board_margin = boards[player] - boards[opponent]
        projected = carry_margin + board_margin
        my_turn = r.to_move == player
        deck_left = len(r.deck)
        # Only deck draws from now on: plies alternate and the deck_left-th ply draws the
        # last card; the mover makes the odd-numbered plies.
        last_drawer = r.to_move if deck_left % 2 == 1 else 1 - r.to_move
        draws_last = (not self.done) and last_drawer == player

        in_piles = {card for pile in r.piles for card in pile}
        seen = set(r.hands[player]) | set(r.known[opponent]) | in_piles
        for seat in range(2):
            for expedition in r.expeditions[seat]:
                seen |= set(expedition)
        unseen = set(range(N_CARDS)) - seen
        assert len(unseen) == deck_left + len(r.hands[opponent]) - len(r.known[opponent])
        mine = self._reachable(player, [set(r.hands[player]), in_piles, unseen])
        theirs = self._reachable(opponent, [set(r.known[opponent]), in_piles, unseen])
        features = (
            [carry_margin / 75]
            + margin_bucket_one_hot(carry_margin)
            + [float(i == self.round_idx) for i in range(N_ROUNDS)]
            + [
                (N_ROUNDS - 1 - self.round_idx) / 2,
                float(my_turn),
                float(self.starter == player),
                float(draws_last),
                board_margin / 50,
                projected / 75,
            ]
            + margin_bucket_one_hot(projected)
            + mine
            + theirs
        )
        obs = r.observation(player) + features
        assert len(obs) == OBS_V2_DIM
        return obs


def random_deals(rng, n):
    """``n`` match deals as numpy arrays: deck orders int32[n, 3, 60] and coins int32[n, 3]."""
    orders = np.stack([np.stack([rng.permutation(N_CARDS) for _ in range(N_ROUNDS)]) for _ in range(n)])
    return orders.astype(np.int32), rng.integers(0, 2, (n, N_ROUNDS)).astype(np.int32)


def mirror_deals(orders, coins):
    """The same deals with the seats swapped: deck positions 0..7 and 8..15 exchanged, coins flipped."""
    mirrored = orders.copy()
    mirrored[..., :8], mirrored[..., 8:16] = orders[..., 8:16], orders[..., :8]
    return mirrored, 1 - coins
