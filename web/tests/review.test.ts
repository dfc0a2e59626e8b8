/**
 * The match review (src/review.ts) against the Python search (tests/fixtures/review.json,
 * `python tools/review_fixture.py`): on the worlds the Python search sampled from the mover's
 * information set, the review names the same choice and estimates its gain over the player's
 * move within the standard error of that estimate over the same worlds. Also: a logged match
 * replays to the positions the review steps through, and the review refuses an illegal move.
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../src/deal';
import { type MatchState, matchResetFrom, matchStep } from '../src/match';
import { netLogits } from '../src/policy';
import type { Manifest } from '../src/policyContract';
import { costliestFirst, meanAndError, pliesOf, replayPositions, reviewDecision } from '../src/review';
import { BELIEF_PRESET, type NetLogits } from '../src/search';
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
    'ply %i (round %i, a move %s): the same choice, the gain within its standard error',
    async (ply, _round, _kind, position) => {
      const ms = positions[ply];
      expect([ms.roundIdx, ms.round.toMove]).toEqual([position.round_idx, position.to_move]);
      const worlds = position.worlds.map((hidden) => worldOf(ms.round, hidden));
      const review = await reviewDecision(ms, position.played, net, null, knobs, seededRandom(0), worlds);
      expect(review.candidates).toEqual(position.candidates);
      expect(review.best).toBe(position.best);
      expect(review.worlds).toBe(knobs.worlds);
      // Python's own numbers from its values (the same formula)
      const python = meanAndError(position.values.map((row) => row[position.chosen] - row[row.length - 1]));
      expect(python.mean).toBeCloseTo(position.gain, 9);
      expect(python.se).toBeCloseTo(position.se, 9);
      console.log(`ply ${ply}: gain ${review.gain.toFixed(3)} (s.e. ${review.se.toFixed(3)}), Python ${position.gain.toFixed(3)} (s.e. ${position.se.toFixed(3)})`);
      expect(Math.abs(review.gain - position.gain)).toBeLessThanOrEqual(position.se + 1e-9);
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
  it('replays the log to the positions before each ply and finds the seat’s decisions', () => {
    const positions = replayPositions(fixture);
    expect(positions.length).toBe(fixture.actions.length);
    let ms = matchResetFrom(fixture.deck_orders, fixture.coins);
    fixture.actions.forEach((action, ply) => {
      expect(positions[ply]).toEqual(ms);
      ms = matchStep(ms, action).state;
    });
    const mine = pliesOf(positions, 0);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((ply) => positions[ply].round.toMove === 0)).toBe(true);
  });

  it('refuses an illegal logged move, and lists the costliest decisions first', async () => {
    expect(() => replayPositions({ ...fixture, actions: [...fixture.actions.slice(0, 3), 999] })).toThrow(/not legal/);
    const base = { roundIdx: 0, played: 0, best: 0, candidates: [0], se: 0, worlds: 8, forced: false };
    const sorted = costliestFirst([
      { ...base, ply: 1, gain: 2 },
      { ...base, ply: 2, gain: 9 },
      { ...base, ply: 3, gain: -1 },
      { ...base, ply: 0, gain: 9 },
    ]);
    expect(sorted.map((r) => r.ply)).toEqual([0, 2, 1, 3]);
  });
});
