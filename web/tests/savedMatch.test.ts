/**
 * The match in progress survives a reload (src/savedMatch.ts): saved mid-match (past a round's end, with hints
 * on and the match's random numbers part used), read back and replayed, it is the same position, the same round
 * summaries and settings, and its random numbers go on as they would have: the rest of the match is the same.
 * A damaged or foreign entry is dropped, not replayed.
 */
import { describe, expect, it } from 'vitest';
import { expertMove, randomMove } from '../src/bots';
import { type RandomState, randomDeal, randomFrom, seededRandom } from '../src/deal';
import { type MatchState, type RoundSummary, matchResetFrom, matchStep, roundSummary } from '../src/match';
import { type MatchStorage, type SavedMatch, loadSavedMatch, replayMatch, saveMatch } from '../src/savedMatch';

function memoryStorage(): MatchStorage & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return { items, getItem: (k) => items.get(k) ?? null, setItem: (k, v) => void items.set(k, v), removeItem: (k) => void items.delete(k) };
}

const deal = randomDeal(seededRandom(3));
const agentSeat = 1 - deal.humanSeat;

/** Play `plies` more moves from `ms`: the agent a random bot on the match's generator `state`, the player the expert. */
function play(ms: MatchState, state: RandomState, plies: number, actions: number[], summaries: RoundSummary[]): MatchState {
  const random = randomFrom(state);
  for (let i = 0; i < plies && !ms.done; i++) {
    const action = ms.round.toMove === agentSeat ? randomMove(ms, random) : expertMove(ms);
    const { state: next, finishedRound } = matchStep(ms, action);
    if (finishedRound) summaries.push(roundSummary(ms.roundIdx, finishedRound, next));
    actions.push(action);
    ms = next;
  }
  return ms;
}

describe('a saved match', () => {
  it('resumes exactly: the position, the summaries, the settings and the random numbers still to come', () => {
    const storage = memoryStorage();
    const state = { a: 12345 };
    const actions: number[] = [];
    const summaries: RoundSummary[] = [];
    const ms = play(matchResetFrom(deal.deckOrders, deal.coins), state, 80, actions, summaries);
    expect(summaries.length).toBe(1); // past round 1's end
    const saved: SavedMatch = { version: 1, agentId: 'random-bot', deal, random: { ...state }, actions: [...actions], hintsOn: true, hintedPlies: [2, 4], roundSummaryOpen: false, startedAt: '2025-01-01T00:00:00.000Z' };
    saveMatch(storage, saved);
    const rest = [...actions];
    const ended = play(ms, state, 1000, rest, [...summaries]);
    expect(ended.done).toBe(true);

    const loaded = loadSavedMatch(storage);
    expect(loaded).toEqual(saved);
    const replayed = replayMatch(loaded!.deal, loaded!.actions);
    expect(replayed.ms).toEqual(ms);
    expect(replayed.summaries).toEqual(summaries);
    expect(replayed.positions.length).toBe(actions.length);
    const resumed = [...loaded!.actions];
    play(replayed.ms, loaded!.random, 1000, resumed, [...replayed.summaries]);
    expect(resumed).toEqual(rest); // the random bot's moves after the reload are the ones it would have made
  });

  it('drops an entry it cannot trust', () => {
    const storage = memoryStorage();
    storage.setItem('lost-cities-match-v1', '{not json');
    expect(loadSavedMatch(storage)).toBeNull();
    const good: SavedMatch = { version: 1, agentId: 'x', deal, random: { a: 1 }, actions: [], hintsOn: false, hintedPlies: [], roundSummaryOpen: false, startedAt: '' };
    for (const bad of [{ ...good, version: 2 }, { ...good, actions: ['a'] }, { ...good, random: {} }, { ...good, deal: { ...deal, humanSeat: 2 } }]) {
      storage.setItem('lost-cities-match-v1', JSON.stringify(bad));
      expect(loadSavedMatch(storage)).toBeNull();
      expect(storage.items.size).toBe(0);
    }
    expect(() => replayMatch(deal, [999])).toThrow(/not legal/);
  });
});
