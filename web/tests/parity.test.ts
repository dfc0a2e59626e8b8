/**
 * Replays the Python engine's recorded matches (tests/fixtures/parity.json, written by
 * `python -m lost_cities.parity_fixture`) through the TypeScript engine and compares
 * every ply exactly: legal mask, both seats' observations (float32 bits), reward, done,
 * carry, board scores, round index, seat to move and the round's ply count.
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { N_ACTIONS } from '../src/cards';
import { boardScore, legalMask } from '../src/engine';
import { type MatchState, matchResetFrom, matchStep } from '../src/match';
import { OBSERVATIONS } from '../src/observations';

interface FixtureMatch {
  deck_orders: number[][];
  coins: number[];
  stall: boolean;
  masks: string;
  actions: number[];
  rewards: number[][];
  done: number[];
  carry: number[][];
  board: number[][];
  round_idx: number[];
  to_move: number[];
  round_plies: number[];
  observations: Record<string, string>;
}

interface Fixture {
  format_version: number;
  observations: Record<string, { dim: number }>;
  matches: FixtureMatch[];
}

// PARITY_FIXTURE=<path> checks another fixture (e.g. a larger one written with --matches).
const fixturePath = new URL(process.env.PARITY_FIXTURE ?? './fixtures/parity.json', import.meta.url);
const fixture: Fixture = JSON.parse(readFileSync(fixturePath, 'utf8'));
const unpack = (b64: string): Buffer => inflateSync(Buffer.from(b64, 'base64'));

describe('parity fixture', () => {
  it('has the expected format and covers every observation version the client implements', () => {
    expect(fixture.format_version).toBe(1);
    expect(Object.keys(fixture.observations).sort()).toEqual(Object.keys(OBSERVATIONS).sort());
    for (const [version, { dim }] of Object.entries(fixture.observations)) {
      expect(OBSERVATIONS[version].dim).toBe(dim);
    }
  });

  it('covers matches that end, illegal actions and the forced end at MAX_STEPS', () => {
    const allMasks = fixture.matches.map((m) => unpack(m.masks));
    const illegal = fixture.matches.flatMap((m, i) =>
      m.actions.filter((a, ply) => a < 0 || a >= N_ACTIONS || allMasks[i][ply * N_ACTIONS + a] === 0),
    );
    expect(illegal.length).toBeGreaterThan(20);
    expect(fixture.matches.every((m) => m.done[m.done.length - 1] === 1)).toBe(true);
    expect(fixture.matches.some((m) => m.round_plies.includes(400))).toBe(true);
  });
});

describe.each(fixture.matches.map((m, i) => [i, m] as const))('match %i', (_, match) => {
  it('replays bit-identically', () => {
    const masks = unpack(match.masks);
    const observations = Object.fromEntries(
      Object.entries(match.observations).map(([version, b64]) => {
        const bytes = unpack(b64);
        return [version, new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)];
      }),
    );
    let ms: MatchState = matchResetFrom(match.deck_orders, match.coins);
    match.actions.forEach((action, ply) => {
      const where = `ply ${ply}`;
      const expectedMask = masks.subarray(ply * N_ACTIONS, (ply + 1) * N_ACTIONS).join('');
      expect(legalMask(ms.round).map(Number).join(''), where).toBe(expectedMask);
      for (const [version, { dim, observe }] of Object.entries(OBSERVATIONS)) {
        for (const seat of [0, 1]) {
          const got = new Uint32Array(observe(ms, seat).buffer);
          const start = (ply * 2 + seat) * dim;
          const want = observations[version].subarray(start, start + dim);
          const index = got.findIndex((bits, i) => bits !== want[i]);
          const differs = index < 0 ? 'none' : `index ${index}: bits ${got[index]}, Python ${want[index]}`;
          expect(differs, `${where} obs ${version} seat ${seat}: first difference`).toBe('none');
        }
      }
      const result = matchStep(ms, action);
      ms = result.state;
      expect(result.reward, where).toEqual(match.rewards[ply]);
      expect(result.done ? 1 : 0, where).toBe(match.done[ply]);
      expect(ms.carry, where).toEqual(match.carry[ply]);
      expect(boardScore(ms.round), where).toEqual(match.board[ply]);
      expect(ms.roundIdx, where).toBe(match.round_idx[ply]);
      expect(ms.round.toMove, where).toBe(match.to_move[ply]);
      expect(ms.round.plies, where).toBe(match.round_plies[ply]);
    });
  }, 60_000); // a stalling match has 1,200 plies; the machine may be busy
});
