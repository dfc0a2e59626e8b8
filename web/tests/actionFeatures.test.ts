/**
 * The TypeScript `af1` action features against Python's (tests/fixtures/actions.json,
 * written by `python -m lost_cities.cli.action_fixture`): from each recorded observation
 * (match3 v2 and single_round v1 positions of expert and random play) the placement and
 * draw rows, the legal mask of the rebuilt view, and the expert's preferred legal action.
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AF_VERSION, EXPERT_TOTAL, N_DRAW_FEATURES, N_PLACEMENT_FEATURES, N_PLACEMENTS, actionFeatures } from '../src/actionFeatures';
import { N_ACTIONS } from '../src/cards';

interface Block {
  env: string;
  obs_version: string;
  obs_dim: number;
  count: number;
  obs: string;
  mask: string;
  placement: string;
  draw: string;
}

interface Fixture {
  format_version: number;
  features: string;
  placement_shape: number[];
  draw_shape: number[];
  blocks: Block[];
}

const fixture: Fixture = JSON.parse(readFileSync(new URL('./fixtures/actions.json', import.meta.url), 'utf8'));
const unpack = (b64: string): Buffer => inflateSync(Buffer.from(b64, 'base64'));
const floats = (b64: string): Float32Array => {
  const bytes = unpack(b64);
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
};
const TOLERANCE = 1e-5;

/** The legal action with the highest value, lowest id on ties (bots/context.py `best_legal`). */
function bestLegal(values: ArrayLike<number>, mask: ArrayLike<boolean | number>): number {
  let best = -1;
  for (let a = 0; a < values.length; a++) if (mask[a] && (best < 0 || values[a] > values[best])) best = a;
  return best;
}

describe('af1 action features vs the Python fixture', () => {
  it('has the layout this client computes', () => {
    expect(fixture.format_version).toBe(1);
    expect(fixture.features).toBe(AF_VERSION);
    expect(fixture.placement_shape).toEqual([N_PLACEMENTS, N_PLACEMENT_FEATURES]);
    expect(fixture.draw_shape).toEqual([N_ACTIONS, N_DRAW_FEATURES]);
    expect(fixture.blocks.map((b) => b.obs_version).sort()).toEqual(['v1', 'v2']);
    expect(fixture.blocks.reduce((n, b) => n + b.count, 0)).toBeGreaterThanOrEqual(300);
  });

  for (const block of fixture.blocks) {
    it(`reproduces ${block.count} ${block.env} (${block.obs_version}) positions`, () => {
      const obs = floats(block.obs);
      const masks = unpack(block.mask);
      const placements = floats(block.placement);
      const draws = floats(block.draw);
      const P = N_PLACEMENTS * N_PLACEMENT_FEATURES;
      const D = N_ACTIONS * N_DRAW_FEATURES;
      let maxDiff = 0;
      let exact = 0;
      let total = 0;
      let argmaxAgree = 0;
      let pileDraws = 0;
      const worst: string[] = [];
      for (let n = 0; n < block.count; n++) {
        const got = actionFeatures(obs.subarray(n * block.obs_dim, (n + 1) * block.obs_dim));
        const mask = Array.from(masks.subarray(n * N_ACTIONS, (n + 1) * N_ACTIONS), Boolean);
        expect(got.mask).toEqual(mask);
        const pairs: [Float32Array, Float32Array, number, string][] = [
          [got.placement, placements.subarray(n * P, (n + 1) * P), N_PLACEMENT_FEATURES, 'placement'],
          [got.draw, draws.subarray(n * D, (n + 1) * D), N_DRAW_FEATURES, 'draw'],
        ];
        for (const [mine, want, width, name] of pairs) {
          for (let k = 0; k < want.length; k++) {
            const diff = Math.abs(mine[k] - want[k]);
            total += 1;
            if (Object.is(mine[k], want[k]) || mine[k] === want[k]) exact += 1;
            if (diff > maxDiff) maxDiff = diff;
            if (!(diff <= TOLERANCE) && worst.length < 5) {
              worst.push(`position ${n} ${name} row ${Math.floor(k / width)} col ${k % width}: ${mine[k]} vs ${want[k]}`);
            }
          }
        }
        const column = (rows: Float32Array) => Array.from({ length: N_ACTIONS }, (_, a) => rows[a * N_DRAW_FEATURES + EXPERT_TOTAL]);
        const want = bestLegal(column(draws.subarray(n * D, (n + 1) * D)), mask);
        const mine = bestLegal(column(got.draw), got.mask);
        if (mine === want) argmaxAgree += 1;
        if (want % 6 !== 0) pileDraws += 1;
      }
      console.log(
        `${block.env} ${block.obs_version}: ${block.count} positions, ${exact}/${total} values bit-equal, ` +
          `max |diff| ${maxDiff.toExponential(2)}, expert argmax agrees ${argmaxAgree}/${block.count} ` +
          `(${pileDraws} of them pile draws)`,
      );
      expect(worst).toEqual([]);
      expect(maxDiff).toBeLessThanOrEqual(TOLERANCE);
      expect(argmaxAgree).toBe(block.count);
    });
  }

  it('the rows move with the observation (a changed card changes them)', () => {
    const block = fixture.blocks[0];
    const obs = floats(block.obs).slice(0, block.obs_dim);
    const before = actionFeatures(obs);
    const cards = Array.from({ length: 60 }, (_, card) => card);
    const hand = cards.filter((card) => obs[card * 7] > 0.5);
    const unseen = cards.filter((card) => obs[card * 7 + 6] > 0.5);
    // The lowest hand card and the highest unseen card swap places.
    [obs[hand[0] * 7], obs[hand[0] * 7 + 6]] = [0, 1];
    [obs[unseen.at(-1)! * 7], obs[unseen.at(-1)! * 7 + 6]] = [1, 0];
    const after = actionFeatures(obs);
    expect(Array.from(after.placement)).not.toEqual(Array.from(before.placement));
  });
});
