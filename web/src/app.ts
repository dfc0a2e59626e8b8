/**
 * The page's controller: one match against the policy. Holds the match state, the
 * human's half-chosen move and the summaries, applies moves through the match engine and
 * re-renders the whole table after every change (the table is small).
 */
import { DISCARD, N_DRAW_SOURCES, PLAY, encodeAction } from './cards';
import { type Deal, type Random, randomDeal } from './deal';
import { describeAction } from './describe';
import { type PerSeat, type RoundState, boardScore, isLegal } from './engine';
import { type GameRecord, LOG_FORMAT, LOG_VERSION, downloadJsonl, loadGames, saveGames } from './gameLog';
import { type MatchState, matchResetFrom, matchStep } from './match';
import type { Decision, Policy } from './policy';
import { render } from './view';

export interface RoundSummary {
  roundIdx: number;
  round: RoundState; // the finished round
  scores: PerSeat<number>;
  carry: PerSeat<number>;
  nextStarter: number | null; // seat starting the next round, null after round 3
  tieBroken: boolean; // the next starter was decided by the coin
}

export interface AgentMove {
  text: string;
  decision: Decision;
  round: RoundState; // the position the agent decided in (for naming its alternatives)
}

export interface Settings {
  agentDelayMs: number;
  random: Random;
}

export class App {
  deal!: Deal;
  ms!: MatchState;
  actions: number[] = [];
  startedAt = '';
  selectedSlot: number | null = null;
  selectedPlace: number | null = null;
  lastAgentMove: AgentMove | null = null;
  summaries: RoundSummary[] = [];
  overlay: 'round' | 'match' | null = null;
  showProbs = false;
  thinking = false;
  games: GameRecord[] = loadGames();
  latencies: number[] = [];
  status = 'Loading the agent…';
  error: string | null = null;

  constructor(
    readonly root: HTMLElement,
    readonly settings: Settings,
    public policy: Policy | null = null,
  ) {}

  get humanSeat(): number {
    return this.deal.humanSeat;
  }

  get agentSeat(): number {
    return 1 - this.deal.humanSeat;
  }

  get humansTurn(): boolean {
    return this.policy !== null && !this.ms.done && this.overlay === null && this.ms.round.toMove === this.humanSeat && !this.thinking;
  }

  newMatch(): void {
    this.deal = randomDeal(this.settings.random);
    this.ms = matchResetFrom(this.deal.deckOrders, this.deal.coins);
    this.actions = [];
    this.startedAt = new Date().toISOString();
    this.summaries = [];
    this.overlay = null;
    this.lastAgentMove = null;
    this.clearSelection();
    this.update();
    this.maybeAgentTurn();
  }

  clearSelection(): void {
    this.selectedSlot = null;
    this.selectedPlace = null;
  }

  /** Whether the human may complete a move from the current selection with these choices. */
  canChoose(slot: number, place: number | null = null, drawSource: number | null = null): boolean {
    if (!this.humansTurn) return false;
    const places = place === null ? [PLAY, DISCARD] : [place];
    const sources = drawSource === null ? [...Array(N_DRAW_SOURCES).keys()] : [drawSource];
    return places.some((p) => sources.some((d) => isLegal(this.ms.round, encodeAction({ handSlot: slot, placeType: p, drawSource: d }))));
  }

  selectCard(slot: number): void {
    if (!this.canChoose(slot)) return;
    this.selectedSlot = this.selectedSlot === slot ? null : slot;
    this.selectedPlace = null;
    this.update();
  }

  choosePlace(place: number): void {
    if (this.selectedSlot === null || !this.canChoose(this.selectedSlot, place)) return;
    this.selectedPlace = place;
    this.update();
  }

  chooseDraw(drawSource: number): void {
    if (this.selectedSlot === null || this.selectedPlace === null) return;
    const action = encodeAction({ handSlot: this.selectedSlot, placeType: this.selectedPlace, drawSource });
    if (!this.humansTurn || !isLegal(this.ms.round, action)) return;
    this.clearSelection();
    this.apply(action);
    this.maybeAgentTurn();
  }

  /** Apply a legal move of the seat to move, recording it and any round end. */
  apply(action: number): void {
    const roundIdx = this.ms.roundIdx;
    const { state, finishedRound } = matchStep(this.ms, action);
    this.ms = state;
    this.actions.push(action);
    if (finishedRound) {
      const scores = boardScore(finishedRound);
      const last = this.ms.done;
      this.summaries.push({
        roundIdx,
        round: finishedRound,
        scores,
        carry: [...this.ms.carry],
        nextStarter: last ? null : this.ms.starter,
        tieBroken: !last && this.ms.carry[0] === this.ms.carry[1],
      });
      this.overlay = last ? 'match' : 'round';
      if (last) this.recordGame();
    }
    this.update();
  }

  continueAfterRound(): void {
    if (this.overlay !== 'round') return;
    this.overlay = null;
    this.lastAgentMove = null;
    this.update();
    this.maybeAgentTurn();
  }

  async maybeAgentTurn(): Promise<void> {
    if (!this.policy || this.ms.done || this.overlay !== null || this.ms.round.toMove !== this.agentSeat || this.thinking) {
      return;
    }
    this.thinking = true;
    this.update();
    try {
      const position = this.ms;
      const decision = await this.policy.decide(position);
      this.latencies.push(decision.latencyMs);
      await new Promise((resolve) => setTimeout(resolve, this.settings.agentDelayMs));
      this.thinking = false;
      if (this.ms !== position) {
        // A new match was started while the agent was thinking: its move belongs to the old one.
        this.maybeAgentTurn();
        return;
      }
      this.lastAgentMove = { text: `Agent ${describeAction(position.round, decision.action)}`, decision, round: position.round };
      this.apply(decision.action);
    } catch (error) {
      this.thinking = false;
      this.fail(error);
    }
  }

  recordGame(): void {
    const seats = [0, 1].map((seat) => (seat === this.humanSeat ? 'human' : 'agent'));
    const manifest = this.policy?.manifest;
    this.games.push({
      format: LOG_FORMAT,
      version: LOG_VERSION,
      env: 'match3',
      deck_orders: this.deal.deckOrders,
      coins: this.deal.coins,
      seats,
      actions: [...this.actions],
      round_scores: this.summaries.map((s) => s.scores),
      final_carry: [...this.ms.carry],
      model: { name: String(manifest?.name ?? 'unknown'), obs_version: String(manifest?.obs_version), placeholder: Boolean(manifest?.placeholder) },
      started_at: this.startedAt,
      finished_at: new Date().toISOString(),
    });
    saveGames(this.games);
  }

  downloadLog(): void {
    if (this.games.length > 0) downloadJsonl(this.games);
  }

  clearLog(): void {
    this.games = [];
    saveGames(this.games);
    this.update();
  }

  toggleProbs(): void {
    this.showProbs = !this.showProbs;
    this.update();
  }

  fail(error: unknown): void {
    this.error = error instanceof Error ? error.message : String(error);
    console.error(error);
    this.update();
  }

  update(): void {
    render(this);
  }
}
