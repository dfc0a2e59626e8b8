/**
 * The match review's Web Worker (review.ts does the work): it loads the strongest player's
 * net and belief in its own onnxruntime sessions (WebAssembly, one thread) and reviews the
 * player's decisions one by one, posting each as it is done, so the page stays responsive.
 *
 *   page -> worker: ReviewRequest
 *   worker -> page: { type: 'started', total } then { type: 'decision', review, done, total } per decision,
 *                   then { type: 'done', seconds }, or { type: 'error', message }
 */
import * as ort from 'onnxruntime-web';
import type { BeliefManifest } from './belief';
import { seededRandom } from './deal';
import { beliefLogits, netLogits } from './policy';
import type { Manifest } from './policyContract';
import { pliesOf, replayPositions, reviewDecision } from './review';
import type { SearchKnobs } from './search';

export interface ReviewRequest {
  game: { deck_orders: number[][]; coins: number[]; actions: number[] };
  seat: number; // the player whose decisions are reviewed
  modelUrl: string;
  manifest: Manifest;
  beliefUrl: string | null;
  beliefManifest: BeliefManifest | null;
  knobs: SearchKnobs;
  seed: number;
}

const post = (message: unknown) => (self as unknown as Worker).postMessage(message);

async function review(request: ReviewRequest): Promise<void> {
  const start = performance.now();
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = 1;
  const options = { executionProviders: ['wasm'] };
  const net = netLogits(await ort.InferenceSession.create(request.modelUrl, options), request.manifest);
  const belief =
    request.beliefUrl && request.beliefManifest
      ? beliefLogits(await ort.InferenceSession.create(request.beliefUrl, options), request.beliefManifest)
      : null;
  const positions = replayPositions(request.game);
  const plies = pliesOf(positions, request.seat);
  post({ type: 'started', total: plies.length });
  const random = seededRandom(request.seed);
  for (const [i, ply] of plies.entries()) {
    const ms = positions[ply];
    const decision = await reviewDecision(ms, request.game.actions[ply], net, belief, request.knobs, random);
    post({ type: 'decision', review: { ply, roundIdx: ms.roundIdx, ...decision }, done: i + 1, total: plies.length });
  }
  post({ type: 'done', seconds: (performance.now() - start) / 1000 });
}

self.onmessage = (event: MessageEvent<ReviewRequest>) => {
  review(event.data).catch((error) => post({ type: 'error', message: error instanceof Error ? error.message : String(error) }));
};
