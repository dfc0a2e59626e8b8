/** Runs the exported ONNX policy in the browser with onnxruntime-web (WebGPU when available, else WASM);
 * a model whose manifest names `features` (af1) is also fed those rows, for its moves and the hints alike;
 * an agent with a `search` entry (agents.ts) moves by the search on top of the net (search.ts). */
import * as ort from 'onnxruntime-web';
import type { Agent } from './agents';
import { N_ACTIONS } from './cards';
import { legalMask } from './engine';
import type { MatchState } from './match';
import { type BeliefManifest, beliefFeatures, checkBeliefManifest, uniformLogit } from './belief';
import type { Random } from './deal';
import { type Manifest, argmaxLegal, inputsFor } from './policyContract';
import { type NetLogits, type SearchDecision, searchDecision } from './search';
import { botMove } from './bots';

export interface Decision {
  action: number;
  /** The net's probabilities (under a search too: the search's own numbers are in `search`). */
  probs: Float32Array;
  mask: boolean[];
  latencyMs: number;
  /** A search agent's candidates and their mean gains over the net's move (search.ts). */
  search?: SearchDecision;
}

export interface Policy {
  agent: Agent;
  manifest: Manifest;
  backend: string;
  /** The agent's move for the seat to move in `ms` (with a search entry: the search's, about 0.5 s), drawing
   * what it draws at random (a random bot's move, a search's worlds) from the match's own `random`. */
  decide: (ms: MatchState, random: Random) => Promise<Decision>;
  /** The net's own move and probabilities for the seat to move (the player's hints: no search). */
  hint: (ms: MatchState) => Promise<Decision>;
}

async function webgpuAvailable(): Promise<boolean> {
  const gpu = (navigator as Navigator & { gpu?: { requestAdapter: () => Promise<unknown> } }).gpu;
  if (!gpu) return false;
  try {
    return (await gpu.requestAdapter()) !== null;
  } catch {
    return false;
  }
}

/** onnxruntime's settings for the page: quiet start-up (e.g. an unknown CPU vendor is not the player's
 * concern), and WebAssembly threads only where the page is cross-origin isolated (one in node). */
export function configureRuntime(): void {
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = globalThis.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency) : 1;
}

/** A session on WebGPU when available and not refused, else on WebAssembly (a model's URL, or its bytes). */
export async function createSession(model: string | Uint8Array, preferWasm: boolean) {
  const create = (executionProviders: string[]) =>
    typeof model === 'string' ? ort.InferenceSession.create(model, { executionProviders }) : ort.InferenceSession.create(model, { executionProviders });
  if (!preferWasm && (await webgpuAvailable())) {
    try {
      return { session: await create(['webgpu']), backend: 'webgpu' };
    } catch (error) {
      console.warn('WebGPU session failed, using WebAssembly instead:', error);
    }
  }
  return { session: await create(['wasm']), backend: 'wasm' };
}

/** The model's inputs for a batch of positions, each seen by its seat to move (the observation, the
 * legal mask, and the feature rows the manifest names, e.g. af1's from actionFeatures.ts). */
export function batchFeeds(manifest: Manifest, positions: MatchState[]): { feeds: Record<string, ort.Tensor>; masks: boolean[][] } {
  const { observation: spec, features } = inputsFor(manifest);
  const n = positions.length;
  const obs = new Float32Array(n * spec.dim);
  const mask = new Float32Array(n * N_ACTIONS);
  const rows = Object.fromEntries(
    Object.entries(features?.inputs ?? {}).map(([name, shape]) => [name, new Float32Array(n * shape.reduce((a, b) => a * b, 1))]),
  );
  const masks = positions.map((ms, i) => {
    const legal = legalMask(ms.round);
    const o = spec.observe(ms, ms.round.toMove);
    obs.set(o, i * spec.dim);
    mask.set(Float32Array.from(legal, Number), i * N_ACTIONS);
    if (features) for (const [name, block] of Object.entries(features.compute(o))) rows[name].set(block, i * block.length);
    return legal;
  });
  const feeds: Record<string, ort.Tensor> = {
    obs: new ort.Tensor('float32', obs, [n, spec.dim]),
    mask: new ort.Tensor('float32', mask, [n, N_ACTIONS]),
  };
  for (const [name, shape] of Object.entries(features?.inputs ?? {})) feeds[name] = new ort.Tensor('float32', rows[name], [n, ...shape]);
  return { feeds, masks };
}

