/**
 * The generated contract (src/generated/contract.json, `python tools/web_contract.py`) and what
 * this client derives from it: every size the TypeScript code computes agrees with the Python
 * layouts, the layouts tile their arrays, a layout this client does not compute is refused at
 * load, and the page's search runs the Python preset's knobs as the port implements them.
 * (tests/export/test_web_contract.py holds the file itself to the Python package.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AF_VERSION,
  DRAW_AT,
  EXPERT_TOTAL,
  N_DRAW_FEATURES,
  N_PLACEMENT_FEATURES,
  N_PLACEMENTS,
  PLACEMENT_AT,
  actionFeatures,
} from '../src/actionFeatures';
import { parseAgentIndex } from '../src/agents';
import {
  DEALT,
  DECK_DRAWS,
  HAND_SIZE,
  N_ACTIONS,
  N_CARDS,
  N_COLOURS,
  N_DRAW_SOURCES,
  N_PLACE_TYPES,
  N_SLOTS,
  decodeAction,
  encodeAction,
} from '../src/cards';
import { type Block, CONTRACT, layoutOffsets, layoutSize } from '../src/contract';
import { randomDeal, seededRandom } from '../src/deal';
import { matchResetFrom } from '../src/match';
import { OBS_V2_DIM, V2_AT, matchObservation } from '../src/matchObservation';
import { CHANNEL, N_CARD_FEATURES, N_CHANNELS, OBS_V1_DIM, V1_AT, observationV1 } from '../src/observation';
import { FEATURES } from '../src/policyContract';
import { BELIEF_PRESET, PORT_ASSUMES, unsupportedKnobs } from '../src/search';

const { v1, v2 } = CONTRACT.observations;
const af1 = CONTRACT.features.af1;

describe('the generated contract', () => {
  it('says where it comes from', () => {
    expect(CONTRACT.generated_by).toBe('python tools/web_contract.py');
    expect(CONTRACT.format_version).toBe(1);
  });

  it('has layouts that tile their arrays, with the sizes this client derives', () => {
    const layouts: [Block[], number][] = [
      [v1.blocks, OBS_V1_DIM],
      [v2.blocks, OBS_V2_DIM],
      [af1.placement.columns, N_PLACEMENT_FEATURES],
      [af1.draw.columns, N_DRAW_FEATURES],
    ];
    for (const [blocks, size] of layouts) {
      expect(layoutSize(blocks)).toBe(size);
      expect(blocks.reduce((end, b) => (b.offset === end ? end + b.size : NaN), 0)).toBe(size);
    }
    expect(N_CARDS).toBe(N_COLOURS * N_SLOTS);
    expect(DECK_DRAWS).toBe(N_CARDS - DEALT);
    expect(N_ACTIONS).toBe(HAND_SIZE * N_PLACE_TYPES * N_DRAW_SOURCES);
    expect(N_CARD_FEATURES).toBe(N_CARDS * N_CHANNELS);
    expect(new Set(Object.values(CHANNEL))).toEqual(new Set(Array.from({ length: N_CHANNELS }, (_, k) => k)));
    expect(V1_AT.cards).toBe(0);
    expect(V2_AT.v1).toBe(0);
    expect(N_PLACEMENTS).toBe(HAND_SIZE * N_PLACE_TYPES);
    expect(af1.draw.rows).toBe(N_ACTIONS);
    expect(EXPERT_TOTAL).toBe(DRAW_AT.expert_total);
    expect(PLACEMENT_AT.legal).toBe(N_PLACEMENT_FEATURES - 1);
    expect(FEATURES[AF_VERSION].inputs).toEqual({ placement: [N_PLACEMENTS, N_PLACEMENT_FEATURES], draw: [N_ACTIONS, N_DRAW_FEATURES] });
    // the numbers the client held before it read them from the contract
    expect([OBS_V1_DIM, OBS_V2_DIM, V2_AT.carry_margin, V2_AT.round, V2_AT.my_reachable]).toEqual([454, 512, 454, 464, 482]);
    expect([N_PLACEMENT_FEATURES, N_DRAW_FEATURES, EXPERT_TOTAL, N_ACTIONS]).toEqual([28, 10, 8, 96]);
  });

  it('sizes what the client computes: observations, af1 rows, the action encoding', () => {
    const random = seededRandom(4);
    const deal = randomDeal(random);
    const ms = matchResetFrom(deal.deckOrders, deal.coins);
    expect(observationV1(ms.round, 0).length).toBe(v1.dim);
    const obs = matchObservation(ms, ms.round.toMove);
    expect(obs.length).toBe(v2.dim);
    const { placement, draw } = actionFeatures(obs);
    expect(placement.length).toBe(af1.placement.rows * af1.placement.width);
    expect(draw.length).toBe(af1.draw.rows * af1.draw.width);
    for (let action = 0; action < N_ACTIONS; action++) expect(encodeAction(decodeAction(action))).toBe(action);
  });

  it('refuses, at load, a layout this client does not compute', () => {
    const sizes = { a: 2, b: 3 };
    expect(layoutOffsets('x', [{ name: 'b', offset: 0, size: 3 }, { name: 'a', offset: 3, size: 2 }], sizes)).toEqual({ a: 3, b: 0 });
    expect(() => layoutOffsets('x', [{ name: 'a', offset: 0, size: 2 }], sizes)).toThrow(/no block b/);
    expect(() => layoutOffsets('x', [{ name: 'a', offset: 0, size: 2 }, { name: 'b', offset: 2, size: 4 }], sizes)).toThrow(
      /b holds 4 values, this client writes 3/,
    );
    const extra = [{ name: 'a', offset: 0, size: 2 }, { name: 'b', offset: 2, size: 3 }, { name: 'c', offset: 5, size: 1 }];
    expect(() => layoutOffsets('x', extra, sizes)).toThrow(/unknown block c/);
    expect(() => layoutOffsets('x', [{ name: 'a', offset: 0, size: 2 }, { name: 'b', offset: 3, size: 3 }], sizes)).toThrow(/starts at 3, not at 2/);
  });
});

describe("the page's search preset", () => {
  it('is the Python preset, every knob the port does not implement at the value it plays as', () => {
    const knobs = CONTRACT.search.knobs;
    expect(CONTRACT.search.preset).toBe('belief');
    expect(BELIEF_PRESET).toEqual({ worlds: knobs.worlds, candidates: knobs.candidates, gatePoints: knobs.gate_points, gateZ: knobs.gate_z });
    expect(unsupportedKnobs(knobs)).toEqual([]);
    expect(unsupportedKnobs({ ...knobs, confirm_worlds: 16 })).toEqual(['confirm_worlds=16 (this port plays 0)']);
    expect(unsupportedKnobs({ ...knobs, scales: [0, 0, 10] })).toEqual(['scales=[0,0,10] (this port plays [0,0,0])']);
    expect(unsupportedKnobs({ ...knobs, horizon: 3 })).toEqual(['horizon (a knob this port does not know)']);
    expect(Object.keys(PORT_ASSUMES).every((name) => name in knobs)).toBe(true);
  });

  it("is what the shipped search agent plays, with the preset's belief", () => {
    const shipped = JSON.parse(readFileSync(new URL('../public/agents.json', import.meta.url), 'utf8'));
    const searches = parseAgentIndex(shipped, 'https://example.org/agents.json').entries.filter((e) => e.search);
    expect(searches.length).toBeGreaterThan(0);
    for (const entry of searches) {
      expect(entry.search?.knobs).toEqual(BELIEF_PRESET);
      expect(entry.search?.beliefUrl).toBe(`https://example.org/${CONTRACT.search.knobs.belief}-belief.onnx`);
    }
  });
});
