"""An independent plain-Python reference for one round of Lost Cities (docs/rules.md, docs/encodings.md).

Written again from the specification, sharing no code with ``lost_cities``, so that the
differential test compares two separate readings of the rules. Plain lists of cards,
plus per-expedition summaries that ``step`` keeps up to date: the differential test
plays thousands of games with it, so the hot paths (legal mask, observation) avoid
rescanning the expeditions.
"""

N_COLOURS = 5
SLOTS_PER_COLOUR = 12
HANDSHAKE_SLOTS = 3
N_CARDS = 60
HAND_SIZE = 8
N_ACTIONS = 96
MAX_STEPS = 400
OBS_DIM = 454


def colour_of(card):
    return card // SLOTS_PER_COLOUR


def slot_of(card):
    return card % SLOTS_PER_COLOUR


def is_handshake(card):
    return slot_of(card) < HANDSHAKE_SLOTS


def rank_of(card):
    """Face value of a number card (2..10); handshakes have none."""
    return slot_of(card) - 1


def make_card(colour, slot):
    return colour * SLOTS_PER_COLOUR + slot


def make_action(hand_slot, place_type, draw_source):
    """``hand_slot * 12 + place_type * 6 + draw_source`` (docs/encodings.md)."""
    return hand_slot * 12 + place_type * 6 + draw_source


def split_action(action):
    return action // 12, (action // 6) % 2, action % 6


def expedition_score(number_sum, handshakes, count):
    """Score of one expedition (docs/rules.md): 0 when empty, the bonus counts handshakes."""
    if count == 0:
        return 0
    return (number_sum - 20) * (1 + handshakes) + (20 if count >= 8 else 0)


def build_deck_order(hand0, hand1, draws=()):
    """A deck order that deals ``hand0`` to seat 0 and ``hand1`` to seat 1 and puts
    ``draws`` on top of the deck in that order; the remaining cards follow by id."""
    chosen = list(hand0) + list(hand1) + list(draws)
    if len(hand0) != HAND_SIZE or len(hand1) != HAND_SIZE or len(set(chosen)) != len(chosen):
        raise ValueError("need 8 distinct cards per hand and distinct draw cards")
    taken = set(chosen)
    return chosen + [c for c in range(N_CARDS) if c not in taken]