const rowsOf = (data: Float32Array, n: number, width: number): Float32Array[] =>
  Array.from({ length: n }, (_, i) => data.subarray(i * width, (i + 1) * width));

/** The belief's logits for the seat to move, from its session (belief.ts reads what it needs; search.ts deals worlds from them). */
export function beliefLogits(session: ort.InferenceSession, manifest: BeliefManifest): (ms: MatchState) => Promise<Float32Array> {
  checkBeliefManifest(manifest);
  return async (ms) => {
    const features = new ort.Tensor('float32', beliefFeatures(ms, manifest.moves), [1, manifest.features_dim]);
    const prior = new ort.Tensor('float32', Float32Array.of(uniformLogit(ms.round)), [1]);
    return (await session.run({ features, prior }, ['logits'])).logits.data as Float32Array;
  };
}

async function loadBelief(modelUrl: string, manifestUrl: string, preferWasm: boolean): Promise<(ms: MatchState) => Promise<Float32Array>> {
  const response = await fetch(manifestUrl);
  if (!response.ok) throw new Error(`could not load the belief's manifest (HTTP ${response.status})`);
  const manifest = (await response.json()) as BeliefManifest;
  return beliefLogits((await createSession(modelUrl, preferWasm)).session, manifest);
}

/** The net's masked logits for a batch of positions (search.ts's rollouts). */
export function netLogits(session: ort.InferenceSession, manifest: Manifest): NetLogits {
  return async (positions) => {
    const out = (await session.run(batchFeeds(manifest, positions).feeds, ['logits'])).logits.data as Float32Array;
    return rowsOf(out, positions.length, N_ACTIONS);
  };
}

/** Create the ONNX session(s) of a checked agent (see agents.ts); `decide` acts for the seat to move,
 * by the net alone or, for an agent with a `search` entry, by the search on top of it (search.ts). */
export async function loadPolicy(agent: Agent, preferWasm = false): Promise<Policy> {
  if (!agent.manifest || agent.problem) throw new Error(`${agent.name}: ${agent.problem ?? 'no manifest'}`);
  const manifest = agent.manifest;
  configureRuntime();
  const { session, backend } = await createSession(agent.modelUrl, preferWasm);
  const { beliefUrl, beliefManifestUrl } = agent.search ?? {};
  const belief = beliefUrl && beliefManifestUrl ? await loadBelief(beliefUrl, beliefManifestUrl, preferWasm) : null;
  const net = async (positions: MatchState[]) => {
    const { feeds, masks } = batchFeeds(manifest, positions);
    const outputs = await session.run(feeds, ['probs']);
    return { masks, probs: rowsOf(outputs.probs.data as Float32Array, positions.length, N_ACTIONS) };
  };
  let queue: Promise<unknown> = Promise.resolve(); // one run at a time on the session (hints and moves may overlap)
  const queued = <A extends unknown[]>(run: (...args: A) => Promise<Decision>) => (...args: A): Promise<Decision> => {
    const result = queue.then(() => run(...args));
    queue = result.catch(() => undefined);
    return result;
  };
  const hint = queued(async (ms: MatchState) => {
    const start = performance.now();
    const { masks, probs } = await net([ms]);
    return { action: argmaxLegal(probs[0], masks[0]), probs: probs[0], mask: masks[0], latencyMs: performance.now() - start };
  });
  const search = agent.search;
  const bot = agent.bot;
  if (bot) {
    // a scripted bot moves (bots.ts); the net only gives the hints
    const decide = async (ms: MatchState, random: Random): Promise<Decision> => {
      const start = performance.now();
      const action = botMove(bot, ms, random);
      const probs = new Float32Array(N_ACTIONS);
      probs[action] = 1;
      return { action, probs, mask: legalMask(ms.round), latencyMs: performance.now() - start };
    };
    return { agent, manifest, backend, decide, hint };
  }
  const decide = search
    ? queued(async (ms: MatchState, random: Random) => {
        const start = performance.now();
        const { masks, probs } = await net([ms]);
        const decision = await searchDecision(ms, netLogits(session, manifest), belief, search.knobs, random);
        return { action: decision.action, probs: probs[0], mask: masks[0], latencyMs: performance.now() - start, search: decision };
      })
    : hint;
  return { agent, manifest, backend, decide, hint };
}
