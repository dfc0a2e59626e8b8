// What one ply of a search rollout (the expert's move, then the engine's step) costs in the
// page's TypeScript, for web/README.md's note on a search mode:
//   cd web && npm ci && npx vite-node ../experiments/search/js_ply_bench.ts
// It plays 200 expert-vs-expert matches (after 60 to warm the JIT) through the page's own
// code path: the match observation, the expert's scores on the view, the engine's step.
import { randomDeal, seededRandom } from '../../web/src/deal';
import { matchResetFrom, matchStep, MatchState } from '../../web/src/match';
import { matchObservation } from '../../web/src/matchObservation';
import { viewState, matchContext, expertValues } from '../../web/src/actionFeatures';
import { legalMask } from '../../web/src/engine';

function expertMove(ms: MatchState): number {
  const mover = ms.round.toMove;
  const obs = matchObservation(ms, mover);
  const [roundIdx, lead] = matchContext(obs);
  const v = expertValues(viewState(obs), roundIdx, lead);
  const legal = legalMask(ms.round);
  let best = -1, bestV = -Infinity;
  for (let a = 0; a < 96; a++) if (legal[a] && v[a] > bestV) { bestV = v[a]; best = a; }
  return best;
}
const random = seededRandom(1);
let plies = 0;
const t0 = performance.now();
for (let g = 0; g < 60; g++) {
  const deal = randomDeal(random);
  let ms = matchResetFrom(deal.deckOrders, deal.coins);
  while (!ms.done) { ms = matchStep(ms, expertMove(ms)).state; plies++; }
}
const warm = performance.now();
const cpu0 = process.cpuUsage();
let plies2 = 0;
for (let g = 0; g < 200; g++) {
  const deal = randomDeal(random);
  let ms = matchResetFrom(deal.deckOrders, deal.coins);
  while (!ms.done) { ms = matchStep(ms, expertMove(ms)).state; plies2++; }
}
const us = ((performance.now() - warm) * 1000) / plies2;
const c = process.cpuUsage(cpu0);
const cpuUs = (c.user + c.system) / plies2;
console.log(`warm-up ${plies} plies; ${plies2} expert plies (observation + scores + step): ${us.toFixed(1)} us wall, ${cpuUs.toFixed(1)} us CPU per ply`);
