/**
 * The review in a player's words (src/reviewWords.ts, src/reviewChart.ts) and the page's numbers (src/format.ts):
 * a move is called better only when its gain clears its uncertainty as shown; the reason names what the better
 * move does with the expedition the rollouts single out; a match's result reads the same everywhere; the chart
 * draws one column per decision with a bar only for clear losses; every minus is the typographic one and
 * colours keep their capitals inside a sentence.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DECK, DISCARD, PLAY, cardColour, encodeAction } from '../src/cards';
import { COLOUR_NAMES, adviceInSentence, cardName } from '../src/describe';
import { deckLeft, isLegal } from '../src/engine';
import { points, signed, signedRound, whole } from '../src/format';
import type { MatchState } from '../src/match';
import type { DecisionReview } from '../src/review';
import { replayPositions } from '../src/review';
import { chartScale, lossChart } from '../src/reviewChart';
import { type Agent, parseAgentIndex } from '../src/agents';
import type { Policy } from '../src/policy';
import { hintSource } from '../src/view';
import { estimate, reasonPhrase, resultWords, verdict } from '../src/reviewWords';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/review.json', import.meta.url), 'utf8'));
const positions = replayPositions(fixture);
const decision = (d: Partial<DecisionReview>): DecisionReview => ({ ply: 0, roundIdx: 0, played: 0, best: 6, candidates: [6, 0], gain: 0, se: 0, worlds: 16, forced: false, reason: null, ...d });

/** A position of the fixture's match where the mover can discard one card and play a card of another colour, both drawing from the deck. */
function discardOrPlay(): { ms: MatchState; discard: number; play: number; discarded: number; played: number } {
  for (const ms of positions) {
    const hand = ms.round.hands[ms.round.toMove];
    for (let a = 0; a < hand.length; a++) {
      for (let b = 0; b < hand.length; b++) {
        const discard = encodeAction({ handSlot: a, placeType: DISCARD, drawSource: DECK });
        const play = encodeAction({ handSlot: b, placeType: PLAY, drawSource: DECK });
        if (cardColour(hand[a]) !== cardColour(hand[b]) && isLegal(ms.round, discard) && isLegal(ms.round, play)) {
          return { ms, discard, play, discarded: hand[a], played: hand[b] };
        }
      }
    }
  }
  throw new Error('no such position');
}

describe('the verdict on a decision', () => {
  const round = positions[8].round;
  it('calls the move better only when its gain clears its uncertainty, as shown', () => {
    expect(verdict(decision({ gain: 8.4, se: 3.1 }), round, 'Master')).toMatch(/^Better: [a-z]/);
    expect(verdict(decision({ gain: 3.04, se: 3.0 }), round, 'Master')).toBe('Your move was as good as any the Master found.');
    expect(verdict(decision({ gain: -8.8, se: 9.8 }), round, 'Master')).toBe('Your move was as good as any the Master found.');
    expect(verdict(decision({ best: 0 }), round, 'Master')).toBe('The Master would have made the same move.');
    expect(verdict(decision({ forced: true }), round, 'Master')).toBe('Only one legal move.');
  });

  it('gives the reason the rollouts single out', () => {
    const { ms, discard, play, discarded, played } = discardOrPlay();
    const round = ms.round;
    const theirs = { seat: 'opponent' as const, colour: cardColour(discarded), points: 6, se: 2 };
    expect(reasonPhrase(round, play, discard, theirs)).toBe(`it keeps ${cardName(discarded)} from the opponent`);
    const mine = { seat: 'you' as const, colour: cardColour(played), points: 6, se: 2 };
    const colour = COLOUR_NAMES[cardColour(played)];
    const open = round.expCount[round.toMove][cardColour(played)] > 0;
    expect(reasonPhrase(round, play, discard, mine)).toBe(open ? `it builds your ${colour} expedition` : `it opens ${colour}, with ${deckLeft(round)} cards left in the deck to build it`);
    const d = decision({ best: play, played: discard, gain: 7, se: 2, reason: theirs });
    expect(verdict(d, round, 'Master')).toBe(`Better: ${adviceInSentence(round, play)}: it keeps ${cardName(discarded)} from the opponent.`);
  });
});

