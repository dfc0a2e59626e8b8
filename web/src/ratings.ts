/**
 * The ladder's strengths: ratings.json beside index.html, written by Python
 * (`python -m lost_cities.tournament players=[...] ratings_out=web/public/ratings.json`):
 * a Bradley-Terry rating per player on the Elo scale from an all-play-all duplicate
 * tournament, with 95% intervals, and every pair's measured score. The page shows a level's
 * rating and says how it fares against the level below in a player's words.
 */
import { whole } from './format';

export const RATINGS_FORMAT = 'lost-cities-ratings';
export const RATINGS_VERSION = 1;
export const RATINGS_FILE = 'ratings.json';

export interface Rating {
  player: string;
  rating: number;
  lower: number;
  upper: number;
  se: number;
  games: number;
  /** The share of points it took over all its games: 0 (never scored) or 1 (never lost) leaves the fit only a bound. */
  score_rate?: number;
}

export interface PairScore {
  a: string;
  b: string;
  games: number;
  a_win_rate: number;
}

export interface Ratings {
  anchor: string;
  players: Map<string, Rating>;
  pairs: PairScore[];
  provenance: { command?: string; commit?: string; date?: string };
}

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Validate ratings.json; throws a message naming the problem. */
export function parseRatings(json: unknown): Ratings {
  const r = json as { format?: unknown; version?: unknown; anchor?: unknown; players?: unknown; pairs?: unknown; provenance?: unknown };
  if (!r || r.format !== RATINGS_FORMAT || r.version !== RATINGS_VERSION) {
    throw new Error(`${RATINGS_FILE} is not a ratings table this page reads (format ${JSON.stringify(r?.format)}, version ${JSON.stringify(r?.version)})`);
  }
  if (!Array.isArray(r.players) || !Array.isArray(r.pairs)) throw new Error(`${RATINGS_FILE} lists no players or pairs`);
  const players = new Map<string, Rating>();
  for (const row of r.players as Rating[]) {
    if (typeof row?.player !== 'string' || ![row.rating, row.lower, row.upper, row.se, row.games].every(isNumber)) {
      throw new Error(`${RATINGS_FILE}: a player row lacks its name, rating, interval, s.e. or games: ${JSON.stringify(row)}`);
    }
    players.set(row.player, row);
  }
  const pairs = (r.pairs as PairScore[]).map((pair) => {
    if (typeof pair?.a !== 'string' || typeof pair.b !== 'string' || !isNumber(pair.games) || !isNumber(pair.a_win_rate)) {
      throw new Error(`${RATINGS_FILE}: a pair lacks a, b, games or a_win_rate: ${JSON.stringify(pair)}`);
    }
    return pair;
  });
  return { anchor: String(r.anchor), players, pairs, provenance: (r.provenance ?? {}) as Ratings['provenance'] };
}

/** A rating as a player reads it: "1510 ± 20" (the 95% interval's half-width). A player that never scored
 * (or never lost) has no finite fit (its number comes from the tournament's weak prior): it reads
 * "below" the lowest (or "above" the highest) of the others, in hundreds. */
export function ratingText(ratings: Ratings, player: string): string {
  const rating = ratings.players.get(player);
  if (!rating) return 'rating not measured';
  const others = [...ratings.players.values()].filter((r) => r.player !== player).map((r) => r.rating);
  if (rating.score_rate === 0 && others.length) return `rating below ${Math.floor(Math.min(...others) / 100) * 100}`;
  if (rating.score_rate === 1 && others.length) return `rating above ${Math.ceil(Math.max(...others) / 100) * 100}`;
  const half = Math.round((rating.upper - rating.lower) / 2);
  return `rating ${whole(Math.round(rating.rating))}${half > 0 ? ` ± ${half}` : ''}`;
}

/** a's measured share of the points against b (a draw half), and the games it rests on; null if they did not meet. */
export function measuredScore(ratings: Ratings, a: string, b: string): { score: number; games: number } | null {
  for (const pair of ratings.pairs) {
    if (pair.a === a && pair.b === b) return { score: pair.a_win_rate, games: pair.games };
    if (pair.a === b && pair.b === a) return { score: 1 - pair.a_win_rate, games: pair.games };
  }
  return null;
}

const FRACTIONS: [number, number][] = [
  [1, 2], [1, 3], [2, 3], [1, 4], [3, 4], [1, 5], [2, 5], [3, 5], [4, 5], [1, 10], [3, 10], [7, 10], [9, 10], [1, 20], [19, 20], [1, 50], [49, 50],
]; // prettier-ignore

/** A share of matches in words a player reads at a glance: "3 of 4", "every", "no", "1 in 50". */
export function shareInWords(share: number): string {
  if (share >= 0.995) return 'every';
  if (share <= 0.005) return 'no';
  let best = FRACTIONS[0];
  for (const f of FRACTIONS) if (Math.abs(f[0] / f[1] - share) < Math.abs(best[0] / best[1] - share) - 1e-9) best = f;
  return best[0] === 1 && best[1] >= 20 ? `1 in ${best[1]}` : `${best[0]} of ${best[1]}`;
}

/** "Wins 3 of 4 matches against the Club player." from the measured pair (a = this level, b = the one named); near
 * even, the share itself: "Slightly ahead of the Expert: wins 53% of their matches." */
export function versusLine(score: number, name: string): string {
  const percent = Math.round(score * 100);
  if (percent === 50) return `As strong as the ${name}: wins half their matches.`;
  if (percent > 40 && percent < 60) return `Slightly ${percent > 50 ? 'ahead of' : 'behind'} the ${name}: wins ${percent}% of their matches.`;
  const words = shareInWords(score);
  if (words === 'every') return `Wins every match against the ${name}.`;
  if (words === 'no') return `Loses every match to the ${name}.`;
  return `Wins ${words} matches against the ${name}.`;
}

/** How level `i` of the ladder (beginner first) fares, measured head to head, against the level below it (the
 * lowest: against the one above), so that neighbours that read alike against a third level are told apart; '' if
 * the pair was not measured. */
export function versusNeighbour(ratings: Ratings, levels: { name: string; ratedAs: string }[], i: number): string {
  const other = levels[i > 0 ? i - 1 : 1];
  const measured = other ? measuredScore(ratings, levels[i].ratedAs, other.ratedAs) : null;
  return measured ? versusLine(measured.score, other.name) : '';
}

export async function loadRatings(baseUrl: string): Promise<Ratings> {
  const response = await fetch(new URL(RATINGS_FILE, baseUrl).href);
  if (!response.ok) throw new Error(`could not load ${RATINGS_FILE} (HTTP ${response.status})`);
  return parseRatings(await response.json());
}
