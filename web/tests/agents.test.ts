import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { N_ACTIONS } from '../src/cards';
import { describeAgent, describeStrength, parseAgentIndex, strengthOf } from '../src/agents';
import { OBS_V2_DIM } from '../src/matchObservation';

const BASE = 'https://example.org/some/path/agents.json';
const shipped = JSON.parse(readFileSync(new URL('../public/agents.json', import.meta.url), 'utf8'));
const shippedManifest = JSON.parse(readFileSync(new URL('../public/policy.json', import.meta.url), 'utf8'));
const index = (agents: unknown[], extra = {}) => ({ format: 'lost-cities-agents', version: 1, agents, ...extra });

describe('agent index', () => {
  it('reads the shipped index: every entry resolved beside it, the named default among them', () => {
    const parsed = parseAgentIndex(shipped, BASE);
    type Shipped = { id: string; model: string; manifest: string; search?: { belief: string } };
    expect(parsed.entries.map(({ id, modelUrl, manifestUrl, search }) => ({ id, modelUrl, manifestUrl, belief: search?.beliefUrl }))).toEqual(
      shipped.agents.map((a: Shipped) => ({
        id: a.id,
        modelUrl: `https://example.org/some/path/${a.model}`,
        manifestUrl: `https://example.org/some/path/${a.manifest}`,
        belief: a.search && `https://example.org/some/path/${a.search.belief}`,
      })),
    );
    expect(parsed.entries.filter((e) => e.search).length).toBeGreaterThan(0); // the page offers its search
    expect(parsed.entries.map((e) => e.modelUrl)).toContain('https://example.org/some/path/policy.onnx');
    expect(parsed.defaultId).toBe(shipped.default ?? parsed.entries[0].id);
  });

  it("shows each search's strength as its results file (python -m lost_cities.pool_results) has it", () => {
    type Claim = { model: string; search: { strength: { source: string } } };
    const claims: Claim[] = shipped.agents.filter((a: { search?: { strength?: unknown } }) => a.search?.strength);
    expect(claims.length).toBeGreaterThan(0);
    for (const { model, search } of claims) {
      const { source, ...shown } = search.strength;
      const measured = JSON.parse(readFileSync(new URL(`../../${source}`, import.meta.url), 'utf8'));
      expect(shown).toEqual({
        opponent: measured.opponent,
        games: measured.games,
        win_rate: Number(measured.win_rate.toFixed(3)),
        win_rate_lower: Number(measured.win_rate_lower.toFixed(3)),
        win_rate_upper: Number(measured.win_rate_upper.toFixed(3)),
        margin_mean: Number(measured.margin_mean.toFixed(1)),
        draws: measured.draws,
      });
      expect(measured.agent).toBe(`search/belief:web/public/${model}`); // the preset the page runs, on its net
    }
  });

  it('keeps the order of several entries; the default is the first unless named', () => {
    const agents = [
      { id: 'a', model: 'a.onnx', manifest: 'a.json' },
      { id: 'b', model: 'models/b.onnx', manifest: 'models/b.json' },
    ];
    const parsed = parseAgentIndex(index(agents), BASE);
    expect(parsed.entries.map((e) => e.id)).toEqual(['a', 'b']);
    expect(parsed.entries[1].modelUrl).toBe('https://example.org/some/path/models/b.onnx');
    expect(parsed.defaultId).toBe('a');
    expect(parseAgentIndex(index(agents, { default: 'b' }), BASE).defaultId).toBe('b');
  });

  it('refuses a malformed index with a message naming the problem', () => {
    const a = { id: 'a', model: 'a.onnx', manifest: 'a.json' };
    expect(() => parseAgentIndex({ agents: [a] }, BASE)).toThrow(/not a Lost Cities agent index/);
    expect(() => parseAgentIndex(index([a], { version: 2 }), BASE)).toThrow(/version 2/);
    expect(() => parseAgentIndex(index([]), BASE)).toThrow(/lists no agents/);
    expect(() => parseAgentIndex(index([a, a]), BASE)).toThrow(/listed twice/);
    expect(() => parseAgentIndex(index([{ ...a, id: 'has space' }]), BASE)).toThrow(/"id"/);
    expect(() => parseAgentIndex(index([{ id: 'a', model: 'a.onnx' }]), BASE)).toThrow(/"manifest"/);
    expect(() => parseAgentIndex(index([a], { default: 'zz' }), BASE)).toThrow(/"default"/);
  });
});

