/**
 * The determinized search on top of the page's net, a port of lost_cities/search/agent.py
 * with the preset `belief`'s knobs (conf/search/belief.yaml, read from the generated contract:
 * contract.ts): the strongest player the Python package has measured. A Python fixture
 * (tests/fixtures/search.json, tools/search_fixture.py) holds its decisions to the Python
 * search's on the same worlds.
 *
 * Per decision, for the seat to move:
 * 1. the net's move b and its logits give the candidates: b and the next best
 *    `candidates - 1` legal actions;
 * 2. `worlds` worlds are dealt from the mover's information set (belief.ts: the opponent's
 *    unknown hand by the learned belief, or uniformly without one);
 * 3. every candidate is scored in every world by playing the round to its end with the
 *    net for both seats (greedy), in match terms (the carried margin plus the round's board
 *    margin); all candidates share the worlds, so their differences are paired;
 * 4. gate: the candidate of best mean paired gain over b replaces b only when that gain
 *    exceeds `gatePoints` points and `gateZ` standard errors.
 *
 * Every rollout ply of every live lane goes to the net in one batched run, as the Python
 * search does under vmap (one decision of the preset costs about 0.45 s in node on this
 * project's CPU: experiments/search/js_net_search_bench.ts).
 */
import type { Random } from './deal';
import { N_ACTIONS } from './cards';
import { CONTRACT } from './contract';
import { type RoundState, boardScore, legalMask, step } from './engine';
import type { MatchState } from './match';
import { argmaxLegal } from './policyContract';
import { believedRound, uniformRound } from './belief';

export interface SearchKnobs {
  worlds: number;
  candidates: number;
  gatePoints: number;
  gateZ: number;
}

const PRESET = CONTRACT.search.knobs;
/** conf/search/belief.yaml (32 worlds x 4 candidates, gate 1 point and 1 standard error), from the contract. */
export const BELIEF_PRESET: SearchKnobs = {
  worlds: PRESET.worlds,
  candidates: PRESET.candidates,
  gatePoints: PRESET.gate_points,
  gateZ: PRESET.gate_z,
};

/** The Python knobs this port does not implement, at the values it plays as (a search to the round's
 * end, by the net for both seats, scored in raw match points, gated once on the same worlds);
 * `belief` is the page's own (agents.json names its model) and `inference_moves` idle without a pool. */
export const PORT_ASSUMES: Record<string, unknown> = {
  depth: null,
  leaf: null,
  rollout: null,
  opponent_rollout: null,
  next_move: null,
  prior_points: 0,
  confirm_worlds: 0,
  start_value: 0,
  scales: [0, 0, 0],
  proposer: null,
  inference_pool: 1,
  endgame: null,
};
const IMPLEMENTED = ['worlds', 'candidates', 'gate_points', 'gate_z', 'belief', 'inference_moves'];

/** The knobs of a Python preset (the contract's `search.knobs`) this port would not play as set: [] if none. */
export function unsupportedKnobs(knobs: Record<string, unknown>): string[] {
  return Object.entries(knobs).flatMap(([name, value]) => {
    if (IMPLEMENTED.includes(name)) return [];
    if (!(name in PORT_ASSUMES)) return [`${name} (a knob this port does not know)`];
    const assumed = PORT_ASSUMES[name];
    return JSON.stringify(value) === JSON.stringify(assumed) ? [] : [`${name}=${JSON.stringify(value)} (this port plays ${JSON.stringify(assumed)})`];
  });
}

/** The net's masked logits (illegal actions far below any legal one) for each state's seat to move. */
export type NetLogits = (states: MatchState[]) => Promise<Float32Array[]>;
/** The belief's logits (float32[60]) for the seat to move; null: uniform worlds. */
export type BeliefLogits = ((ms: MatchState) => Promise<Float32Array>) | null;

export interface SearchDecision {
  action: number;
  /** The net's own move (candidates[0]). */
  base: number;
  candidates: number[];
  /** Per candidate, its mean paired gain over the base move in points (0 for the base). */
  gains: number[];
  /** The index of the chosen candidate (0: the net's move kept). */
  chosen: number;
}

/** The base move first, then the best other legal actions by `scores` (ties by action id), `k` in all or fewer. */
export function topCandidates(scores: ArrayLike<number>, mask: readonly boolean[], base: number, k: number): number[] {
  const rest = Array.from({ length: N_ACTIONS }, (_, action) => action).filter((action) => mask[action] && action !== base);
  rest.sort((a, b) => scores[b] - scores[a] || a - b);
  return [base, ...rest.slice(0, k - 1)];
}

