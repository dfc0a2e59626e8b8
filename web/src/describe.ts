/** Human-readable names of cards and actions, for the table, the log and the probability list. */
import { DECK, DISCARD, cardColour, cardRank, decodeAction, isNumber } from './cards';
import type { RoundState } from './engine';

export const COLOUR_NAMES = ['Yellow', 'Blue', 'White', 'Green', 'Red'];
export const COLOUR_KEYS = ['yellow', 'blue', 'white', 'green', 'red'];

/** The face of a card: its number, or W for a wager (handshake) card. */
export const cardFace = (card: number): string => (isNumber(card) ? String(cardRank(card)) : 'W');

export const cardName = (card: number): string =>
  `${COLOUR_NAMES[cardColour(card)]} ${isNumber(card) ? cardRank(card) : 'wager'}`;

export const sourceName = (drawSource: number): string =>
  drawSource === DECK ? 'the deck' : `the ${COLOUR_NAMES[drawSource - 1]} pile`;

/** "played Blue 7, drew from the deck" for the seat to move in `round` ("Play Blue 7, draw from the deck" as advice). */
export function describeAction(round: RoundState, action: number, advice = false): string {
  const { handSlot, placeType, drawSource } = decodeAction(action);
  const card = round.hands[round.toMove][handSlot];
  const verb = placeType === DISCARD ? (advice ? 'Discard' : 'discarded') : advice ? 'Play' : 'played';
  return `${verb} ${cardName(card)}, ${advice ? 'draw' : 'drew'} from ${sourceName(drawSource)}`;
}

/** Advice inside a sentence: "play Yellow 3, draw from the deck" (the colour keeps its capital, as on the board). */
export function adviceInSentence(round: RoundState, action: number): string {
  const advice = describeAction(round, action, true);
  return advice[0].toLowerCase() + advice.slice(1);
}
