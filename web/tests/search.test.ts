/**
 * The page's search (src/search.ts) and its worlds (src/belief.ts): the worlds keep what the
 * mover sees and deal only what it has not seen, the search's move does not depend on where
 * the hidden cards truly lie (and a leaking variant is caught by that check), the belief's
 * sampler deals by its odds, the gate and the candidates follow lost_cities/search/agent.py,
 * the batched rollouts play what one game at a time would play, and, given the worlds the
 * Python search sampled (tests/fixtures/search.json, `python tools/search_fixture.py`), the
 * search decides what the Python search decided: the same candidates, values, gains and move.
 */
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { beforeAll, describe, expect, it } from 'vitest';
import { believedRound, conditionalBernoulli, uniformRound, unseenCards } from '../src/belief';
import { N_ACTIONS, N_CARDS } from '../src/cards';
import { type Random, randomDeal, seededRandom } from '../src/deal';
import { LOC_HAND, type RoundState, legalMask, step } from '../src/engine';
import { type MatchState, matchResetFrom, matchStep } from '../src/match';
import { matchObservation } from '../src/matchObservation';
import { netLogits } from '../src/policy';
import { type Manifest, argmaxLegal } from '../src/policyContract';
import { CONTRACT } from '../src/contract';
import { type HiddenWorld, hiddenPermuted, worldOf } from './fixtureWorlds';
import {
  BELIEF_PRESET,
  type NetLogits,
  matchPoints,
  rolloutValues,
  searchDecision,
  select,
  topCandidates,
} from '../src/search';

/** Positions of seeded random-legal-move matches, every 5th ply (all three rounds, live only). */
function positions(count: number, seed = 3): MatchState[] {
  const random = seededRandom(seed);
  const out: MatchState[] = [];
  while (out.length < count) {
    const deal = randomDeal(random);
    let ms = matchResetFrom(deal.deckOrders, deal.coins);
    for (let ply = 0; !ms.done && out.length < count; ply++) {
      if (ply % 5 === 2) out.push(ms);
      const legal = legalMask(ms.round).flatMap((ok, a) => (ok ? [a] : []));
      ms = matchStep(ms, legal[Math.floor(random() * legal.length)]).state;
    }
  }
  return out;
}

const randomLogits = (random: Random) => Float32Array.from({ length: N_CARDS }, () => 3 * (random() - 0.5));
const samplers: [string, (round: RoundState, random: Random) => RoundState][] = [
  ['uniform', uniformRound],
  ['belief', (round, random) => believedRound(round, randomLogits(seededRandom(99)), random)],
];

describe.each(samplers)('%s worlds', (_, deal) => {
  const cases = positions(60);

  it("keep the mover's observation and legal mask, and deal exactly the unseen cards", () => {
    const random = seededRandom(1);
    for (const ms of cases) {
      const mover = ms.round.toMove;
      const world = { ...ms, round: deal(ms.round, random) };
      expect(Array.from(matchObservation(world, mover))).toEqual(Array.from(matchObservation(ms, mover)));
      expect(legalMask(world.round)).toEqual(legalMask(ms.round));
      const unseen = unseenCards(ms.round, mover);
      expect(unseenCards(world.round, mover)).toEqual(unseen);
      const hiddenLocs = (r: RoundState) => r.loc.filter((_, card) => unseen[card]).sort((a, b) => a - b);
      expect(hiddenLocs(world.round)).toEqual(hiddenLocs(ms.round)); // the same places: deck positions and hand slots
      for (let card = 0; card < N_CARDS; card++) {
        if (!unseen[card]) expect(world.round.loc[card]).toBe(ms.round.loc[card]);
        if (world.round.loc[card] < LOC_HAND) expect(world.round.deckOrder[world.round.loc[card]]).toBe(card);
      }
      const opponent = 1 - mover;
      expect(world.round.hands[opponent]).toEqual(
        world.round.loc.flatMap((l, card) => (l === LOC_HAND + opponent || l === LOC_HAND + 2 + opponent ? [card] : [])),
      );
      expect(world.round.hands[mover]).toEqual(ms.round.hands[mover]);
    }
  });

  it('do not depend on where the hidden cards truly lie (and the check catches a leak)', () => {
    // a belief that reads the opponent's true hand (its logits favour the cards truly there)
    const leaky = (round: RoundState, random: Random): RoundState =>
      believedRound(round, Float32Array.from(round.loc, (l) => (l === LOC_HAND + 1 - round.toMove ? 2 : 0)), random);
    let leaks = 0;
    for (const [i, ms] of cases.entries()) {
      const permuted = hiddenPermuted(ms, seededRandom(i));
      expect(deal(permuted.round, seededRandom(7 + i))).toEqual(deal(ms.round, seededRandom(7 + i)));
      const a = leaky(ms.round, seededRandom(7 + i));
      const b = leaky(permuted.round, seededRandom(7 + i));
      if (JSON.stringify(a) !== JSON.stringify(b)) leaks++;
    }
    expect(leaks).toBeGreaterThan(cases.length / 2);
  });
});

