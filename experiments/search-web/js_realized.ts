// What the page's search (web/src/search.ts) gains in play over the rest of a round, paired on
// the true deck: realized.py's measure, for the TypeScript port, so that the port can be
// compared with the Python search it copies (realized.py on the page's net with the preset
// `belief`: +3.65 (0.75) points a round over 800 positions, experiments/search-vs-net/README.md).
//   cd web && npm ci && npx vite-node ../experiments/search-web/js_realized.ts [POSITIONS] [WORLDS]
// From POSITIONS positions of the net's greedy self-play (every 5th ply, seeded deals, all
// rounds), the seat to move plays the rest of the round twice against the net: once as the
// net, once as the search (its worlds dealt by the net's belief). The per-position difference
// of its match points at the round's end is the search's realized gain there.
import { randomDeal, seededRandom } from '../../web/src/deal';
import { legalMask, step } from '../../web/src/engine';
import { type MatchState, matchResetFrom, matchStep } from '../../web/src/match';
import { argmaxLegal } from '../../web/src/policyContract';
import { BELIEF_PRESET, matchPoints, searchDecision } from '../../web/src/search';
import { pageNet } from './js_net';

const [count, worlds] = process.argv.slice(2).map(Number);
const POSITIONS = count || 100;
const knobs = { ...BELIEF_PRESET, worlds: worlds || BELIEF_PRESET.worlds };
const { net, belief } = await pageNet();
const netMove = async (ms: MatchState) => argmaxLegal((await net([ms]))[0], legalMask(ms.round));

/** The mover's match points at the round's end, it playing `mine` and the other seat the net. */
async function restOfRound(start: MatchState, mine: (ms: MatchState) => Promise<number>): Promise<number> {
  const me = start.round.toMove;
  let ms = start;
  while (!ms.round.done) {
    const action = ms.round.toMove === me ? await mine(ms) : await netMove(ms);
    ms = { ...ms, round: step(ms.round, action).state };
  }
  return matchPoints(start, ms.round, me);
}

const random = seededRandom(11);
const positions: MatchState[] = [];
while (positions.length < POSITIONS) {
  const deal = randomDeal(random);
  let ms = matchResetFrom(deal.deckOrders, deal.coins);
  for (let ply = 0; !ms.done && positions.length < POSITIONS; ply++) {
    if (ply % 5 === 2) positions.push(ms);
    ms = matchStep(ms, await netMove(ms)).state;
  }
}
const gains: number[] = [];
const t0 = performance.now();
for (const [i, ms] of positions.entries()) {
  const searchRandom = seededRandom(1000 + i);
  const searched = await restOfRound(ms, async (p) => (await searchDecision(p, net, belief, knobs, searchRandom)).action);
  gains.push(searched - (await restOfRound(ms, netMove)));
  if ((i + 1) % 25 === 0) console.log(`${i + 1} positions, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}
const mean = gains.reduce((a, b) => a + b, 0) / gains.length;
const se = Math.sqrt(gains.reduce((s, g) => s + (g - mean) ** 2, 0) / (gains.length - 1) / gains.length);
console.log(
  `search (${knobs.worlds} worlds x ${knobs.candidates}, belief) over the net: realized ${mean >= 0 ? '+' : ''}${mean.toFixed(2)} ` +
    `(s.e. ${se.toFixed(2)}) points a round over ${gains.length} positions, ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
console.log(JSON.stringify({ positions: gains.length, worlds: knobs.worlds, gain_mean: mean, gain_se: se, gains }));
