/** Card and action encodings (SPEC §4), identical to lost_cities/game/cards.py. */

export const N_COLOURS = 5;
export const N_SLOTS = 12; // per colour: slots 0..2 handshakes, slots 3..11 numbers 2..10
export const N_CARDS = N_COLOURS * N_SLOTS;
export const N_HANDSHAKE_SLOTS = 3;
export const HAND_SIZE = 8;
export const DEALT = 2 * HAND_SIZE; // deck positions 0..7 go to seat 0, 8..15 to seat 1
export const DECK_DRAWS = N_CARDS - DEALT;
export const MAX_STEPS = 400;
export const N_PLACE_TYPES = 2; // 0 play on my expedition, 1 discard
export const N_DRAW_SOURCES = 1 + N_COLOURS; // 0 deck, 1..5 the discard pile of colour 0..4
export const N_ACTIONS = HAND_SIZE * N_PLACE_TYPES * N_DRAW_SOURCES; // 96

export const PLAY = 0;
export const DISCARD = 1;
export const DECK = 0;

export const cardColour = (card: number): number => Math.floor(card / N_SLOTS);
export const cardSlot = (card: number): number => card % N_SLOTS;
export const isNumber = (card: number): boolean => cardSlot(card) >= N_HANDSHAKE_SLOTS;
/** Face value of a number card (slot 3 is the 2, slot 11 the 10); 0 for a handshake. */
export const cardRank = (card: number): number => (isNumber(card) ? cardSlot(card) - 1 : 0);

export interface Action {
  handSlot: number;
  placeType: number;
  drawSource: number;
}

export const encodeAction = ({ handSlot, placeType, drawSource }: Action): number =>
  (handSlot * N_PLACE_TYPES + placeType) * N_DRAW_SOURCES + drawSource;

export const decodeAction = (action: number): Action => ({
  handSlot: Math.floor(action / (N_PLACE_TYPES * N_DRAW_SOURCES)),
  placeType: Math.floor(action / N_DRAW_SOURCES) % N_PLACE_TYPES,
  drawSource: action % N_DRAW_SOURCES,
});
