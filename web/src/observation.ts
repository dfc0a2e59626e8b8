/**
 * Observation v1 (SPEC §4), a transcription of lost_cities/obs/v1.py, bit-exact.
 *
 * XLA compiles `x / constant` as `x * float32(1 / constant)`, which can differ from the
 * true quotient in the last bit; `scaled` reproduces that product. Both factors are
 * float32, so their double product is exact and one rounding gives XLA's result.
 */
import { DECK_DRAWS, HAND_SIZE, MAX_STEPS, N_CARDS } from './cards';
import { LOC_EXPEDITION, LOC_HAND, LOC_KNOWN, LOC_PILE, type RoundState, boardScore } from './engine';

export const OBS_V1_VERSION = 'v1';
export const N_CHANNELS = 7;
export const N_CARD_FEATURES = N_CARDS * N_CHANNELS;
export const OBS_V1_DIM = N_CARD_FEATURES + 34;
export const SCORE_SCALE = 780;

export const scaled = (x: number, divisor: number): number => Math.fround(x * Math.fround(1 / divisor));

/** Each card's channel (0..6) from `player`'s point of view. */
export function cardChannels(state: RoundState, player: number): number[] {
  const opponent = 1 - player;
  const tops = new Set(state.piles.filter((pile) => pile.length > 0).map((pile) => pile[pile.length - 1]));
  return state.loc.map((loc, card) => {
    if (loc === LOC_HAND + player || loc === LOC_KNOWN + player) return 0;
    if (loc === LOC_EXPEDITION + player) return 1;
    if (loc === LOC_EXPEDITION + opponent) return 2;
    if (loc === LOC_PILE) return tops.has(card) ? 3 : 4;
    if (loc === LOC_KNOWN + opponent) return 5;
    return 6;
  });
}

export function expeditionFeatures(state: RoundState, seat: number): number[] {
  const highest = state.expTop[seat].map((top) => scaled(top > 0 ? top - 1 : 0, 10));
  return [
    ...highest,
    ...state.expHandshakes[seat].map((h) => scaled(h, 3)),
    ...state.expCount[seat].map((n) => scaled(n, 12)),
  ];
}

export function observationV1(state: RoundState, player: number): Float32Array {
  const obs = new Float32Array(OBS_V1_DIM);
  cardChannels(state, player).forEach((channel, card) => {
    obs[card * N_CHANNELS + channel] = 1;
  });
  const opponent = 1 - player;
  const unknownOpponentCards = state.loc.filter((loc) => loc === LOC_HAND + opponent).length;
  const boards = boardScore(state);
  const scalars = [
    scaled(N_CARDS - state.deckPtr, DECK_DRAWS),
    scaled(unknownOpponentCards, HAND_SIZE),
    scaled(state.plies, MAX_STEPS),
    ...expeditionFeatures(state, player),
    ...expeditionFeatures(state, opponent),
    scaled(boards[player] - boards[opponent], SCORE_SCALE),
  ];
  obs.set(scalars, N_CARD_FEATURES);
  return obs;
}
