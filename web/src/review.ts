/**
 * Match review: for each of the player's decisions in a finished match, the search's choice
 * (the strongest player, search.ts) and an estimate of the points it would have gained over
 * the player's move. Everything is computed from the player's information set at that
 * decision: the worlds are dealt by belief.ts from what the player had seen (the opponent's
 * unknown hand and the deck are re-dealt; the true ones are never read), so the review knows
 * no more than the player could have.
 *
 * Per decision: the net's candidates as the search takes them (its move and the next best),
 * plus the player's move if it is not among them, are each played to the round's end in the
 * same worlds by the net for both seats (match points: the carried margin plus the round's
 * board margin). The search's choice is the gated one of search.ts `select` over its own
 * candidates; the gain is the mean over worlds of its value minus the player's move's (paired:
 * the same worlds), with its standard error over the worlds (a sample of them). A Python
 * fixture (tests/fixtures/review.json, tools/review_fixture.py) holds these numbers to the
 * Python search's on the same worlds.
 */
import type { Random } from './deal';
import { legalMask } from './engine';
import type { GameRecord } from './gameLog';
import { type MatchState, matchResetFrom, matchStep } from './match';
import { argmaxLegal } from './policyContract';
import type { RoundState } from './engine';
import { BELIEF_PRESET, type BeliefLogits, type NetLogits, type SearchKnobs, dealWorlds, rolloutValues, select, topCandidates } from './search';

/** The review's search: the page's preset (its candidates and gate) on 16 worlds a decision, half the
 * preset's 32, so that a whole match's review (about 70 decisions, up to 5 moves each) takes well under a
 * minute on a 2-core laptop; the standard error shown says what the fewer worlds cost. */
export const REVIEW_KNOBS: SearchKnobs = { ...BELIEF_PRESET, worlds: 16 };

export interface DecisionReview {
  /** Index into the match's actions. */
  ply: number;
  roundIdx: number;
  /** The player's move and the search's choice (action ids). */
  played: number;
  best: number;
  /** The search's candidates (the net's move first) and the player's move's index among the lanes scored. */
  candidates: number[];
  /** Mean points the search's choice gains over the player's move (0 when they agree), and its standard error over the worlds. */
  gain: number;
  se: number;
  worlds: number;
  /** Only one legal move: nothing to review. */
  forced: boolean;
}

/** The review of one decision: `played` by the seat to move in `ms` (see the module doc). `worlds`
 * (tests only) replaces the worlds dealt from `random`, e.g. the worlds the Python search sampled. */
export async function reviewDecision(
  ms: MatchState,
  played: number,
  net: NetLogits,
  belief: BeliefLogits,
  knobs: SearchKnobs,
  random: Random,
  worlds?: readonly RoundState[],
): Promise<Omit<DecisionReview, 'ply' | 'roundIdx'>> {
  const mask = legalMask(ms.round);
  if (!mask[played]) throw new Error(`review: action ${played} is not legal in this position`);
  const [scores] = await net([ms]);
  const base = argmaxLegal(scores, mask);
  const candidates = topCandidates(scores, mask, base, knobs.candidates);
  if (candidates.length === 1) return { played, best: played, candidates, gain: 0, se: 0, worlds: 0, forced: true };
  const lanes = candidates.includes(played) ? candidates : [...candidates, played];
  const dealt = worlds ?? (await dealWorlds(ms, belief, knobs.worlds, random));
  const values = await rolloutValues(ms, [...dealt], lanes, net);
  const { chosen } = select(
    values.map((row) => row.slice(0, candidates.length)),
    knobs,
  );
  const mine = lanes.indexOf(played);
  const { mean, se } = meanAndError(values.map((row) => row[chosen] - row[mine]));
  return { played, best: candidates[chosen], candidates, gain: mean, se, worlds: values.length, forced: false };
}

/** The mean of `xs` and its standard error (sample standard deviation over sqrt(n); 0 for one value). */
export function meanAndError(xs: number[]): { mean: number; se: number } {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, se: 0 };
  const variance = xs.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1);
  return { mean, se: Math.sqrt(variance / n) };
}

/** The positions of a logged match before each of its plies, and the seat that moved at each. */
export function replayPositions(game: Pick<GameRecord, 'deck_orders' | 'coins' | 'actions'>): MatchState[] {
  let ms = matchResetFrom(game.deck_orders, game.coins);
  return game.actions.map((action, ply) => {
    const before = ms;
    if (ms.done || !legalMask(ms.round)[action]) throw new Error(`review: the logged action ${action} at ply ${ply} is not legal`);
    ms = matchStep(ms, action).state;
    return before;
  });
}

/** The plies at which `seat` moved. */
export const pliesOf = (positions: MatchState[], seat: number): number[] =>
  positions.flatMap((ms, ply) => (ms.round.toMove === seat ? [ply] : []));

/** Decisions costliest first (largest gain for the search's choice), then by ply. */
export const costliestFirst = (reviews: DecisionReview[]): DecisionReview[] =>
  [...reviews].sort((a, b) => b.gain - a.gain || a.ply - b.ply);
