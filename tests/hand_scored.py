"""A 3-round match scored by hand from docs/rules.md, for the tests that score matches: the
replay of a web log (tests/cli/test_replay.py) and the plain-Python references the engine is
held to (tests/game/test_differential.py, tests/game/test_match_differential.py). A module on
the tests' path, so that any test dir can import it whichever dirs a run collects.

Every draw is from the deck, whose undealt cards run from the highest id down, so a hand's
lowest card stays in slot 0 while a seat plays its dealt cards; every other placement discards
slot 0, which scores nothing. Card id: colour * 12 + slot (slots 0-2 handshakes, slot s the
number s - 1); an action: hand slot * 12 + (0 play, 6 discard) + 0 (draw from the deck)."""

N_CARDS = 60
TURNS = 22  # 44 deck draws end a round: 22 turns a seat, the starter first
PLAY_LOWEST, PLAY_HIGHEST, DISCARD_LOWEST = 0, 7 * 12, 6

# Per round: the dealt hands (seat 0, seat 1), the seat that starts and each seat's plays
# before it only discards.
ROUNDS = [
    # Round 1, coin 0: seat 0 starts. Seat 0 plays colour 0's handshake and 2..8 (ids 0, 3..9):
    # (35 - 20) * 2 + 20 for 8 cards = 50; seat 1 discards all round: 0.
    (([0, 3, 4, 5, 6, 7, 8, 9], [1, 2, 10, 11, 12, 13, 14, 15]), 0, [PLAY_LOWEST] * 8, []),
    # Round 2: seat 0 starts, leading 50 to 0 (the coin, 1, would say seat 1). Seat 0 plays
    # colour 2's 10 (id 35): 10 - 20 = -10; seat 1 plays colour 1's three handshakes and 7..10
    # (ids 12..14, 20..23): (34 - 20) * 4 = 56, 7 cards (no bonus).
    (
        ([35, 36, 37, 38, 39, 40, 41, 42], [12, 13, 14, 20, 21, 22, 23, 43]),
        0,
        [PLAY_LOWEST],
        [PLAY_LOWEST] * 7,
    ),
    # Round 3: seat 1 starts, leading 56 to 40 (the coin, 0, would say seat 0). Seat 0 plays its
    # highest card, colour 4's 10 (id 59): -10; seat 1 plays colour 0's three handshakes and
    # 6..10 (ids 0..2, 7..11): (40 - 20) * 4 + 20 for 8 cards = 100.
    (
        ([12, 13, 14, 15, 16, 17, 18, 59], [0, 1, 2, 7, 8, 9, 10, 11]),
        1,
        [PLAY_HIGHEST],
        [PLAY_LOWEST] * 8,
    ),
]
COINS = [0, 1, 0]
ROUND_SCORES = [[50, 0], [-10, 56], [-10, 100]]
TOTALS = [30, 156]  # 50 - 10 - 10 and 0 + 56 + 100


def deck_order(round_idx):
    """The round's deck order: the two hands, then the other cards from the highest id down."""
    (hand0, hand1), *_ = ROUNDS[round_idx]
    rest = sorted(set(range(N_CARDS)) - set(hand0) - set(hand1), reverse=True)
    return [*hand0, *hand1, *rest]


def round_actions(round_idx):
    """The round's 44 actions in the order they are played."""
    _, starter, plays0, plays1 = ROUNDS[round_idx]
    moves = [[*plays, *[DISCARD_LOWEST] * (TURNS - len(plays))] for plays in (plays0, plays1)]
    return [a for pair in zip(moves[starter], moves[1 - starter], strict=True) for a in pair]


def match():
    """``(deck_orders, coins, actions)`` of the whole match."""
    return [deck_order(r) for r in range(3)], COINS, [a for r in range(3) for a in round_actions(r)]
