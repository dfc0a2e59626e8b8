/**
 * One round of Lost Cities (SPEC §2, §4), mirroring lost_cities/game/engine.py field by field
 * (same loc codes, same expedition summaries) so that the observation is a direct
 * transcription and the parity fixture can compare states exactly.
 */
import {
  DEALT,
  DECK,
  DISCARD,
  HAND_SIZE,
  MAX_STEPS,
  N_ACTIONS,
  N_CARDS,
  N_COLOURS,
  N_SLOTS,
  PLAY,
  cardColour,
  cardSlot,
  decodeAction,
  isNumber,
} from './cards';
import { CONTRACT } from './contract';

// engine.py's codes, from the generated contract (contract.ts).
export const LOC_HAND = CONTRACT.engine.loc_hand; // 64 + seat: in the seat's hand, unknown to the other seat
export const LOC_KNOWN = CONTRACT.engine.loc_known; // 66 + seat: drawn from a discard pile, so known to the other seat
export const LOC_EXPEDITION = CONTRACT.engine.loc_expedition; // 68 + seat
export const LOC_PILE = CONTRACT.engine.loc_pile; // 70 (this client keeps piles as lists: every pile card has this code)

export type PerSeat<T> = [T, T];

export const MOVE_HISTORY = CONTRACT.engine.move_history; // 16: the round's latest moves a state keeps (8 of each seat)
export const NO_MOVE = CONTRACT.engine.no_move; // -1

export interface RoundState {
  deckOrder: number[]; // the 60 card ids in deck order
  loc: number[]; // card id -> deck position (0..59) or one of the LOC_* codes
  hands: PerSeat<number[]>; // sorted by card id
  piles: number[][]; // per colour, bottom first
  expTop: PerSeat<number[]>; // highest number slot on each expedition, 0 if none
  expSum: PerSeat<number[]>; // sum of number ranks
  expHandshakes: PerSeat<number[]>;
  expCount: PerSeat<number[]>;
  deckPtr: number; // deck position of the next card to draw (16..60)
  plies: number; // placements made this round
  recentActions: number[]; // the round's latest MOVE_HISTORY actions, newest first (-1: none yet)
  recentCards: number[]; // the cards those moves placed (the belief reads the opponent's: belief.ts)
  toMove: number;
  done: boolean;
}

export interface StepResult<S> {
  state: S;
  reward: PerSeat<number>;
  done: boolean;
}

const zeros = (): PerSeat<number[]> => [new Array(N_COLOURS).fill(0), new Array(N_COLOURS).fill(0)];

export function checkDeckOrder(deckOrder: readonly number[]): void {
  const sorted = [...deckOrder].sort((a, b) => a - b);
  if (sorted.length !== N_CARDS || sorted.some((card, i) => card !== i)) {
    throw new Error('a deck order must be a permutation of the card ids 0..59');
  }
}

export function resetFromOrder(deckOrder: readonly number[], firstPlayer = 0): RoundState {
  checkDeckOrder(deckOrder);
  const loc = new Array<number>(N_CARDS);
  deckOrder.forEach((card, position) => {
    loc[card] = position < HAND_SIZE ? LOC_HAND : position < DEALT ? LOC_HAND + 1 : position;
  });
  const sortedIds = (from: number) => deckOrder.slice(from, from + HAND_SIZE).sort((a, b) => a - b);
  return {
    deckOrder: [...deckOrder],
    loc,
    hands: [sortedIds(0), sortedIds(HAND_SIZE)],
    piles: Array.from({ length: N_COLOURS }, () => []),
    expTop: zeros(),
    expSum: zeros(),
    expHandshakes: zeros(),
    expCount: zeros(),
    deckPtr: DEALT,
    plies: 0,
    recentActions: new Array(MOVE_HISTORY).fill(NO_MOVE),
    recentCards: new Array(MOVE_HISTORY).fill(NO_MOVE),
    toMove: firstPlayer,
    done: false,
  };
}

/** Whether the card can go on the seat's expedition: a handshake only before any number. */
export function canPlay(state: RoundState, seat: number, card: number): boolean {
  const top = state.expTop[seat][cardColour(card)];
  return isNumber(card) ? cardSlot(card) > top : top === 0;
}

