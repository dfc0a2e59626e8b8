// The page's net and its belief in node, as the page runs them (web/src/policy.ts: onnxruntime-web
// on WebAssembly, one thread), for the search's experiments in TypeScript
// (js_net_search_bench.ts, js_realized.ts).
import { readFileSync } from 'node:fs';
import type { BeliefManifest } from '../../web/src/belief';
import { beliefLogits, configureRuntime, createSession, netLogits } from '../../web/src/policy';
import type { Manifest } from '../../web/src/policyContract';
import type { BeliefLogits, NetLogits } from '../../web/src/search';

const PUBLIC = new URL('../../web/public/', import.meta.url).pathname;
const session = async (file: string) => (await createSession(readFileSync(`${PUBLIC}${file}`), true)).session;
const json = (file: string) => JSON.parse(readFileSync(`${PUBLIC}${file}`, 'utf8'));

/** The net `<stem>.onnx` and, if `belief`, its belief `<stem>-belief.onnx` (each with its manifest beside it). */
export async function pageNet(stem = 'bc-ppo-xi6-bal2700', belief = true): Promise<{ net: NetLogits; belief: BeliefLogits }> {
  configureRuntime();
  const net = netLogits(await session(`${stem}.onnx`), json(`${stem}.json`) as Manifest);
  if (!belief) return { net, belief: null };
  return { net, belief: beliefLogits(await session(`${stem}-belief.onnx`), json(`${stem}-belief.json`) as BeliefManifest) };
}
