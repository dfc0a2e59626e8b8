import { describe, expect, it } from 'vitest';
import type { GameRecord } from '../src/gameLog';
import { humanMargin, meanMargin, opponentRecords, recordText } from '../src/record';
import { hintPercent, placeHints, slotHints, drawHints } from '../src/hints';
import { N_ACTIONS, encodeAction } from '../src/cards';

const game = (seats: string[], carry: [number, number], opponent?: string, hinted = false): GameRecord => ({
  format: 'lost-cities-game',
  version: 1,
  env: 'match3',
  deck_orders: [],
  coins: [0, 0, 0],
  seats,
  actions: [],
  round_scores: [],
  final_carry: carry,
  model: { name: `model of ${opponent ?? 'old'}`, obs_version: 'v2', placeholder: false },
  opponent: opponent ? { id: opponent, name: `Agent ${opponent}`, strength: null } : undefined,
  hints: { used: hinted, plies: hinted ? [0] : [] },
  started_at: '',
  finished_at: '',
});

describe('your record', () => {
  it('reads as a line: the hinted matches said in words, the margin with the typographic minus', () => {
    const records = opponentRecords([game(['human', 'agent'], [10, 40], 'x', true), game(['human', 'agent'], [30, 20], 'x'), game(['human', 'agent'], [5, 9], 'y', true)]);
    expect(recordText(records.get('x'))).toBe('2 matches: 1 won · 0 drawn · 1 lost; mean margin −10; you asked for hints in 1 of them');
    expect(recordText(records.get('y'))).toBe('1 match: 0 won · 0 drawn · 1 lost; mean margin −4; you asked for hints in it');
    expect(recordText(undefined)).toBe('no matches yet');
  });

  it('takes the margin from the human seat', () => {
    expect(humanMargin(game(['human', 'agent'], [30, 10]))).toBe(20);
    expect(humanMargin(game(['agent', 'human'], [30, 10]))).toBe(-20);
  });

  it('counts wins, draws, losses and margins per opponent; older logs are grouped by model name', () => {
    const records = opponentRecords([
      game(['human', 'agent'], [50, 10], 'a'),
      game(['agent', 'human'], [50, 10], 'a', true),
      game(['human', 'agent'], [0, 0], 'b'),
      game(['human', 'agent'], [5, 25]),
      game(['human', 'agent'], [7, 7], 'a'),
    ]);
    expect([...records.keys()]).toEqual(['a', 'b', 'model:model of old']);
    const a = records.get('a')!;
    expect(a).toMatchObject({ name: 'Agent a', played: 3, wins: 1, draws: 1, losses: 1, best: 40, worst: -40, hinted: 1 });
    expect(meanMargin(a)).toBe(0);
    expect(records.get('b')).toMatchObject({ played: 1, draws: 1 });
    expect(records.get('model:model of old')).toMatchObject({ played: 1, losses: 1, best: -20 });
  });
});

describe('hints', () => {
  const mask = new Array(N_ACTIONS).fill(false);
  const probs = new Array(N_ACTIONS).fill(0);
  const a = encodeAction({ handSlot: 2, placeType: 0, drawSource: 0 });
  const b = encodeAction({ handSlot: 2, placeType: 1, drawSource: 3 });
  const c = encodeAction({ handSlot: 5, placeType: 1, drawSource: 0 });
  const illegal = encodeAction({ handSlot: 7, placeType: 0, drawSource: 0 });
  for (const [action, p] of [[a, 0.6], [b, 0.25], [c, 0.15]]) {
    mask[action] = true;
    probs[action] = p;
  }
  probs[illegal] = 0.5; // mass on an illegal action is ignored

  it('sums the probabilities per card, per placement and per draw', () => {
    const slots = slotHints(probs, mask);
    expect(slots[2]).toBeCloseTo(0.85);
    expect(slots[5]).toBeCloseTo(0.15);
    expect(slots[7]).toBe(0);
    expect(placeHints(probs, mask, 2)).toEqual([0.6, 0.25]);
    expect(drawHints(probs, mask, 2, 1)).toEqual([0, 0, 0, 0.25, 0, 0]);
  });

  it('prints percentages without NaN', () => {
    expect(hintPercent(0.62)).toBe('62%');
    expect(hintPercent(0.001)).toBe('<1%');
    expect(hintPercent(0)).toBe('0%');
    expect(hintPercent(Number.NaN)).toBe('0%');
  });
});
