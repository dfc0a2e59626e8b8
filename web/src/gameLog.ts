/**
 * The log of played games: one JSON object per finished match, in the project's action
 * encoding, read back by `python -m lost_cities.replay` (lost_cities/cli/replay.py documents
 * the fields; LOG_VERSION must match its LOG_VERSION). `opponent` and `hints` are
 * additions the replay ignores (older logs lack them), so the version stays 1.
 */
import type { Strength } from './agents';
import type { PerSeat } from './engine';

export const LOG_FORMAT = 'lost-cities-game';
export const LOG_VERSION = 1;
const STORAGE_KEY = 'lost-cities-games-v1';

export interface GameRecord {
  format: typeof LOG_FORMAT;
  version: number;
  env: 'match3';
  deck_orders: number[][];
  coins: number[];
  seats: string[]; // who played seat 0 and seat 1
  actions: number[];
  round_scores: PerSeat<number>[];
  final_carry: PerSeat<number>;
  model: { name: string; obs_version: string; placeholder: boolean };
  /** The opponent chosen before the match: its id in agents.json, its name and measured strength. */
  opponent?: { id: string; name: string; strength: Strength | null };
  /** Whether the player asked for hints, and at which plies (indices into `actions`) hints were shown. */
  hints?: { used: boolean; plies: number[] };
  started_at: string;
  finished_at: string;
}

export function loadGames(): GameRecord[] {
  try {
    const games = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(games) ? games.filter((game) => game && game.format === LOG_FORMAT) : [];
  } catch {
    return [];
  }
}

export function saveGames(games: GameRecord[]): void {
  localStorage.setItem(STORAGE_KEY, JSON.stringify(games));
}

export const toJsonl = (games: GameRecord[]): string => games.map((game) => JSON.stringify(game)).join('\n') + '\n';

export function downloadJsonl(games: GameRecord[], filename = 'lost-cities-games.jsonl'): void {
  const url = URL.createObjectURL(new Blob([toJsonl(games)], { type: 'application/x-ndjson' }));
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
