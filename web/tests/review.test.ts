/**
 * The match review (src/review.ts) against the Python search (tests/fixtures/review.json,
 * `python tools/review_fixture.py`): on the worlds the Python search sampled from the mover's
 * information set, the page's rollouts give Python's values world by world, and the review
 * names the same choice and the same gain and standard error (identical worlds: equal up to
 * float rounding, as tests/search.test.ts holds the search). Also: a logged match replays to
 * the positions the review steps through, each decision is the seat's whose turn Python
 * recorded, the review refuses an illegal move, only clearly better moves are listed as
 * costly, and a gain is traced to the expedition it comes from.
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../src/deal';
import { type MatchState, matchResetFrom, matchStep } from '../src/match';
import { netLogits } from '../src/policy';
import type { Manifest } from '../src/policyContract';
import { type DecisionReview, clearlyBetter, costliestFirst, meanAndError, pliesOf, reasonOf, replayPositions, reviewDecision } from '../src/review';
import { BELIEF_PRESET, type NetLogits, rolloutValues } from '../src/search';
import type { RoundState } from '../src/engine';
import { type HiddenWorld, hiddenPermuted, worldOf } from './fixtureWorlds';

interface ReviewPosition {
  ply: number;
  round_idx: number;
  to_move: number;
  played_kind: string;
  candidates: number[];
  played: number;
  values: number[][];
  chosen: number;
  best: number;
  gain: number;
  se: number;
  worlds: HiddenWorld[];
}

interface ReviewFixture {
  format_version: number;
  model: string;
  knobs: { worlds: number; candidates: number; gate_points: number; gate_z: number };
  deck_orders: number[][];
  coins: number[];
  actions: number[];
  positions: ReviewPosition[];
}

const fixture = JSON.parse(readFileSync(new URL('./fixtures/review.json', import.meta.url), 'utf8')) as ReviewFixture;
const knobs = { worlds: fixture.knobs.worlds, candidates: fixture.knobs.candidates, gatePoints: fixture.knobs.gate_points, gateZ: fixture.knobs.gate_z };

describe('the review against the Python search (fixtures/review.json)', () => {
  const stem = new URL(`../public/${fixture.model.replace(/\.onnx$/, '')}`, import.meta.url).pathname;
  let net: NetLogits;
  let positions: MatchState[];

  beforeAll(async () => {
    const manifest = JSON.parse(readFileSync(`${stem}.json`, 'utf8')) as Manifest;
    ort.env.logLevel = 'error';
    ort.env.wasm.numThreads = 1;
    net = netLogits(await ort.InferenceSession.create(readFileSync(`${stem}.onnx`), { executionProviders: ['wasm'] }), manifest);
    positions = replayPositions(fixture);
  });

  it("was written with the page's preset, over all three rounds, with moves in and out of the candidates", () => {
    expect(fixture.format_version).toBe(1);
    expect(knobs).toEqual(BELIEF_PRESET);
    expect(new Set(fixture.positions.map((p) => p.round_idx))).toEqual(new Set([0, 1, 2]));
    expect(fixture.positions.some((p) => !p.candidates.includes(p.played))).toBe(true);
    expect(fixture.positions.some((p) => p.candidates.includes(p.played))).toBe(true);
    expect(fixture.positions.some((p) => Math.abs(p.gain) > 2 * p.se && p.se > 0)).toBe(true); // a clear loss is in it
  });

  it.each(fixture.positions.map((p) => [p.ply, p.round_idx + 1, p.played_kind, p] as const))(
    "ply %i (round %i, a move %s): Python's values world by world, the same choice, gain and standard error",
    async (ply, _round, _kind, position) => {
      const ms = positions[ply];
      expect([ms.roundIdx, ms.round.toMove]).toEqual([position.round_idx, position.to_move]);
      const worlds = position.worlds.map((hidden) => worldOf(ms.round, hidden));
      // the page's own rollouts of Python's lanes (its candidates, then the player's move) on Python's worlds
      const lanes = [...position.candidates, position.played];
      const values = await rolloutValues(ms, worlds, lanes, net);
      const off = values.flatMap((row, w) => (row.every((v, k) => Math.abs(v - position.values[w][k]) < 1e-3) ? [] : [`world ${w}: ${row} vs ${position.values[w]}`]));
      expect(off).toEqual([]);
      const mine = meanAndError(values.map((row) => row[position.chosen] - row[lanes.length - 1]));
      expect(Math.abs(mine.mean - position.gain)).toBeLessThan(1e-3);
      expect(Math.abs(mine.se - position.se)).toBeLessThan(1e-3);

      const review = await reviewDecision(ms, position.played, net, null, knobs, seededRandom(0), worlds);
      expect(review.candidates).toEqual(position.candidates);
      expect(review.best).toBe(position.best);
      expect(review.worlds).toBe(knobs.worlds);
      console.log(`ply ${ply}: gain ${review.gain.toFixed(3)} (s.e. ${review.se.toFixed(3)}), Python ${position.gain.toFixed(3)} (s.e. ${position.se.toFixed(3)})`);
      expect(Math.abs(review.gain - position.gain)).toBeLessThan(1e-3);
      expect(Math.abs(review.se - position.se)).toBeLessThan(1e-3);
      if (!clearlyBetter(review)) expect(review.reason).toBeNull();
    },
    120_000,
  );
});

describe('the review sees only what the player saw', () => {
  it('gives the same numbers when the true hidden cards are permuted among themselves', async () => {
    const stem = new URL(`../public/${fixture.model.replace(/\.onnx$/, '')}`, import.meta.url).pathname;
    const manifest = JSON.parse(readFileSync(`${stem}.json`, 'utf8')) as Manifest;
    const net = netLogits(await ort.InferenceSession.create(readFileSync(`${stem}.onnx`), { executionProviders: ['wasm'] }), manifest);
    const positions = replayPositions(fixture);
    const small = { ...knobs, worlds: 8 };
    for (const [i, position] of fixture.positions.slice(0, 3).entries()) {
      const ms = positions[position.ply];
      const review = await reviewDecision(ms, position.played, net, null, small, seededRandom(i));
      const permuted = await reviewDecision(hiddenPermuted(ms, seededRandom(40 + i)), position.played, net, null, small, seededRandom(i));
      expect(permuted).toEqual(review);
    }
  }, 120_000);
});

describe('the review of a logged match', () => {
  it('replays the log to the positions before each ply, and finds each seat’s decisions', () => {
    const positions = replayPositions(fixture);
    expect(positions.length).toBe(fixture.actions.length);
    let ms = matchResetFrom(fixture.deck_orders, fixture.coins);
    fixture.actions.forEach((action, ply) => {
      expect(positions[ply]).toEqual(ms);
      ms = matchStep(ms, action).state;
    });
    const [mine, theirs] = [pliesOf(positions, 0), pliesOf(positions, 1)];
    // every ply is exactly one seat's, and Python recorded whose turn each fixture position was
    expect([...mine, ...theirs].sort((a, b) => a - b)).toEqual(fixture.actions.map((_, ply) => ply));
    for (const p of fixture.positions) expect((p.to_move === 0 ? mine : theirs).includes(p.ply), `ply ${p.ply}`).toBe(true);
    // the seats alternate within a round, and round 1 is started by the first coin's seat
    expect(mine.includes(0)).toBe(fixture.coins[0] === 0);
    positions.forEach((position, ply) => {
      if (ply > 0 && positions[ply - 1].roundIdx === position.roundIdx) expect(mine.includes(ply)).toBe(!mine.includes(ply - 1));
    });
  });

  it('refuses an illegal logged move, and lists only clearly better moves, costliest first', async () => {
    expect(() => replayPositions({ ...fixture, actions: [...fixture.actions.slice(0, 3), 999] })).toThrow(/not legal/);
    const base: Omit<DecisionReview, 'ply' | 'gain' | 'se'> = { roundIdx: 0, played: 0, best: 6, candidates: [6, 0], worlds: 8, forced: false, reason: null };
    const sorted = costliestFirst([
      { ...base, ply: 1, gain: 2, se: 1 },
      { ...base, ply: 2, gain: 9, se: 3 },
      { ...base, ply: 3, gain: -1, se: 0.5 }, // worse: never listed
      { ...base, ply: 0, gain: 9, se: 2 },
      { ...base, ply: 4, gain: 3, se: 3.5 }, // within its uncertainty: as good as any
      { ...base, ply: 5, gain: 3.04, se: 3.0 }, // "+3.0 ± 3.0" as shown: not better
      { ...base, ply: 6, gain: 5, se: 0, forced: true },
    ]);
    expect(sorted.map((r) => r.ply)).toEqual([0, 2, 1]);
  });
});

/** A round's end with these expedition scores (expSum − 20, no wagers) for seats 0 and 1, colour by colour; 0 for none. */
function endWith(scores: [number[], number[]]): RoundState {
  const expCount = scores.map((row) => row.map((x) => (x === 0 ? 0 : 1)));
  const expSum = scores.map((row) => row.map((x) => x + 20));
  const expHandshakes = scores.map((row) => row.map(() => 0));
  return { expCount, expSum, expHandshakes } as unknown as RoundState;
}

