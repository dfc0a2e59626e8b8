/** Runs the exported ONNX policy in the browser with onnxruntime-web (WebGPU when available, else WASM);
 * a model whose manifest names `features` (af1) is also fed those rows, for its moves and the hints alike. */
import * as ort from 'onnxruntime-web';
import type { Agent } from './agents';
import { N_ACTIONS } from './cards';
import { legalMask } from './engine';
import type { MatchState } from './match';
import { type Manifest, argmaxLegal, inputsFor } from './policyContract';

export interface Decision {
  action: number;
  probs: Float32Array;
  mask: boolean[];
  latencyMs: number;
}

export interface Policy {
  agent: Agent;
  manifest: Manifest;
  backend: string;
  /** The policy's move for the seat to move in `ms` (the agent's own move, or a hint for the player). */
  decide: (ms: MatchState) => Promise<Decision>;
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

async function createSession(modelUrl: string, preferWasm: boolean) {
  if (!preferWasm && (await webgpuAvailable())) {
    try {
      return { session: await ort.InferenceSession.create(modelUrl, { executionProviders: ['webgpu'] }), backend: 'webgpu' };
    } catch (error) {
      console.warn('WebGPU session failed, using WebAssembly instead:', error);
    }
  }
  return { session: await ort.InferenceSession.create(modelUrl, { executionProviders: ['wasm'] }), backend: 'wasm' };
}

/** Create the ONNX session of a checked agent (see agents.ts); `decide` acts for the seat to move. */
export async function loadPolicy(agent: Agent, preferWasm = false): Promise<Policy> {
  if (!agent.manifest || agent.problem) throw new Error(`${agent.name}: ${agent.problem ?? 'no manifest'}`);
  const manifest = agent.manifest;
  const { observation: spec, features } = inputsFor(manifest);
  ort.env.logLevel = 'error'; // onnxruntime's start-up warnings (e.g. an unknown CPU vendor) are not the player's concern
  ort.env.wasm.numThreads = self.crossOriginIsolated ? Math.min(4, navigator.hardwareConcurrency) : 1;
  const { session, backend } = await createSession(agent.modelUrl, preferWasm);
  let queue: Promise<unknown> = Promise.resolve(); // one run at a time on the session (hints and moves may overlap)
  const run = async (ms: MatchState): Promise<Decision> => {
    const start = performance.now();
    const mask = legalMask(ms.round);
    const obs = spec.observe(ms, ms.round.toMove);
    const feeds: Record<string, ort.Tensor> = {
      obs: new ort.Tensor('float32', obs, [1, spec.dim]),
      mask: new ort.Tensor('float32', Float32Array.from(mask, Number), [1, N_ACTIONS]),
    };
    if (features) {
      // e.g. af1: the action feature rows of the same observation (actionFeatures.ts)
      const rows = features.compute(obs);
      for (const [name, shape] of Object.entries(features.inputs)) feeds[name] = new ort.Tensor('float32', rows[name], [1, ...shape]);
    }
    const outputs = await session.run(feeds, ['probs']);
    const probs = outputs.probs.data as Float32Array;
    return { action: argmaxLegal(probs, mask), probs, mask, latencyMs: performance.now() - start };
  };
  const decide = (ms: MatchState): Promise<Decision> => {
    const result = queue.then(() => run(ms));
    queue = result.catch(() => undefined);
    return result;
  };
  return { agent, manifest, backend, decide };
}