class RefRound:
    """One round from a deck order: cards 0..7 to seat 0, 8..15 to seat 1, deck from 16."""

    def __init__(self, deck_order, first_player=0):
        deck_order = [int(c) for c in deck_order]
        if sorted(deck_order) != list(range(N_CARDS)):
            raise ValueError("deck_order must be a permutation of the 60 card ids")
        self.deck = deck_order[2 * HAND_SIZE :]  # next card to draw is self.deck[0]
        self.hands = [sorted(deck_order[:HAND_SIZE]), sorted(deck_order[HAND_SIZE : 2 * HAND_SIZE])]
        self.known = [set(), set()]  # cards in seat p's hand that p drew from a pile
        self.expeditions = [[[] for _ in range(N_COLOURS)] for _ in range(2)]
        # Per seat and colour, kept up to date by ``step`` so the hot paths need no scans.
        self.highest = [[0] * N_COLOURS for _ in range(2)]  # highest number, 0 when none
        self.number_sum = [[0] * N_COLOURS for _ in range(2)]
        self.handshakes = [[0] * N_COLOURS for _ in range(2)]
        self.boards = [0, 0]
        self.piles = [[] for _ in range(N_COLOURS)]  # last element is the top
        self.plies = 0
        self.to_move = int(first_player)
        self.done = False

    # --- rules -------------------------------------------------------------------

    def _can_play(self, card):
        highest = self.highest[self.to_move][colour_of(card)]
        if is_handshake(card):
            return highest == 0  # handshakes only before any number
        return rank_of(card) > highest  # numbers strictly increasing

    def _move_ok(self, card, playable, place_type, draw_source):
        if place_type == 0 and not playable:
            return False
        if draw_source == 0:
            return True
        pile_colour = draw_source - 1
        if place_type == 1 and pile_colour == colour_of(card):
            return False  # may not redraw the card just discarded
        return bool(self.piles[pile_colour])

    def is_legal(self, action):
        if self.done or not 0 <= action < N_ACTIONS:
            return False
        hand_slot, place_type, draw_source = split_action(action)
        card = self.hands[self.to_move][hand_slot]
        return self._move_ok(card, self._can_play(card), place_type, draw_source)

    def legal_mask(self):
        """bool[96] in action order, built per hand card (``is_legal`` for every action)."""
        if self.done:
            return [False] * N_ACTIONS
        pile_ok = [True] + [bool(pile) for pile in self.piles]  # per draw source
        mask = []
        for card in self.hands[self.to_move]:
            play = pile_ok if self._can_play(card) else [False] * 6
            discard = list(pile_ok)
            discard[1 + colour_of(card)] = False  # may not redraw the card just discarded
            mask += play + discard
        return mask

    def board_score(self):
        return [float(b) for b in self.boards]

    def _place_on_expedition(self, seat, card):
        colour = colour_of(card)
        self.expeditions[seat][colour].append(card)
        if is_handshake(card):
            self.handshakes[seat][colour] += 1
        else:
            self.highest[seat][colour] = rank_of(card)
            self.number_sum[seat][colour] += rank_of(card)
        sums, handshakes, expeditions = self.number_sum[seat], self.handshakes[seat], self.expeditions[seat]
        self.boards[seat] = sum(
            expedition_score(sums[c], handshakes[c], len(expeditions[c])) for c in range(N_COLOURS)
        )

    def step(self, action):
        """Apply ``action``; returns ``(reward2, done)``. Illegal or post-end: a no-op."""
        action = int(action)
        if not self.is_legal(action):
            return [0.0, 0.0], self.done
        seat = self.to_move
        hand_slot, place_type, draw_source = split_action(action)
        hand = self.hands[seat]
        card = hand.pop(hand_slot)
        self.known[seat].discard(card)
        if place_type == 0:
            self._place_on_expedition(seat, card)
        else:
            self.piles[colour_of(card)].append(card)
        if draw_source == 0:
            drawn = self.deck.pop(0)
        else:
            drawn = self.piles[draw_source - 1].pop()
            self.known[seat].add(drawn)
        hand.append(drawn)
        hand.sort()
        self.plies += 1
        self.to_move = 1 - seat
        if not self.deck or self.plies >= MAX_STEPS:
            self.done = True
            s0, s1 = self.board_score()
            return [s0 - s1, s1 - s0], True
        return [0.0, 0.0], False

    # --- observation v1 ----------------------------------------------------------

    def card_channels(self, player):
        """The one-hot channel (0..6) of every card from ``player``'s point of view."""
        opponent = 1 - player
        channels = [6] * N_CARDS  # unknown: the deck or the opponent's unknown hand
        for card in self.hands[player]:
            channels[card] = 0
        for card in self.known[opponent]:
            channels[card] = 5
        for colour in range(N_COLOURS):
            for card in self.expeditions[player][colour]:
                channels[card] = 1
            for card in self.expeditions[opponent][colour]:
                channels[card] = 2
            pile = self.piles[colour]
            for card in pile:
                channels[card] = 4
            if pile:
                channels[pile[-1]] = 3
        return channels

    def _expedition_features(self, seat):
        return (
            [h / 10 for h in self.highest[seat]]
            + [h / 3 for h in self.handshakes[seat]]
            + [len(e) / 12 for e in self.expeditions[seat]]
        )

    def scalars(self, player):
        """The 34 scalars of observation v1 (docs/encodings.md), as exact quotients.

        Each is one division of exact integers, so rounding it to float32 gives the
        correctly rounded float32 value.
        """
        opponent = 1 - player
        unknown = sum(1 for c in self.hands[opponent] if c not in self.known[opponent])
        boards = self.boards
        return (
            [len(self.deck) / 44, unknown / 8, self.plies / 400]
            + self._expedition_features(player)
            + self._expedition_features(opponent)
            + [(boards[player] - boards[opponent]) / 780]
        )

    def observation(self, player):
        """Observation v1: 60 x 7 one-hot card channels, then the 34 scalars."""
        obs = [0.0] * OBS_DIM
        for card, channel in enumerate(self.card_channels(player)):
            obs[card * 7 + channel] = 1.0
        obs[420:] = self.scalars(player)
        return obs
