/**
 * Scripted opponents, ports of lost_cities/bots: they move without a network, for the ladder's
 * first levels. `heuristic_expert` is the legal action of highest expert score (bots/expert.py,
 * scored by actionFeatures.ts `expertValues` from the mover's own observation v2), lowest id on
 * ties as bots/context.py `best_legal`; `heuristic_cautious` the same with heuristic.py's
 * CAUTIOUS style (no deck clock or match context); `random` is a uniformly random legal action
 * (bots/random_policy.py). A Python fixture (tests/fixtures/bots.json, tools/bot_fixture.py)
 * holds the two scripted bots' moves to the Python bots'.
 */
import { CAUTIOUS, actionValues, expertValues, matchContext, viewState } from './actionFeatures';
import type { Random } from './deal';
import { legalMask } from './engine';
import type { MatchState } from './match';
import { matchObservation } from './matchObservation';

export const BOTS = ['random', 'heuristic_cautious', 'heuristic_expert'] as const;
export type BotName = (typeof BOTS)[number];

/** The legal action of highest value, lowest id on ties (bots/context.py `best_legal`). */
export function bestLegal(values: ArrayLike<number>, mask: readonly boolean[]): number {
  let best = -1;
  for (let action = 0; action < mask.length; action++) if (mask[action] && (best < 0 || values[action] > values[best])) best = action;
  if (best < 0) throw new Error('no legal action');
  return best;
}

/** `heuristic_expert`'s move for the seat to move, from what that seat sees. */
export function expertMove(ms: MatchState): number {
  const obs = matchObservation(ms, ms.round.toMove);
  const [roundIdx, lead] = matchContext(obs);
  return bestLegal(expertValues(viewState(obs), roundIdx, lead), legalMask(ms.round));
}

/** `heuristic_cautious`'s move for the seat to move (bots/heuristic.py with the CAUTIOUS style: no deck clock, no match). */
export function cautiousMove(ms: MatchState): number {
  const obs = matchObservation(ms, ms.round.toMove);
  return bestLegal(actionValues(viewState(obs), 0, 1, CAUTIOUS), legalMask(ms.round));
}

/** A uniformly random legal move for the seat to move. */
export function randomMove(ms: MatchState, random: Random): number {
  const legal = legalMask(ms.round).flatMap((ok, action) => (ok ? [action] : []));
  return legal[Math.min(legal.length - 1, Math.floor(random() * legal.length))];
}

export function botMove(name: BotName, ms: MatchState, random: Random): number {
  if (name === 'random') return randomMove(ms, random);
  return name === 'heuristic_cautious' ? cautiousMove(ms) : expertMove(ms);
}

export const isBotName = (name: unknown): name is BotName => typeof name === 'string' && (BOTS as readonly string[]).includes(name);
