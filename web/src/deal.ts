/** Random deals for new matches: three shuffled decks and three coins (SPEC §3). */
import { N_CARDS } from './cards';

export type Random = () => number; // uniform in [0, 1)

/** A generator's whole state: saved with a match in progress, so that a reloaded match draws the same numbers on. */
export interface RandomState {
  a: number;
}

/** mulberry32 over `state`, advanced in place: a tiny seeded generator (`?seed=N` replays the same deals). */
export function randomFrom(state: RandomState): Random {
  return () => {
    state.a = (state.a + 0x6d2b79f5) >>> 0;
    let t = state.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const seededRandom = (seed: number): Random => randomFrom({ a: seed >>> 0 });

export function cryptoRandom(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0] / 4294967296;
}

/** A uniformly shuffled copy of `items` (Fisher-Yates). */
export function shuffled<T>(items: readonly T[], random: Random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

export function shuffledDeck(random: Random): number[] {
  return shuffled(Array.from({ length: N_CARDS }, (_, i) => i), random);
}

export interface Deal {
  deckOrders: number[][];
  coins: number[];
  humanSeat: number;
}

export function randomDeal(random: Random): Deal {
  return {
    deckOrders: [shuffledDeck(random), shuffledDeck(random), shuffledDeck(random)],
    coins: [0, 1, 2].map(() => (random() < 0.5 ? 0 : 1)),
    humanSeat: random() < 0.5 ? 0 : 1,
  };
}