describe("a gain's reason", () => {
  const none = [0, 0, 0, 0, 0];
  const pairs = (better: [number[], number[]][], mine: [number[], number[]][]) => better.map((b, w) => [endWith(b), endWith(mine[w])] as [RoundState, RoundState]);

  it('is the expedition whose paired change favours the player most, clear of its standard error', () => {
    // seat 0's Blue gains 8 to 12 points in every world; the opponent's Red loses 2 to 4 (a smaller part)
    const better = [8, 10, 12].map((g, w) => [[0, g, 0, 0, 0], [0, 0, 0, 0, 5 - (2 + w)]] as [number[], number[]]);
    const mine = [0, 1, 2].map(() => [none, [0, 0, 0, 0, 5]] as [number[], number[]]);
    expect(reasonOf(pairs(better, mine), 0)).toEqual({ seat: 'you', colour: 1, points: 10, se: expect.closeTo(2 / Math.sqrt(3), 9) });
    // from seat 1's side the same ends read the other way: its Red expedition is 3 points better in the player's move
    expect(reasonOf(pairs(better, mine), 1)).toBeNull();
  });

  it("names the opponent's expedition when it is the opponent that scores less", () => {
    const better = [1, 2, 3, 4].map(() => [none, [0, 0, 0, 0, 0]] as [number[], number[]]);
    const mine = [10, 14, 6, 10].map((r) => [none, [0, 0, 0, 0, r]] as [number[], number[]]);
    expect(reasonOf(pairs(better, mine), 0)).toMatchObject({ seat: 'opponent', colour: 4, points: 10 });
  });

  it('is none when no change clears its standard error', () => {
    const better = [10, -10, 12, -11].map((g) => [[g, 0, 0, 0, 0], none] as [number[], number[]]);
    const mine = better.map(() => [none, none] as [number[], number[]]);
    expect(reasonOf(pairs(better, mine), 0)).toBeNull();
  });
});
