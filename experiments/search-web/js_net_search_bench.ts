// What one decision of the page's search (web/src/search.ts) costs in the page's own stack
// (TypeScript engine and features, onnxruntime-web on WebAssembly, one thread), for
// web/README.md's "Search mode":
//   cd web && npm ci && npx vite-node ../experiments/search-web/js_net_search_bench.ts [WORLDS] [CANDIDATES] [POSITIONS] [uniform]
// Positions: every 7th ply of the net's greedy self-play (seeded deals), all rounds. At each,
// the search decides with WORLDS x CANDIDATES rollouts (default 32 x 4, the preset `belief`),
// its worlds dealt by the net's belief unless `uniform` is given.
import { randomDeal, seededRandom } from '../../web/src/deal';
import { legalMask } from '../../web/src/engine';
import { type MatchState, matchResetFrom, matchStep } from '../../web/src/match';
import { argmaxLegal } from '../../web/src/policyContract';
import { BELIEF_PRESET, searchDecision } from '../../web/src/search';
import { pageNet } from './js_net';

const [worlds, candidates, count, uniform] = process.argv.slice(2);
const knobs = { ...BELIEF_PRESET, worlds: Number(worlds) || 32, candidates: Number(candidates) || 4 };
const POSITIONS = Number(count) || 40;
const { net, belief } = await pageNet('bc-ppo-xi6-bal2700', uniform !== 'uniform');

const random = seededRandom(7);
const positions: MatchState[] = [];
while (positions.length < POSITIONS + 4) {
  const deal = randomDeal(random);
  let ms = matchResetFrom(deal.deckOrders, deal.coins);
  for (let ply = 0; !ms.done; ply++) {
    if (ply % 7 === 3) positions.push(ms);
    ms = matchStep(ms, argmaxLegal((await net([ms]))[0], legalMask(ms.round))).state;
  }
}
for (const ms of positions.slice(0, 4)) await searchDecision(ms, net, belief, knobs, random); // warm-up
const seconds: number[] = [];
for (const ms of positions.slice(4, 4 + POSITIONS)) {
  const t0 = performance.now();
  await searchDecision(ms, net, belief, knobs, random);
  seconds.push((performance.now() - t0) / 1000);
}
const sorted = [...seconds].sort((a, b) => a - b);
const mean = seconds.reduce((a, b) => a + b, 0) / seconds.length;
console.log(
  `${knobs.worlds} worlds x ${knobs.candidates} candidates, ${belief ? 'belief' : 'uniform'} worlds, ${seconds.length} positions: ` +
    `${mean.toFixed(2)} s per decision (mean), median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)}, ` +
    `90th percentile ${sorted[Math.floor(sorted.length * 0.9)].toFixed(2)}, max ${sorted[sorted.length - 1].toFixed(2)}`,
);
