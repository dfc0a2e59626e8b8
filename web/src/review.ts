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
 *
 * The search's choice is called better only when its gain clears its standard error; and a
 * better move's gain is traced, in the same rollouts, to the expedition it changes most
 * (yours or the opponent's), when that change too clears its standard error: the reason the
 * review gives (reviewWords.ts words it).
 */
import type { Random } from './deal';
import { N_COLOURS } from './cards';
import { expeditionScore, legalMask } from './engine';
import type { GameRecord } from './gameLog';
import { type MatchState, matchResetFrom, matchStep } from './match';
import { argmaxLegal } from './policyContract';
import type { RoundState } from './engine';
import { BELIEF_PRESET, type BeliefLogits, type NetLogits, type SearchKnobs, dealWorlds, matchPoints, rolloutRounds, select, topCandidates } from './search';

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
  /** Where the search's choice gains over the player's move, when the rollouts show it clearly (else null). */
  reason: Reason | null;
}

/** The expedition whose score at the round's end the search's choice changes most in the player's favour
 * (more for `you`, less for the `opponent`), over the same worlds: the mean change and its standard error. */
export interface Reason {
  seat: 'you' | 'opponent';
  colour: number;
  points: number;
  se: number;
}

/** Whether the search's choice is better than the player's move: a gain above zero by more than its standard error,
 * at the tenth of a point the page shows them (so that "+3.0 ± 3.0" is never called better). */
export function clearlyBetter(d: Pick<DecisionReview, 'forced' | 'gain' | 'se'>): boolean {
  const [gain, se] = [Math.round(d.gain * 10), Math.round(d.se * 10)];
  return !d.forced && gain > 0 && gain > se;
}

/** The reason for a gain: per world the round's end after the search's choice and after the player's move, for `player`.
 * The board margin is the sum of the ten expeditions' scores (the opponent's negated), so each expedition's paired
 * change is a part of the gain; the largest part that clears its standard error is the reason, or null. */
export function reasonOf(pairs: [RoundState, RoundState][], player: number): Reason | null {
  let reason: Reason | null = null;
  for (const [seat, sign] of [['you', 1], ['opponent', -1]] as const) {
    const scored = seat === 'you' ? player : 1 - player;
    for (let colour = 0; colour < N_COLOURS; colour++) {
      const { mean, se } = meanAndError(pairs.map(([better, mine]) => sign * (expeditionScore(better, scored, colour) - expeditionScore(mine, scored, colour))));
      if (mean > 0 && mean > se && (!reason || mean > reason.points)) reason = { seat, colour, points: mean, se };
    }
  }
  return reason;
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
  if (candidates.length === 1) return { played, best: played, candidates, gain: 0, se: 0, worlds: 0, forced: true, reason: null };
  const lanes = candidates.includes(played) ? candidates : [...candidates, played];
  const dealt = worlds ?? (await dealWorlds(ms, belief, knobs.worlds, random));
  const rounds = await rolloutRounds(ms, [...dealt], lanes, net);
  const player = ms.round.toMove;
  const values = rounds.map((row) => row.map((round) => matchPoints(ms, round, player)));
  const { chosen } = select(
    values.map((row) => row.slice(0, candidates.length)),
    knobs,
  );
  const mine = lanes.indexOf(played);
  const { mean, se } = meanAndError(values.map((row) => row[chosen] - row[mine]));
  const decision = { played, best: candidates[chosen], candidates, gain: mean, se, worlds: values.length, forced: false };
  const reason = clearlyBetter(decision) ? reasonOf(rounds.map((row) => [row[chosen], row[mine]]), player) : null;
  return { ...decision, reason };
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

/** The decisions where the search's choice is clearly better, costliest first (largest gain), then by ply. */
export const costliestFirst = (reviews: DecisionReview[]): DecisionReview[] =>
  reviews.filter(clearlyBetter).sort((a, b) => b.gain - a.gain || a.ply - b.ply);
