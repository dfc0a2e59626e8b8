/**
 * The 3-round match (SPEC §3), mirroring lost_cities/game/match.py: `coins[r]` is a seat;
 * round 1 is started by `coins[0]`, rounds 2 and 3 by the seat with more cumulative
 * points, on an exact tie by `coins[r]`.
 */
import { CONTRACT } from './contract';
import { type PerSeat, type RoundState, type StepResult, boardScore, resetFromOrder, step } from './engine';

export const N_ROUNDS = CONTRACT.match.n_rounds; // 3

export interface MatchState {
  deckOrders: number[][]; // [3][60]
  coins: number[]; // [3] seats
  round: RoundState; // the round being played (the finished round 3 once the match is done)
  roundIdx: number;
  carry: PerSeat<number>; // each seat's points from the finished rounds
  starter: number; // the seat that started the current round
  done: boolean;
}

export function matchResetFrom(deckOrders: number[][], coins: number[]): MatchState {
  if (deckOrders.length !== N_ROUNDS || coins.length !== N_ROUNDS || coins.some((c) => c !== 0 && c !== 1)) {
    throw new Error('a match needs three deck orders and three coins (seats 0 or 1)');
  }
  return {
    deckOrders: deckOrders.map((order) => [...order]),
    coins: [...coins],
    round: resetFromOrder(deckOrders[0], coins[0]),
    roundIdx: 0,
    carry: [0, 0],
    starter: coins[0],
    done: false,
  };
}

/** The seat that starts round `nextRound` (1 or 2) after a round that left `carry`. */
export function nextStarter(carry: PerSeat<number>, coins: number[], nextRound: number): number {
  if (carry[0] !== carry[1]) return carry[0] > carry[1] ? 0 : 1;
  return coins[nextRound];
}

export interface MatchStepResult extends StepResult<MatchState> {
  finishedRound: RoundState | null; // the round this action ended (already replaced in `state`), for summaries
}

/** Apply `action`; a round's last ply adds its board scores to the carry and deals the next round. */
export function matchStep(ms: MatchState, action: number): MatchStepResult {
  const played = step(ms.round, action);
  const roundEnded = played.done && !ms.round.done;
  if (!roundEnded) return { state: { ...ms, round: played.state }, reward: [0, 0], done: ms.done, finishedRound: null };
  const finishedRound = played.state;
  const scores = boardScore(finishedRound);
  const carry: PerSeat<number> = [ms.carry[0] + scores[0], ms.carry[1] + scores[1]];
  const nextRound = ms.roundIdx + 1;
  if (nextRound < N_ROUNDS) {
    const first = nextStarter(carry, ms.coins, nextRound);
    const state = { ...ms, round: resetFromOrder(ms.deckOrders[nextRound], first), roundIdx: nextRound, carry, starter: first };
    return { state, reward: [0, 0], done: false, finishedRound };
  }
  const state = { ...ms, round: finishedRound, carry, done: true };
  return { state, reward: [carry[0] - carry[1], carry[1] - carry[0]], done: true, finishedRound };
}

export const matchToMove = (ms: MatchState): number => ms.round.toMove;

/** A finished round as its summary shows it: the round's board, its scores, the match so far and who starts next. */
export interface RoundSummary {
  roundIdx: number;
  round: RoundState; // the finished round
  scores: PerSeat<number>;
  carry: PerSeat<number>;
  nextStarter: number | null; // seat starting the next round, null after round 3
  tieBroken: boolean; // the next starter was decided by the coin
}

/** The summary of `finishedRound` (round `roundIdx`), given the match state `after` the move that ended it. */
export function roundSummary(roundIdx: number, finishedRound: RoundState, after: MatchState): RoundSummary {
  return {
    roundIdx,
    round: finishedRound,
    scores: boardScore(finishedRound),
    carry: [...after.carry],
    nextStarter: after.done ? null : after.starter,
    tieBroken: !after.done && after.carry[0] === after.carry[1],
  };
}