describe('agent strength', () => {
  const manifest = { obs_version: 'v2', obs_dim: OBS_V2_DIM, n_actions: N_ACTIONS, name: 'Test agent' };

  it('uses the manifest strength when given', () => {
    const strength = { opponent: 'heuristic_expert', games: 400, win_rate: 0.62, win_rate_lower: 0.57, win_rate_upper: 0.66, margin_mean: 21.4 };
    expect(strengthOf({ ...manifest, strength })).toEqual(strength);
    expect(describeStrength(strength)).toBe('wins 62% [57%–66%] of 400 games vs heuristic_expert, mean margin +21');
  });

  it('falls back to the gate against the strongest anchor measured', () => {
    const s = strengthOf(shippedManifest);
    expect(s?.opponent).toBe('heuristic_expert');
    expect(s?.games).toBe(400);
    expect(s?.win_rate).toBeCloseTo(0.085);
    expect(describeStrength(s)).toMatch(/^wins 8\.5% \[6\.1%–12%\] of 400 games vs heuristic_expert, mean margin −99$/);
    const onlyRandom = { ...manifest, gates: { random: { games: 10, win_rate: 1, wins: 10 } } };
    expect(strengthOf(onlyRandom)).toEqual({ opponent: 'random', games: 10, win_rate: 1 });
  });

  it('says so when nothing was measured (no NaN)', () => {
    expect(strengthOf(manifest)).toBeNull();
    expect(strengthOf({ ...manifest, gates: null })).toBeNull();
    expect(strengthOf({ ...manifest, strength: { opponent: 'x', win_rate: 'high' } })).toBeNull();
    expect(describeStrength(null)).toBe('strength not measured');
  });

  it('marks an agent whose observation the page lacks as unplayable, with the reason', () => {
    const entry = { id: 'a', modelUrl: 'x', manifestUrl: 'y' };
    expect(describeAgent(entry, manifest, null)).toMatchObject({ name: 'Test agent', problem: null });
    expect(describeAgent(entry, { ...manifest, obs_version: 'v9' }, null).problem).toMatch(/expects observation "v9"/);
    expect(describeAgent(entry, { ...manifest, name: undefined }, null).name).toBe('a');
    expect(describeAgent(entry, null, 'HTTP 404')).toMatchObject({ name: 'a', problem: 'HTTP 404' });
  });

  it('plays an af1 model and marks one with features the page lacks as unplayable', () => {
    const entry = { id: 'a', modelUrl: 'x', manifestUrl: 'y' };
    expect(describeAgent(entry, { ...manifest, features: 'af1' }, null).problem).toBeNull();
    expect(describeAgent(entry, { ...manifest, features: 'af7' }, null).problem).toMatch(/input features "af7"/);
  });
});

describe('a search agent', () => {
  const manifest = { obs_version: 'v2', obs_dim: OBS_V2_DIM, n_actions: N_ACTIONS, name: 'Net', strength: { opponent: 'heuristic_expert', games: 10, win_rate: 0.5 } };
  const a = { id: 'a', model: 'a.onnx', manifest: 'a.json' };

  it("reads the entry's search: the preset belief's knobs unless given, the belief model and its manifest beside the index", () => {
    const [plain, searched, wide] = parseAgentIndex(
      index([a, { ...a, id: 's', search: { belief: 'models/b.onnx' } }, { ...a, id: 'w', search: { worlds: 64, candidates: 6 } }]),
      BASE,
    ).entries;
    expect(plain.search).toBeUndefined();
    expect(searched.search).toEqual({
      beliefUrl: 'https://example.org/some/path/models/b.onnx',
      beliefManifestUrl: 'https://example.org/some/path/models/b.json',
      knobs: { worlds: 32, candidates: 4, gatePoints: 1, gateZ: 1 },
      strength: null,
    });
    expect(wide.search).toMatchObject({ beliefUrl: null, knobs: { worlds: 64, candidates: 6 } });
  });

  it('refuses a malformed search entry with a message naming the problem', () => {
    expect(() => parseAgentIndex(index([{ ...a, search: 'yes' }]), BASE)).toThrow(/"search" must be an object/);
    expect(() => parseAgentIndex(index([{ ...a, search: { worlds: 0 } }]), BASE)).toThrow(/"search.worlds"/);
    expect(() => parseAgentIndex(index([{ ...a, search: { candidates: 2.5 } }]), BASE)).toThrow(/"search.candidates"/);
    expect(() => parseAgentIndex(index([{ ...a, search: { belief: 'b.msgpack' } }]), BASE)).toThrow(/"search.belief"/);
  });

  it("is named for its search and shows the search's strength, never the net's", () => {
    const [entry] = parseAgentIndex(index([{ ...a, search: { belief: 'b.onnx' } }]), BASE).entries;
    const agent = describeAgent(entry, manifest, null);
    expect(agent.name).toBe('Net + search, 32 worlds × 4 moves, learned belief');
    expect(agent.strength).toBeNull();
    const strength = { opponent: 'heuristic_expert', games: 2000, win_rate: 0.756, win_rate_lower: 0.737, win_rate_upper: 0.775, margin_mean: 38.3 };
    const [measured] = parseAgentIndex(index([{ ...a, search: { belief: 'b.onnx', strength } }]), BASE).entries;
    expect(describeAgent(measured, manifest, null).strength).toEqual(strength);
  });
});