describe('the belief sampler', () => {
  it('deals `size` members by their odds: each subset with probability proportional to the product of exp(logit)', () => {
    const members = new Array<boolean>(N_CARDS).fill(false);
    const ids = [4, 9, 17, 30, 41, 58];
    ids.forEach((card) => (members[card] = true));
    const logits = new Float32Array(N_CARDS).fill(5); // non-members' logits must not matter
    [0.0, 1.2, -0.7, 0.4, -1.5, 2.0].forEach((l, i) => (logits[ids[i]] = l));
    const size = 3;
    const exact = new Map<string, number>();
    let total = 0;
    for (let mask = 0; mask < 1 << ids.length; mask++) {
      const chosen = ids.filter((_, i) => mask & (1 << i));
      if (chosen.length !== size) continue;
      const w = Math.exp(chosen.reduce((s, card) => s + logits[card], 0));
      exact.set(chosen.join(','), w);
      total += w;
    }
    const counts = new Map<string, number>();
    const random = seededRandom(5);
    const draws = 40_000;
    for (let d = 0; d < draws; d++) {
      const taken = conditionalBernoulli(random, logits, members, size);
      const chosen = taken.flatMap((t, card) => (t ? [card] : []));
      expect(chosen.length).toBe(size);
      expect(chosen.every((card) => members[card])).toBe(true);
      counts.set(chosen.join(','), (counts.get(chosen.join(',')) ?? 0) + 1);
    }
    for (const [key, w] of exact) {
      const p = w / total;
      const se = Math.sqrt((p * (1 - p)) / draws);
      expect(Math.abs((counts.get(key) ?? 0) / draws - p), key).toBeLessThan(4 * se + 1e-4);
    }
  });
});

describe('the search decision', () => {
  const knobs = { ...BELIEF_PRESET, worlds: 4 };

  it('gates like agent.py: the best mean paired gain, only past gate points and gate_z standard errors', () => {
    // worlds x candidates; candidate 1 gains 2 on average but noisily, candidate 2 gains 1.5 steadily
    const values = [
      [0, 6, 1.5],
      [0, -2, 1.5],
      [0, 5, 1.5],
      [0, -1, 1.5],
    ];
    expect(select(values, knobs).gains).toEqual([0, 2, 1.5]);
    expect(select(values, knobs).chosen).toBe(0); // 2 > 1 point, but not its standard error, 2.04
    expect(select(values, { ...knobs, gateZ: 0 }).chosen).toBe(1);
    expect(select(values, { ...knobs, gatePoints: 2.5, gateZ: 0 }).chosen).toBe(0);
    expect(select([[0, -1], [0, -3]], knobs).chosen).toBe(0);
    expect(select([[0, 3, 3], [0, 3, 3]], knobs).chosen).toBe(1); // ties go to the lower index
  });

  it('proposes the net move first, then the best other legal actions (ties by id)', () => {
    const mask = Array.from({ length: N_ACTIONS }, (_, a) => a % 3 !== 0);
    const scores = Float32Array.from({ length: N_ACTIONS }, (_, a) => (a === 5 ? 9 : a === 10 || a === 7 ? 4 : a === 9 ? 99 : 0));
    const base = argmaxLegal(scores, mask);
    expect(base).toBe(5); // 9 is illegal
    expect(topCandidates(scores, mask, base, 4)).toEqual([5, 7, 10, 1]);
    expect(topCandidates(scores, mask, 1, 2)).toEqual([1, 5]); // the base move need not be the best
  });

  it('rolls out in batches exactly what one lane at a time plays', async () => {
    // a net that prefers discards of high slots to the deck: deterministic, any legal move
    const toy: NetLogits = async (states) =>
      states.map((ms) => Float32Array.from(legalMask(ms.round), (ok, a) => (ok ? ((a * 37) % 96) + ms.round.plies : -1e9)));
    const random = seededRandom(2);
    for (const ms of positions(6, 11)) {
      const worlds = [uniformRound(ms.round, random), uniformRound(ms.round, random)];
      const candidates = topCandidates((await toy([ms]))[0], legalMask(ms.round), argmaxLegal((await toy([ms]))[0], legalMask(ms.round)), 3);
      const batched = await rolloutValues(ms, worlds, candidates, toy);
      for (const [w, world] of worlds.entries()) {
        for (const [k, action] of candidates.entries()) {
          let round = step(world, action).state;
          while (!round.done) round = step(round, argmaxLegal((await toy([{ ...ms, round }]))[0], legalMask(round))).state;
          expect(batched[w][k]).toBe(matchPoints(ms, round, ms.round.toMove));
        }
      }
    }
  });

  it("on the page's net: keeps or beats its move by the rules, and ignores where the hidden cards truly lie", async () => {
    const stem = new URL('../public/bc-ppo-xi6-bal2700', import.meta.url).pathname;
    const manifest = JSON.parse(readFileSync(`${stem}.json`, 'utf8')) as Manifest;
    ort.env.logLevel = 'error';
    ort.env.wasm.numThreads = 1;
    const session = await ort.InferenceSession.create(readFileSync(`${stem}.onnx`), { executionProviders: ['wasm'] });
    const net = netLogits(session, manifest);
    const small = { ...BELIEF_PRESET, worlds: 8 };
    for (const [i, ms] of positions(4, 21).entries()) {
      const decision = await searchDecision(ms, net, null, small, seededRandom(i));
      expect(decision.base).toBe(argmaxLegal((await net([ms]))[0], legalMask(ms.round)));
      expect(decision.candidates[0]).toBe(decision.base);
      expect(decision.action).toBe(decision.candidates[decision.chosen]);
      if (decision.chosen > 0) expect(decision.gains[decision.chosen]).toBeGreaterThan(small.gatePoints);
      const permuted = await searchDecision(hiddenPermuted(ms, seededRandom(50 + i)), net, null, small, seededRandom(i));
      expect(permuted).toEqual(decision);
    }
  }, 120_000);
});