describe("a match's result", () => {
  it('reads the same wherever it is stated', () => {
    expect(resultWords(317, 8, 'Master')).toBe('you won by 309 (317 to 8)');
    expect(resultWords(7, 150, 'Sightseer')).toBe('the Sightseer won by 143 (7 to 150)');
    expect(resultWords(-12, -40, 'Expert')).toBe('you won by 28 (−12 to −40)');
    expect(resultWords(50, 50, 'Expert')).toBe('a draw (50 to 50)');
  });
});

describe('the chart of points lost', () => {
  const decisions = [
    decision({ ply: 1, gain: 8.4, se: 3.1 }),
    decision({ ply: 3, gain: 2, se: 3 }),
    decision({ ply: 5, gain: -4, se: 1 }),
    decision({ ply: 7, roundIdx: 1, forced: true }),
    decision({ ply: 9, roundIdx: 1, gain: 31, se: 5 }),
  ];
  it('draws a column per decision, a bar only for a clear loss, never below the line', () => {
    const svg = lossChart(decisions, 8, 3);
    expect(svg.match(/data-testid="chart-decision"/g)?.length).toBe(5);
    expect([...svg.matchAll(/data-loss="([^"]+)"/g)].map((m) => Number(m[1]))).toEqual([8.4, 0, 0, 0, 31]);
    const bars = [...svg.matchAll(/<rect class="loss" x="[^"]+" y="([^"]+)" width="[^"]+" height="([^"]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(bars.length).toBe(2);
    for (const [y, h] of bars) expect(y + h).toBeCloseTo(100, 5); // standing on the zero line
    expect(bars[1][1] / bars[0][1]).toBeCloseTo(31 / 8.4, 2);
    expect(svg).toContain('scale 0 to 50');
    expect(svg.match(/class="round-name"/g)?.length).toBe(2);
    expect(svg).toContain('class="pending"'); // 3 decisions still to come
    expect(svg.match(/class="here"/g)?.length).toBe(1);
    expect(svg.match(/data-do="review-ply-\d+"/g)?.length).toBe(5);
  });
  it('scales to a round number of points', () => {
    expect([chartScale([]), chartScale([12]), chartScale([20]), chartScale([49]), chartScale([120])]).toEqual([10, 20, 20, 50, 200]);
  });
});

describe("the page's numbers and words", () => {
  it('writes every minus as the typographic one', () => {
    expect([whole(-229), signed(-86), signed(4), signed(0), signedRound(-0.4), signedRound(-99.2), points(-8.8), points(0.04), estimate(-2, 1)]).toEqual([
      '−229', '−86', '+4', '0', '0', '−99', '−8.8', '0.0', '−2.0 ± 1.0',
    ]);
  });
  it("names whose hints they are by a level's name, never a model's", () => {
    const shipped = JSON.parse(readFileSync(new URL('../public/agents.json', import.meta.url), 'utf8'));
    const agents = parseAgentIndex(shipped, 'https://example.org/agents.json').entries as Agent[];
    const source = (id: string) => hintSource({ agents, policy: { agent: agents.find((a) => a.id === id) } as Policy });
    expect(source('random-bot')).toBe('The Master at a glance (without thinking ahead) would');
    expect(source('bc-ppo-xi6-bal2700-search')).toBe('The Master at a glance (without thinking ahead) would');
    expect(source('improve-f2')).toBe('The Expert in your seat would');
    expect(source('improve-d4')).toBe('A strong player in your seat would'); // off the ladder
  });

  it('keeps a colour its capital inside a sentence', () => {
    const { ms, play } = discardOrPlay();
    expect(adviceInSentence(ms.round, play)).toMatch(/^play (Yellow|Blue|White|Green|Red) (\d+|wager), draw from the deck$/);
  });
});