export function isLegal(state: RoundState, action: number): boolean {
  if (state.done || !Number.isInteger(action) || action < 0 || action >= N_ACTIONS) return false;
  const { handSlot, placeType, drawSource } = decodeAction(action);
  const card = state.hands[state.toMove][handSlot];
  if (placeType === PLAY && !canPlay(state, state.toMove, card)) return false;
  if (drawSource === DECK) return true;
  const pileColour = drawSource - 1;
  return state.piles[pileColour].length > 0 && !(placeType === DISCARD && pileColour === cardColour(card));
}

export function legalMask(state: RoundState): boolean[] {
  return Array.from({ length: N_ACTIONS }, (_, action) => isLegal(state, action));
}

/** One expedition's score: 0 if empty, else (sum - 20) * (1 + wagers), plus 20 for 8+ cards. */
export function expeditionScore(state: RoundState, seat: number, colour: number): number {
  const count = state.expCount[seat][colour];
  if (count === 0) return 0;
  return (state.expSum[seat][colour] - 20) * (1 + state.expHandshakes[seat][colour]) + (count >= 8 ? 20 : 0);
}

export function boardScore(state: RoundState): PerSeat<number> {
  const seatScore = (seat: number) =>
    Array.from({ length: N_COLOURS }, (_, colour) => expeditionScore(state, seat, colour)).reduce((a, b) => a + b);
  return [seatScore(0), seatScore(1)];
}

export function scoreMargin(state: RoundState): PerSeat<number> {
  const [a, b] = boardScore(state);
  return [a - b, b - a];
}

const clone = (state: RoundState): RoundState => structuredClone(state);

/** Apply `action` for the seat to move; illegal and post-end actions are no-ops with zero reward. */
export function step(state: RoundState, action: number): StepResult<RoundState> {
  if (!isLegal(state, action)) return { state, reward: [0, 0], done: state.done };
  const next = clone(state);
  const { handSlot, placeType, drawSource } = decodeAction(action);
  const player = state.toMove;
  const hand = next.hands[player];
  const [card] = hand.splice(handSlot, 1);
  const colour = cardColour(card);
  if (placeType === PLAY) {
    if (isNumber(card)) {
      next.expTop[player][colour] = cardSlot(card);
      next.expSum[player][colour] += cardSlot(card) - 1;
    } else {
      next.expHandshakes[player][colour] += 1;
    }
    next.expCount[player][colour] += 1;
    next.loc[card] = LOC_EXPEDITION + player;
  } else {
    next.piles[colour].push(card);
    next.loc[card] = LOC_PILE;
  }
  let drawn: number;
  if (drawSource === DECK) {
    drawn = next.deckOrder[next.deckPtr];
    next.deckPtr += 1;
    next.loc[drawn] = LOC_HAND + player;
  } else {
    drawn = next.piles[drawSource - 1].pop() as number;
    next.loc[drawn] = LOC_KNOWN + player;
  }
  hand.push(drawn);
  hand.sort((a, b) => a - b);
  next.plies += 1;
  next.recentActions = [action, ...state.recentActions.slice(0, MOVE_HISTORY - 1)];
  next.recentCards = [card, ...state.recentCards.slice(0, MOVE_HISTORY - 1)];
  next.toMove = 1 - player;
  const ended = next.deckPtr >= N_CARDS || next.plies >= MAX_STEPS;
  next.done = ended;
  return { state: next, reward: ended ? scoreMargin(next) : [0, 0], done: ended };
}

/** The cards on a seat's expedition of one colour, in the order they were played. */
export function expeditionCards(state: RoundState, seat: number, colour: number): number[] {
  const cards: number[] = [];
  for (let card = colour * N_SLOTS; card < (colour + 1) * N_SLOTS; card++) {
    // Handshakes (low slots) must precede numbers, and numbers increase: id order is play order.
    if (state.loc[card] === LOC_EXPEDITION + seat) cards.push(card);
  }
  return cards;
}

export const deckLeft = (state: RoundState): number => N_CARDS - state.deckPtr;
