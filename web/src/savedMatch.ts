/**
 * The match in progress, kept in the browser's storage after every change, so that a reload
 * (or a closed tab) resumes it exactly: the opponent, the deal, every move so far, the match's
 * own random numbers (a random bot's moves, a search's guesses at the hidden cards), the
 * hints setting and the plies hinted, and whether the round summary was still on screen.
 * Only the moves are stored; the position is replayed from them, so it cannot disagree.
 */
import type { Deal, RandomState } from './deal';
import { isLegal } from './engine';
import { type MatchState, type RoundSummary, matchResetFrom, matchStep, roundSummary } from './match';

const STORAGE_KEY = 'lost-cities-match-v1';
const VERSION = 1;

export interface SavedMatch {
  version: typeof VERSION;
  agentId: string;
  deal: Deal;
  random: RandomState; // the match's generator after the last move
  actions: number[];
  hintsOn: boolean;
  hintedPlies: number[];
  roundSummaryOpen: boolean; // the last move ended a round and its summary was not yet dismissed
  startedAt: string;
}

export type MatchStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export function saveMatch(storage: MatchStorage, saved: SavedMatch): void {
  storage.setItem(STORAGE_KEY, JSON.stringify(saved));
}

export function clearSavedMatch(storage: MatchStorage): void {
  storage.removeItem(STORAGE_KEY);
}

const wholeNumbers = (xs: unknown): xs is number[] => Array.isArray(xs) && xs.every((x) => Number.isInteger(x));

/** The saved match, or null if there is none or it is not one this page wrote (a stale or damaged entry is dropped). */
export function loadSavedMatch(storage: MatchStorage): SavedMatch | null {
  let saved: Partial<SavedMatch> | null;
  try {
    saved = JSON.parse(storage.getItem(STORAGE_KEY) ?? 'null');
  } catch {
    saved = null;
  }
  const deal = saved?.deal;
  const valid =
    saved?.version === VERSION &&
    typeof saved.agentId === 'string' &&
    Array.isArray(deal?.deckOrders) &&
    deal.deckOrders.every(wholeNumbers) &&
    wholeNumbers(deal.coins) &&
    (deal.humanSeat === 0 || deal.humanSeat === 1) &&
    Number.isInteger(saved.random?.a) &&
    wholeNumbers(saved.actions) &&
    typeof saved.hintsOn === 'boolean' &&
    wholeNumbers(saved.hintedPlies) &&
    typeof saved.roundSummaryOpen === 'boolean' &&
    typeof saved.startedAt === 'string';
  if (!valid) {
    if (saved !== null) clearSavedMatch(storage);
    return null;
  }
  return saved as SavedMatch;
}

/** The match after `actions` from the deal: the position before each move, the position now, and the finished rounds' summaries. */
export function replayMatch(deal: Deal, actions: readonly number[]): { positions: MatchState[]; ms: MatchState; summaries: RoundSummary[] } {
  let ms = matchResetFrom(deal.deckOrders, deal.coins);
  const positions: MatchState[] = [];
  const summaries: RoundSummary[] = [];
  for (const action of actions) {
    if (ms.done || !isLegal(ms.round, action)) throw new Error(`the saved match's move ${positions.length + 1} is not legal`);
    positions.push(ms);
    const { state, finishedRound } = matchStep(ms, action);
    if (finishedRound) summaries.push(roundSummary(ms.roundIdx, finishedRound, state));
    ms = state;
  }
  return { positions, ms, summaries };
}
