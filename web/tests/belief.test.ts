/**
 * The belief's inputs and outputs against Python (tests/fixtures/belief.json, written by
 * `python -m lost_cities.cli.belief_fixture`): replaying the recorded matches through the
 * page's engine, what the page feeds the belief (its features bit for bit, its prior to
 * float32 rounding) and what the exported belief model says there (the flax logits) agree.
 */
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type BeliefManifest, beliefFeatures, beliefFeaturesDim, checkBeliefManifest, uniformLogit } from '../src/belief';
import { N_CARDS } from '../src/cards';
import { type MatchState, matchResetFrom, matchStep } from '../src/match';
import { beliefLogits, configureRuntime, createSession } from '../src/policy';

interface Game {
  deck_orders: number[][];
  coins: number[];
  actions: number[];
  plies: number[];
  features: string;
  prior: string;
  logits: string;
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/belief.json', import.meta.url), 'utf8')) as {
  format_version: number;
  moves: number;
  features_dim: number;
  games: Game[];
};
const floats = (b64: string): Float32Array => {
  const bytes = inflateSync(Buffer.from(b64, 'base64'));
  return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
};
const stem = new URL('../public/bc-ppo-xi6-bal2700-belief', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(`${stem}.json`, 'utf8')) as BeliefManifest;

/** The positions each game records (before `actions[plies[k]]`). */
function recorded(game: Game): MatchState[] {
  const out: MatchState[] = [];
  let ms = matchResetFrom(game.deck_orders, game.coins);
  game.actions.forEach((action, ply) => {
    if (game.plies.includes(ply)) out.push(ms);
    ms = matchStep(ms, action).state;
  });
  expect(ms.done).toBe(true);
  return out;
}

describe('the belief', () => {
  it("reads the shipped belief's manifest, and refuses one it cannot feed", () => {
    expect(fixture.format_version).toBe(1);
    expect(manifest.features_dim).toBe(beliefFeaturesDim(fixture.moves));
    expect(() => checkBeliefManifest(manifest)).not.toThrow();
    expect(() => checkBeliefManifest({ ...manifest, format: 'lost-cities-agents' })).toThrow(/not a belief model manifest/);
    expect(() => checkBeliefManifest({ ...manifest, features_dim: 512 })).toThrow(/1472 for 8 moves/);
  });

  it.each(fixture.games.map((game, i) => [i, game] as const))('game %i: the features and prior Python computes', (_, game) => {
    const features = floats(game.features);
    const prior = floats(game.prior);
    recorded(game).forEach((ms, k) => {
      const got = new Uint32Array(beliefFeatures(ms, fixture.moves).buffer);
      const want = new Uint32Array(features.buffer, features.byteOffset + k * fixture.features_dim * 4, fixture.features_dim);
      const index = got.findIndex((bits, i) => bits !== want[i]);
      expect(index < 0 ? 'none' : `index ${index}`, `position ${k}: first difference`).toBe('none');
      expect(Math.abs(uniformLogit(ms.round) - prior[k]), `position ${k}: prior`).toBeLessThan(1e-6);
    });
  });

  it("the exported model gives flax's logits on the page's inputs", async () => {
    configureRuntime();
    const logitsOf = beliefLogits((await createSession(readFileSync(`${stem}.onnx`), true)).session, manifest);
    let worst = 0;
    for (const game of fixture.games) {
      const want = floats(game.logits);
      const positions = recorded(game);
      for (const [k, ms] of positions.entries()) {
        const got = await logitsOf(ms);
        for (let card = 0; card < N_CARDS; card++) worst = Math.max(worst, Math.abs(got[card] - want[k * N_CARDS + card]));
      }
    }
    expect(worst).toBeLessThan(1e-4);
  }, 60_000);
});
