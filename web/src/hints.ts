/**
 * Hints: the policy's probabilities for the player's own legal moves (the same network,
 * run from the player's seat), summed per hand card, per placement of the chosen card and
 * per draw source of the chosen placement, for the badges on the cards and buttons.
 */
import { N_ACTIONS, N_DRAW_SOURCES, N_PLACE_TYPES, decodeAction, encodeAction } from './cards';
import { HAND_SIZE } from './cards';

/** Probability mass of the legal actions matching the given hand slot / placement (null: any). */
export function hintMass(probs: ArrayLike<number>, mask: readonly boolean[], slot: number | null, place: number | null = null): number {
  let total = 0;
  for (let action = 0; action < N_ACTIONS; action++) {
    if (!mask[action]) continue;
    const a = decodeAction(action);
    if ((slot === null || a.handSlot === slot) && (place === null || a.placeType === place)) total += probs[action];
  }
  return total;
}

/** Per hand slot, the probability that the policy places that card (0 for slots with no legal move). */
export const slotHints = (probs: ArrayLike<number>, mask: readonly boolean[]): number[] =>
  Array.from({ length: HAND_SIZE }, (_, slot) => hintMass(probs, mask, slot));

/** Per placement (play, discard) of `slot`: the probability of that card placed that way. */
export const placeHints = (probs: ArrayLike<number>, mask: readonly boolean[], slot: number): number[] =>
  Array.from({ length: N_PLACE_TYPES }, (_, place) => hintMass(probs, mask, slot, place));

/** Per draw source after placing `slot` as `place`: the probability of that whole move (0 if illegal). */
export const drawHints = (probs: ArrayLike<number>, mask: readonly boolean[], slot: number, place: number): number[] =>
  Array.from({ length: N_DRAW_SOURCES }, (_, drawSource) => {
    const action = encodeAction({ handSlot: slot, placeType: place, drawSource });
    return mask[action] ? probs[action] : 0;
  });

/** "62%", "<1%", or "0%" for a move the policy never makes. */
export function hintPercent(p: number): string {
  if (!(p > 0)) return '0%';
  if (p < 0.005) return '<1%';
  return `${Math.round(p * 100)}%`;
}