/** The mover's match margin if the round ended as `round` stands: carried margin plus board margin. */
export function matchPoints(ms: MatchState, round: RoundState, player: number): number {
  const board = boardScore(round);
  return ms.carry[player] - ms.carry[1 - player] + board[player] - board[1 - player];
}

/** rounds[w][k]: the round's end after candidate k in world w, both seats then played by the net (greedy). */
export async function rolloutRounds(ms: MatchState, worlds: RoundState[], candidates: number[], net: NetLogits): Promise<RoundState[][]> {
  const lanes = worlds.flatMap((world) => candidates.map((action) => step(world, action).state));
  for (let live = lanes.flatMap((r, i) => (r.done ? [] : [i])); live.length > 0; live = live.filter((i) => !lanes[i].done)) {
    const logits = await net(live.map((i) => ({ ...ms, round: lanes[i] })));
    live.forEach((lane, j) => {
      lanes[lane] = step(lanes[lane], argmaxLegal(logits[j], legalMask(lanes[lane]))).state;
    });
  }
  return worlds.map((_, w) => lanes.slice(w * candidates.length, (w + 1) * candidates.length));
}

/** values[w][k]: the mover's match points after candidate k in world w, both seats then played by the net to the round's end. */
export async function rolloutValues(ms: MatchState, worlds: RoundState[], candidates: number[], net: NetLogits): Promise<number[][]> {
  const player = ms.round.toMove;
  return (await rolloutRounds(ms, worlds, candidates, net)).map((row) => row.map((round) => matchPoints(ms, round, player)));
}

/** The chosen candidate's index and every candidate's mean paired gain (lost_cities/search/agent.py select). */
export function select(values: number[][], knobs: SearchKnobs): { chosen: number; gains: number[] } {
  const n = values.length;
  const gains = values[0].map((_, k) => values.reduce((sum, row) => sum + row[k] - row[0], 0) / n);
  let best = 0;
  gains.forEach((gain, k) => {
    if (gain > gains[best]) best = k; // the base move (0) wins a tie, then the lower index
  });
  if (best === 0 || n < 2) return { chosen: 0, gains };
  const paired = values.map((row) => row[best] - row[0]);
  const variance = paired.reduce((sum, g) => sum + (g - gains[best]) ** 2, 0) / (n - 1);
  const clears = gains[best] > knobs.gatePoints && gains[best] > (knobs.gateZ * Math.sqrt(variance)) / Math.sqrt(n);
  return { chosen: clears ? best : 0, gains };
}

/**
 * The search's move for the seat to move in `ms` (see the module doc). `worlds` (tests only: the
 * page deals its own) are the worlds to score the candidates in, in place of `knobs.worlds` dealt
 * from `random` by the belief: e.g. the worlds the Python search sampled (tests/search.test.ts).
 */
export async function searchDecision(
  ms: MatchState,
  net: NetLogits,
  belief: BeliefLogits,
  knobs: SearchKnobs,
  random: Random,
  worlds?: readonly RoundState[],
): Promise<SearchDecision> {
  const mask = legalMask(ms.round);
  const [scores] = await net([ms]);
  const base = argmaxLegal(scores, mask);
  const candidates = topCandidates(scores, mask, base, knobs.candidates);
  if (candidates.length === 1) return { action: base, base, candidates, gains: [0], chosen: 0 };
  if (worlds !== undefined && worlds.length === 0) throw new Error('searchDecision: no worlds given');
  const dealt = worlds ?? (await dealWorlds(ms, belief, knobs.worlds, random));
  const { chosen, gains } = select(await rolloutValues(ms, [...dealt], candidates, net), knobs);
  return { action: candidates[chosen], base, candidates, gains, chosen };
}

/** `count` worlds for the seat to move: the opponent's unknown hand by the belief, or uniformly without one (belief.ts). */
export async function dealWorlds(ms: MatchState, belief: BeliefLogits, count: number, random: Random): Promise<RoundState[]> {
  const beliefLogits = belief === null ? null : await belief(ms);
  return Array.from({ length: count }, () =>
    beliefLogits === null ? uniformRound(ms.round, random) : believedRound(ms.round, beliefLogits, random),
  );
}