interface SearchPosition {
  ply: number;
  round_idx: number;
  to_move: number;
  deck_left: number;
  hand: number[];
  candidates: number[];
  valid: boolean[];
  values: number[][];
  gains: number[];
  chosen: number;
  action: number;
  worlds: HiddenWorld[];
}

interface SearchFixture {
  format_version: number;
  model: string;
  preset: string;
  knobs: { worlds: number; candidates: number; gate_points: number; gate_z: number };
  deck_orders: number[][];
  coins: number[];
  actions: number[];
  positions: SearchPosition[];
}

describe('the search against the Python search (fixtures/search.json)', () => {
  const fixture = JSON.parse(readFileSync(new URL('./fixtures/search.json', import.meta.url), 'utf8')) as SearchFixture;
  const knobs = { worlds: fixture.knobs.worlds, candidates: fixture.knobs.candidates, gatePoints: fixture.knobs.gate_points, gateZ: fixture.knobs.gate_z };
  const stem = new URL(`../public/${fixture.model.replace(/\.onnx$/, '')}`, import.meta.url).pathname;
  let net: NetLogits;
  const positionsAt = new Map<number, MatchState>();

  beforeAll(async () => {
    const manifest = JSON.parse(readFileSync(`${stem}.json`, 'utf8')) as Manifest;
    ort.env.logLevel = 'error';
    ort.env.wasm.numThreads = 1;
    net = netLogits(await ort.InferenceSession.create(readFileSync(`${stem}.onnx`), { executionProviders: ['wasm'] }), manifest);
    let ms = matchResetFrom(fixture.deck_orders, fixture.coins);
    fixture.actions.forEach((action, ply) => {
      positionsAt.set(ply, ms);
      ms = matchStep(ms, action).state;
    });
  });

  it("was written with the page's preset (else: python tools/search_fixture.py)", () => {
    expect(fixture.format_version).toBe(1);
    expect(fixture.preset).toBe(CONTRACT.search.preset);
    expect(knobs).toEqual(BELIEF_PRESET);
    expect(fixture.positions.length).toBeGreaterThanOrEqual(4);
    expect(new Set(fixture.positions.map((p) => p.round_idx))).toEqual(new Set([0, 1, 2])); // all three rounds
    expect(fixture.positions.some((p) => p.chosen > 0)).toBe(true); // a challenger clears the gate
    expect(fixture.positions.some((p) => p.chosen === 0)).toBe(true);
  });

  it.each(fixture.positions.map((p) => [p.ply, p.round_idx + 1, p.deck_left, p] as const))(
    'ply %i (round %i, %i cards in the deck): the same candidates, gains and move on the same worlds',
    async (ply, _round, _deck, position) => {
      const ms = positionsAt.get(ply) as MatchState;
      expect([ms.roundIdx, ms.round.toMove, ms.round.hands[ms.round.toMove]]).toEqual([position.round_idx, position.to_move, position.hand]);
      expect(position.valid.every(Boolean)).toBe(true);
      const worlds = position.worlds.map((hidden) => worldOf(ms.round, hidden));
      expect(worlds.length).toBe(knobs.worlds);
      const seen = Array.from(matchObservation(ms, position.to_move));
      for (const world of worlds) expect(Array.from(matchObservation({ ...ms, round: world }, position.to_move))).toEqual(seen);

      const decision = await searchDecision(ms, net, null, knobs, seededRandom(0), worlds);
      expect(decision.candidates).toEqual(position.candidates);
      const off = decision.gains.flatMap((gain, k) => (Math.abs(gain - position.gains[k]) < 1e-3 ? [] : [k]));
      if (off.length > 0) {
        // say which worlds' rollouts differ from Python's
        const values = await rolloutValues(ms, worlds, decision.candidates, net);
        const differing = values.flatMap((row, w) => (row.every((v, k) => v === position.values[w][k]) ? [] : [`world ${w}: ${row} vs ${position.values[w]}`]));
        expect(differing, `gains ${decision.gains} vs Python's ${position.gains}`).toEqual([]);
      }
      expect(off, `candidates whose mean gain differs from Python's (${position.gains})`).toEqual([]);
      expect([decision.chosen, decision.action]).toEqual([position.chosen, position.action]);
      expect(select(position.values, knobs).chosen).toBe(position.chosen); // Python's gate, on Python's values
    },
    120_000,
  );
});
