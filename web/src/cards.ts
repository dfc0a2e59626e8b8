/** Card and action encodings (SPEC §4), lost_cities/game/cards.py's: read from the generated contract (contract.ts). */
import { CONTRACT } from './contract';

const { cards, actions } = CONTRACT;
export const N_COLOURS = cards.n_colours; // 5
export const N_SLOTS = cards.n_slots; // 12 per colour: slots 0..2 handshakes, slots 3..11 numbers 2..10
export const N_CARDS = cards.n_cards; // 60
export const N_HANDSHAKE_SLOTS = cards.n_handshake_slots; // 3
export const HAND_SIZE = cards.hand_size; // 8
export const DEALT = cards.dealt; // 16: deck positions 0..7 go to seat 0, 8..15 to seat 1
export const DECK_DRAWS = cards.deck_draws; // 44
export const MAX_STEPS = cards.max_steps; // 400
export const N_PLACE_TYPES = actions.n_place_types; // 2: 0 play on my expedition, 1 discard
export const N_DRAW_SOURCES = actions.n_draw_sources; // 6: 0 deck, 1..5 the discard pile of colour 0..4
export const N_ACTIONS = actions.n_actions; // 96: (hand slot * N_PLACE_TYPES + place type) * N_DRAW_SOURCES + draw source

export const PLAY = actions.play;
export const DISCARD = actions.discard;
export const DECK = actions.deck;

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
