/**
 * Observation v2 (512 floats), a transcription of lost_cities/obs/v2.py; the
 * layout table lives there. Divisions by constants use `scaled` (XLA's multiply by the
 * float32 reciprocal); every other value is an exact small integer or a 0/1 flag.
 */
import { N_CARDS, N_COLOURS, N_SLOTS, cardRank } from './cards';
import { LOC_HAND, LOC_KNOWN, LOC_PILE, boardScore } from './engine';
import { type MatchState, N_ROUNDS } from './match';
import { OBS_V1_DIM, observationV1, scaled } from './observation';

export const OBS_V2_VERSION = 'v2';
export const OBS_V2_DIM = 512;
const MARGIN_SCALE = 75;
const BOARD_SCALE = 50;
const COLOUR_RANK_TOTAL = 54; // 2 + 3 + ... + 10
// A margin falls in bucket i when it exceeds exactly i of these.
const MARGIN_THRESHOLDS = [-50, -25, -10, -0.5, 0.5, 9.5, 24.5, 49.5];

export function marginBuckets(margin: number): number[] {
  const bucket = MARGIN_THRESHOLDS.filter((threshold) => margin > threshold).length;
  return Array.from({ length: MARGIN_THRESHOLDS.length + 1 }, (_, i) => (i === bucket ? 1 : 0));
}

/** Per place (a predicate on loc codes), per colour: the ranks of numbers above `top[colour]`. */
function reachablePoints(loc: number[], top: number[], places: ((code: number) => boolean)[]): number[] {
  return places.flatMap((inPlace) =>
    Array.from({ length: N_COLOURS }, (_, colour) => {
      let total = 0;
      for (let slot = top[colour] + 1; slot < N_SLOTS; slot++) {
        const card = colour * N_SLOTS + slot;
        if (inPlace(loc[card])) total += cardRank(card);
      }
      return total;
    }),
  );
}

export function matchObservation(ms: MatchState, player: number): Float32Array {
  const state = ms.round;
  const opponent = 1 - player;
  const carryMargin = ms.carry[player] - ms.carry[opponent];
  const boards = boardScore(state);
  const boardMargin = boards[player] - boards[opponent];
  const projected = carryMargin + boardMargin;
  const myTurn = state.toMove === player;
  const deckLeftOdd = (N_CARDS - state.deckPtr) % 2 === 1;
  const drawsLast = deckLeftOdd === myTurn && !state.done;

  const inPile = (code: number) => code === LOC_PILE;
  const unseen = (code: number) => code < LOC_HAND || code === LOC_HAND + opponent;
  const inMyHand = (code: number) => code === LOC_HAND + player || code === LOC_KNOWN + player;
  const knownInTheirHand = (code: number) => code === LOC_KNOWN + opponent;
  const mine = reachablePoints(state.loc, state.expTop[player], [inMyHand, inPile, unseen]);
  const theirs = reachablePoints(state.loc, state.expTop[opponent], [knownInTheirHand, inPile, unseen]);

  const obs = new Float32Array(OBS_V2_DIM);
  obs.set(observationV1(state, player));
  obs.set(
    [
      scaled(carryMargin, MARGIN_SCALE),
      ...marginBuckets(carryMargin),
      ...Array.from({ length: N_ROUNDS }, (_, r) => (r === ms.roundIdx ? 1 : 0)),
      (N_ROUNDS - 1 - ms.roundIdx) / (N_ROUNDS - 1),
      myTurn ? 1 : 0,
      ms.starter === player ? 1 : 0,
      drawsLast ? 1 : 0,
      scaled(boardMargin, BOARD_SCALE),
      scaled(projected, MARGIN_SCALE),
      ...marginBuckets(projected),
      ...mine.map((points) => scaled(points, COLOUR_RANK_TOTAL)),
      ...theirs.map((points) => scaled(points, COLOUR_RANK_TOTAL)),
    ],
    OBS_V1_DIM,
  );
  return obs;
}
