/** The worlds a Python fixture records (tools/search_fixture.py `hidden_of`), rebuilt as rounds; and a position's
 * true hidden cards permuted (what a search that reads only the mover's information must not notice). */
import { expect } from 'vitest';
import { unseenCards } from '../src/belief';
import { type Random, shuffled } from '../src/deal';
import { LOC_HAND, LOC_KNOWN, type RoundState } from '../src/engine';
import type { MatchState } from '../src/match';

export interface HiddenWorld {
  opponent_hand: number[];
  deck: number[];
}

/** The round with the mover's hidden cards dealt as a Python world has them: the opponent's hand
 * (its known cards where they are) and the undrawn deck in drawing order. */
export function worldOf(round: RoundState, hidden: HiddenWorld): RoundState {
  const opponent = 1 - round.toMove;
  const unseen = unseenCards(round, round.toMove);
  const loc = [...round.loc];
  const deckOrder = [...round.deckOrder];
  for (const card of hidden.opponent_hand) {
    if (unseen[card]) loc[card] = LOC_HAND + opponent;
    else expect(loc[card], `card ${card} of the opponent's hand`).toBe(LOC_KNOWN + opponent);
  }
  hidden.deck.forEach((card, i) => {
    expect(unseen[card], `deck card ${card}`).toBe(true);
    loc[card] = round.deckPtr + i;
    deckOrder[round.deckPtr + i] = card;
  });
  const dealt = [...hidden.opponent_hand.filter((card) => unseen[card]), ...hidden.deck].sort((a, b) => a - b);
  expect(dealt).toEqual(unseen.flatMap((u, card) => (u ? [card] : [])));
  const hands: [number[], number[]] = [[...round.hands[0]], [...round.hands[1]]];
  hands[opponent] = [...hidden.opponent_hand].sort((a, b) => a - b);
  return { ...round, loc, deckOrder, hands };
}

/** The same position with the true hidden cards (the opponent's unknown hand and the deck) permuted among themselves. */
export function hiddenPermuted(ms: MatchState, random: Random): MatchState {
  const round = ms.round;
  const opponent = 1 - round.toMove;
  const unseen = unseenCards(round, round.toMove);
  const places = round.loc.flatMap((loc, card) => (unseen[card] ? [loc] : []));
  const cards = shuffled(round.loc.flatMap((_, card) => (unseen[card] ? [card] : [])), random);
  const loc = [...round.loc];
  const deckOrder = [...round.deckOrder];
  cards.forEach((card, i) => {
    loc[card] = places[i];
    if (places[i] < LOC_HAND) deckOrder[places[i]] = card;
  });
  const hands: [number[], number[]] = [[...round.hands[0]], [...round.hands[1]]];
  hands[opponent] = loc.flatMap((l, card) => (l === LOC_HAND + opponent || l === LOC_HAND + 2 + opponent ? [card] : []));
  return { ...ms, round: { ...round, loc, deckOrder, hands } };
}

