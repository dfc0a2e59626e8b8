/**
 * The scripted bots (src/bots.ts) against lost_cities/bots: replaying the matches of
 * tests/fixtures/bots.json (`python tools/bot_fixture.py`), the TypeScript expert chooses
 * the Python `heuristic_expert`'s move at every ply; the random bot moves only legally and
 * reaches every legal move.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cautiousMove, expertMove, randomMove } from '../src/bots';
import { DECK, decodeAction } from '../src/cards';
import type { MatchState } from '../src/match';
import { seededRandom } from '../src/deal';
import { legalMask } from '../src/engine';
import { matchResetFrom, matchStep } from '../src/match';

interface BotFixture {
  format_version: number;
  matches: { deck_orders: number[][]; coins: number[]; actions: number[]; expert: number[]; cautious: number[] }[];
}

const fixture = JSON.parse(readFileSync(new URL('./fixtures/bots.json', import.meta.url), 'utf8')) as BotFixture;

const bots: [string, 'expert' | 'cautious', (ms: MatchState) => number][] = [
  ['heuristic_expert (the club-level bot)', 'expert', expertMove],
  ['heuristic_cautious (the beginner-level bot)', 'cautious', cautiousMove],
];

describe.each(bots)('%s vs the Python bot', (_, key, move) => {
  it('covers all three rounds of several matches', () => {
    expect(fixture.format_version).toBe(1);
    expect(fixture.matches.length).toBeGreaterThanOrEqual(3);
    expect(fixture.matches.reduce((n, m) => n + m.actions.length, 0)).toBeGreaterThanOrEqual(300);
  });

  it.each(fixture.matches.map((m, i) => [i, m] as const))('match %i: the same move as Python at every ply', (_, match) => {
    let ms = matchResetFrom(match.deck_orders, match.coins);
    const differ: string[] = [];
    const python = match[key];
    match.actions.forEach((action, ply) => {
      const mine = move(ms);
      if (mine !== python[ply]) differ.push(`ply ${ply} (round ${ms.roundIdx + 1}): ${mine} vs Python ${python[ply]}`);
      ms = matchStep(ms, action).state;
    });
    expect(ms.done).toBe(true);
    expect(differ).toEqual([]);
  });

  it("draws from a pile at 30 plies or more of the fixture (the draw rules' branch is exercised)", () => {
    expect(fixture.matches.flatMap((m) => m[key]).filter((a) => decodeAction(a).drawSource !== DECK).length).toBeGreaterThanOrEqual(30);
  });
});

describe('the random bot', () => {
  it('plays only legal moves and reaches each of them', () => {
    const first = fixture.matches[0];
    const ms = matchResetFrom(first.deck_orders, first.coins);
    const legal = legalMask(ms.round).flatMap((ok, a) => (ok ? [a] : []));
    const random = seededRandom(7);
    const seen = new Set<number>();
    for (let i = 0; i < 4000; i++) seen.add(randomMove(ms, random));
    expect([...seen].sort((a, b) => a - b)).toEqual(legal);
  });
});
