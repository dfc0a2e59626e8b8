/**
 * "Your record": wins, draws, losses and margins against each opponent, from the finished
 * matches stored in this browser (the game log). Logs written before opponents had ids
 * are grouped by their model name.
 */
import { signedRound } from './format';
import type { GameRecord } from './gameLog';

export interface OpponentRecord {
  key: string; // the opponent's id (or "model:<name>" for older logs)
  name: string; // the name recorded with the latest of these matches
  played: number;
  wins: number;
  draws: number;
  losses: number;
  marginSum: number;
  best: number; // your largest margin (negative if you lost them all)
  worst: number;
  hinted: number; // matches in which you asked for hints
}

export const recordKey = (game: GameRecord): string => game.opponent?.id ?? `model:${game.model?.name ?? 'unknown'}`;

/** Your margin (your total minus the agent's) in a logged match, or null if the log has no human seat. */
export function humanMargin(game: GameRecord): number | null {
  const human = game.seats.indexOf('human');
  if (human < 0 || !Array.isArray(game.final_carry)) return null;
  return game.final_carry[human] - game.final_carry[1 - human];
}

/** One record per opponent, in order of first appearance. */
export function opponentRecords(games: readonly GameRecord[]): Map<string, OpponentRecord> {
  const records = new Map<string, OpponentRecord>();
  for (const game of games) {
    const margin = humanMargin(game);
    if (margin === null || !Number.isFinite(margin)) continue;
    const key = recordKey(game);
    const record = records.get(key) ?? { key, name: '', played: 0, wins: 0, draws: 0, losses: 0, marginSum: 0, best: -Infinity, worst: Infinity, hinted: 0 };
    record.name = game.opponent?.name ?? game.model?.name ?? key;
    record.played += 1;
    if (margin > 0) record.wins += 1;
    else if (margin < 0) record.losses += 1;
    else record.draws += 1;
    record.marginSum += margin;
    record.best = Math.max(record.best, margin);
    record.worst = Math.min(record.worst, margin);
    if (game.hints?.used) record.hinted += 1;
    records.set(key, record);
  }
  return records;
}

export const meanMargin = (record: OpponentRecord): number => record.marginSum / record.played;

/** A record in a line: "2 matches: 1 won · 0 drawn · 1 lost; mean margin +12; you asked for hints in 1 of them". */
export function recordText(record: OpponentRecord | undefined): string {
  if (!record) return 'no matches yet';
  const matches = `${record.played} match${record.played === 1 ? '' : 'es'}`;
  const which = record.hinted === record.played ? (record.played === 1 ? 'it' : 'all of them') : `${record.hinted} of them`;
  const hinted = record.hinted ? `; you asked for hints in ${which}` : '';
  return `${matches}: ${record.wins} won · ${record.draws} drawn · ${record.losses} lost; mean margin ${signedRound(meanMargin(record))}${hinted}`;
}
