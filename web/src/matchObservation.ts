/**
 * Observation v2 (512 floats), a transcription of lost_cities/obs/v2.py; the
 * layout table lives there, and its blocks' offsets and the scales come from the generated
 * contract (contract.ts). Divisions by constants use `scaled` (XLA's multiply by the
 * float32 reciprocal); every other value is an exact small integer or a 0/1 flag.
 */
import { N_CARDS, N_COLOURS, N_SLOTS, cardRank } from './cards';
import { CONTRACT, layoutOffsets } from './contract';
import { LOC_HAND, LOC_KNOWN, LOC_PILE, boardScore } from './engine';
import { type MatchState, N_ROUNDS } from './match';
import { OBS_V1_DIM, observationV1, scaled } from './observation';

const V2 = CONTRACT.observations.v2;
export const OBS_V2_VERSION = 'v2';
export const OBS_V2_DIM = V2.dim; // 512
const { margin: MARGIN_SCALE, board_margin: BOARD_SCALE, colour_ranks: COLOUR_RANK_TOTAL, rounds_left: ROUNDS_LEFT_SCALE } = V2.scales;
// A margin falls in bucket i when it exceeds exactly i of these.
const MARGIN_THRESHOLDS = V2.margin_thresholds;
const N_BUCKETS = MARGIN_THRESHOLDS.length + 1;
const N_REACHABLE = V2.reachable_places * N_COLOURS; // per seat: 3 places, place-major
/** Where each block of observation v2 lies (the contract's layout, lost_cities/obs/v2.py OBS_V2_LAYOUT). */
export const V2_AT = layoutOffsets('observation v2', V2.blocks, {
  v1: OBS_V1_DIM,
  carry_margin: 1,
  carry_bucket: N_BUCKETS,
  round: N_ROUNDS,
  rounds_left: 1,
  my_turn: 1,
  i_started: 1,
  deck_clock: 1,
  board_margin: 1,
  projected_margin: 1,
  projected_bucket: N_BUCKETS,
  my_reachable: N_REACHABLE,
  their_reachable: N_REACHABLE,
});

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
  obs.set(observationV1(state, player), V2_AT.v1);
  obs[V2_AT.carry_margin] = scaled(carryMargin, MARGIN_SCALE);
  obs.set(marginBuckets(carryMargin), V2_AT.carry_bucket);
  if (ms.roundIdx >= 0 && ms.roundIdx < N_ROUNDS) obs[V2_AT.round + ms.roundIdx] = 1;
  obs[V2_AT.rounds_left] = scaled(N_ROUNDS - 1 - ms.roundIdx, ROUNDS_LEFT_SCALE);
  obs[V2_AT.my_turn] = myTurn ? 1 : 0;
  obs[V2_AT.i_started] = ms.starter === player ? 1 : 0;
  obs[V2_AT.deck_clock] = drawsLast ? 1 : 0;
  obs[V2_AT.board_margin] = scaled(boardMargin, BOARD_SCALE);
  obs[V2_AT.projected_margin] = scaled(projected, MARGIN_SCALE);
  obs.set(marginBuckets(projected), V2_AT.projected_bucket);
  obs.set(mine.map((points) => scaled(points, COLOUR_RANK_TOTAL)), V2_AT.my_reachable);
  obs.set(theirs.map((points) => scaled(points, COLOUR_RANK_TOTAL)), V2_AT.their_reachable);
  return obs;
}
