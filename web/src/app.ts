/**
 * The page's controller: the opponent chooser and one match against the chosen agent.
 * Holds the match state, the human's half-chosen move, hints and the summaries, applies
 * moves through the match engine, keeps the match in progress in the browser's storage
 * (savedMatch.ts) and re-renders the whole table after every change (the table is small)
 * with the `render` it is given (view.ts, wired by main.ts).
 */
import { type Agent, loadAgents, seatName } from './agents';
import { DISCARD, N_DRAW_SOURCES, PLAY, encodeAction } from './cards';
import { type Deal, type Random, type RandomState, randomDeal, randomFrom } from './deal';
import { describeAction } from './describe';
import { type RoundState, isLegal } from './engine';
import { type GameRecord, LOG_FORMAT, LOG_VERSION, downloadJsonl, loadGames, saveGames } from './gameLog';
import { type MatchState, type RoundSummary, matchResetFrom, matchStep, roundSummary } from './match';
import { type Decision, type Policy, loadPolicy } from './policy';
import { type Ratings, loadRatings } from './ratings';
import { type DecisionReview, REVIEW_KNOBS, replayPositions } from './review';
import type { ReviewRequest } from './reviewWorker';
import { type MatchStorage, type SavedMatch, clearSavedMatch, loadSavedMatch, replayMatch, saveMatch } from './savedMatch';

export interface AgentMove {
  text: string;
  decision: Decision | null; // null for a move replayed from the saved match (its probabilities are not kept)
  round: RoundState; // the position the agent decided in (for naming its alternatives)
}

export interface Settings {
  agentDelayMs: number;
  random: Random;
  preferWasm: boolean;
  baseUrl: string;
  preselect: string | null; // an agent id to preselect in the chooser (`?agent=ID`)
}

export interface Hint {
  ms: MatchState; // the position it was computed for
  decision: Decision;
}

const OPPONENT_KEY = 'lost-cities-opponent';

/** The browser's storage, or none where it is unavailable (private mode): the page then keeps nothing. */
function browserStorage(): MatchStorage | null {
  try {
    return localStorage;
  } catch {
    return null;
  }
}

/** A match under review: the player's decisions as the worker reviews them, and the decision on screen. */
export interface ReviewState {
  gameIndex: number; // into the stored games
  game: GameRecord;
  humanSeat: number;
  positions: MatchState[]; // before each ply
  decisions: DecisionReview[]; // in ply order, as the worker posts them
  total: number | null; // the player's decisions in the match
  step: number; // index into `decisions` of the decision on screen
  startedAt: number;
  seconds: number | null; // the whole review's time, once done
  error: string | null;
}

export class App {
  deal!: Deal;
  ms!: MatchState;
  matchRandom: RandomState = { a: 0 }; // the match's own random numbers (saved with it)
  actions: number[] = [];
  startedAt = '';
  selectedSlot: number | null = null;
  selectedPlace: number | null = null;
  lastAgentMove: AgentMove | null = null;
  summaries: RoundSummary[] = [];
  overlay: 'round' | 'match' | null = null;
  roundScoresShown = false; // the round summary's scores by colour, on request where it is a sheet under the board
  showProbs = false;
  thinking = false;
  games: GameRecord[] = loadGames();
  latencies: number[] = [];
  status = 'Loading the agents…';
  error: string | null = null;
  agents: Agent[] = [];
  chosenId: string | null = null; // the opponent selected in the chooser
  choosing = true; // the chooser is shown (before the first match and after "New match")
  loadingAgent: string | null = null; // the name of the agent whose model is being loaded
  policy: Policy | null = null; // the current match's opponent
  readonly policies = new Map<string, Promise<Policy>>();
  hintsOn = false;
  hint: Hint | null = null;
  hintPending: MatchState | null = null;
  hintSeenAt: MatchState | null = null; // the position at which a hint was last on screen
  hintedPlies: number[] = [];
  ratings: Ratings | null = null;
  ratingsProblem: string | null = null;
  review: ReviewState | null = null;
  reviewWorker: Worker | null = null;
  /** Per handled click or tap: ms from the input event to the end of its handling (e2e reads it). */
  inputLatencies: number[] = [];

  constructor(
    readonly root: HTMLElement,
    readonly settings: Settings,
    readonly render: (app: App) => void,
  ) {}

  get humanSeat(): number {
    return this.deal.humanSeat;
  }

  get agentSeat(): number {
    return 1 - this.deal.humanSeat;
  }

  get humansTurn(): boolean {
    return (
      this.policy !== null && !!this.ms && !this.ms.done && this.overlay === null && !this.choosing && !this.review && this.ms.round.toMove === this.humanSeat && !this.thinking
    );
  }

  get chosen(): Agent | undefined {
    return this.agents.find((agent) => agent.id === this.chosenId);
  }

  /** A match is under way: leaving the page would interrupt it (the page asks first). */
  get matchInProgress(): boolean {
    return !!this.ms && !this.ms.done && this.actions.length > 0;
  }

  /** Read agents.json and the manifests; resume the saved match if there is one, else preselect `?agent=`,
   * else the last opponent, else the index default. */
  async loadIndex(): Promise<void> {
    try {
      const { agents, defaultId } = await loadAgents(this.settings.baseUrl);
      this.agents = agents;
      const playable = agents.filter((agent) => !agent.problem);
      if (playable.length === 0) throw new Error(agents[0].problem ?? 'no playable agent');
      let last: string | null = null;
      try {
        last = localStorage.getItem(OPPONENT_KEY);
      } catch {
        last = null;
      }
      const preferred = [this.settings.preselect, last, defaultId].find((id) => playable.some((agent) => agent.id === id));
      this.chosenId = preferred ?? playable[0].id;
      this.status = '';
    } catch (error) {
      this.fail(error);
      return;
    }
    try {
      this.ratings = await loadRatings(this.settings.baseUrl);
    } catch (error) {
      this.ratingsProblem = error instanceof Error ? error.message : String(error); // the levels show no rating
    }
    const storage = browserStorage();
    const saved = storage && loadSavedMatch(storage);
    const agent = saved && this.agents.find((a) => a.id === saved.agentId && !a.problem);
    if (saved && agent) await this.resumeMatch(saved, agent);
    else this.update();
  }

  /** Continue the saved match where it stood (its opponent loaded first); a saved match this page cannot replay is dropped. */
  async resumeMatch(saved: SavedMatch, agent: Agent): Promise<void> {
    let replayed: ReturnType<typeof replayMatch>;
    try {
      replayed = replayMatch(saved.deal, saved.actions);
    } catch (error) {
      this.forgetMatch();
      this.fail(error);
      return;
    }
    this.chosenId = agent.id;
    this.loadingAgent = agent.name;
    this.update();
    try {
      this.policy = await this.policyFor(agent);
    } catch (error) {
      this.loadingAgent = null;
      this.fail(error);
      return;
    }
    const { positions, ms, summaries } = replayed;
    this.loadingAgent = null;
    this.deal = saved.deal;
    this.ms = ms;
    this.actions = [...saved.actions];
    this.matchRandom = { ...saved.random };
    this.summaries = summaries;
    this.overlay = saved.roundSummaryOpen && summaries.length > 0 ? 'round' : null;
    this.hintsOn = saved.hintsOn;
    this.hintedPlies = [...saved.hintedPlies];
    this.startedAt = saved.startedAt;
    // the opponent's last move in the round on the board (the finished one while its summary is open)
    const boardRoundIdx = this.overlay === 'round' ? ms.roundIdx - 1 : ms.roundIdx;
    const last = positions.map((p) => p.round.toMove).lastIndexOf(this.agentSeat);
    this.lastAgentMove =
      last >= 0 && positions[last].roundIdx === boardRoundIdx
        ? { text: `${seatName(agent)} ${describeAction(positions[last].round, saved.actions[last])}`, decision: null, round: positions[last].round }
        : null;
    this.clearSelection();
    this.choosing = false;
    this.update();
    this.maybeAgentTurn();
  }

  /** Keep the match in progress in the browser's storage (after every move and setting that a reload must restore). */
  saveProgress(): void {
    const storage = browserStorage();
    if (!storage || !this.ms || this.ms.done || !this.policy) return;
    try {
      saveMatch(storage, {
        version: 1,
        agentId: this.policy.agent.id,
        deal: this.deal,
        random: { ...this.matchRandom },
        actions: [...this.actions],
        hintsOn: this.hintsOn,
        hintedPlies: [...this.hintedPlies],
        roundSummaryOpen: this.overlay === 'round',
        startedAt: this.startedAt,
      });
    } catch {
      // storage full or unavailable: the match goes on, unsaved
    }
  }

  forgetMatch(): void {
    const storage = browserStorage();
    if (storage) clearSavedMatch(storage);
  }

  /** The agent whose search reviews matches: the index's search entry (the strongest player). */
  get reviewer(): Agent | undefined {
    return this.agents.find((agent) => agent.search && !agent.problem);
  }

  /** Review stored match `gameIndex` (default: the last) in a Web Worker; the page stays responsive meanwhile. */
  async startReview(gameIndex = this.games.length - 1): Promise<void> {
    const game = this.games[gameIndex];
    const reviewer = this.reviewer;
    if (!game || !reviewer?.manifest || !reviewer.search) return;
    this.stopReview();
    const humanSeat = game.seats.indexOf('human');
    let positions: MatchState[];
    try {
      positions = replayPositions(game);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.review = { gameIndex, game, humanSeat, positions, decisions: [], total: null, step: 0, startedAt: performance.now(), seconds: null, error: null };
    this.overlay = this.overlay === 'match' ? null : this.overlay;
    this.choosing = false;
    this.update();
    const { beliefUrl, beliefManifestUrl } = reviewer.search;
    let beliefManifest = null;
    if (beliefUrl && beliefManifestUrl) {
      const response = await fetch(beliefManifestUrl);
      if (response.ok) beliefManifest = await response.json();
    }
    const worker = new Worker(new URL('./reviewWorker.ts', import.meta.url), { type: 'module' });
    this.reviewWorker = worker;
    const review = this.review;
    worker.onmessage = (event) => {
      if (this.review !== review) return;
      const message = event.data;
      if (message.type === 'started') review.total = message.total;
      else if (message.type === 'decision') review.decisions.push(message.review);
      else if (message.type === 'done') {
        review.seconds = (performance.now() - review.startedAt) / 1000;
        worker.terminate();
        if (this.reviewWorker === worker) this.reviewWorker = null;
      } else if (message.type === 'error') {
        review.error = message.message;
        worker.terminate();
      }
      this.update();
    };
    worker.onerror = (event) => {
      review.error = event.message || 'the review worker failed';
      this.update();
    };
    const request: ReviewRequest = {
      game: { deck_orders: game.deck_orders, coins: game.coins, actions: game.actions },
      seat: humanSeat,
      modelUrl: reviewer.modelUrl,
      manifest: reviewer.manifest,
      beliefUrl: beliefManifest ? beliefUrl : null,
      beliefManifest,
      knobs: REVIEW_KNOBS,
      seed: gameIndex + 1,
    };
    worker.postMessage(request);
  }

  /** Stop a running review's worker (its decisions so far stay on screen). */
  stopReview(): void {
    this.reviewWorker?.terminate();
    this.reviewWorker = null;
  }

  closeReview(): void {
    this.stopReview();
    this.review = null;
    if (!this.ms || this.ms.done) this.choosing = true;
    this.update();
    this.maybeAgentTurn();
  }

  /** Step the review to another of the player's decisions (by offset, or to the one at `ply`). */
  reviewStep(delta: number): void {
    const review = this.review;
    if (!review || review.decisions.length === 0) return;
    review.step = Math.max(0, Math.min(review.decisions.length - 1, review.step + delta));
    this.update();
  }

  reviewGoto(ply: number): void {
    const review = this.review;
    const index = review?.decisions.findIndex((d) => d.ply === ply) ?? -1;
    if (!review || index < 0) return;
    review.step = index;
    this.update();
  }

  chooseOpponent(id: string): void {
    const agent = this.agents.find((a) => a.id === id);
    if (!agent || agent.problem || this.loadingAgent) return;
    this.chosenId = id;
    this.update();
  }

  openChooser(): void {
    this.choosing = true;
    this.update();
  }

  /** Close the chooser without starting a new match (only while a match is in progress). */
  closeChooser(): void {
    if (!this.ms || this.ms.done || this.loadingAgent) return;
    this.choosing = false;
    this.update();
    this.maybeAgentTurn();
  }

  policyFor(agent: Agent): Promise<Policy> {
    let policy = this.policies.get(agent.id);
    if (!policy) {
      policy = loadPolicy(agent, this.settings.preferWasm);
      this.policies.set(agent.id, policy);
      policy.catch(() => this.policies.delete(agent.id)); // a failed load may be retried
    }
    return policy;
  }

  /** Load the chosen opponent's model (once per page) and deal a new match against it. */
  async startMatch(): Promise<void> {
    const agent = this.chosen;
    if (!agent || agent.problem || this.loadingAgent) return;
    this.loadingAgent = agent.name;
    this.update();
    try {
      const policy = await this.policyFor(agent);
      this.loadingAgent = null;
      this.policy = policy;
      try {
        localStorage.setItem(OPPONENT_KEY, agent.id);
      } catch {
        // storage may be unavailable (private mode); the choice is then not remembered
      }
      this.choosing = false;
      this.newMatch();
    } catch (error) {
      this.loadingAgent = null;
      this.fail(error);
    }
  }

  newMatch(): void {
    this.deal = randomDeal(this.settings.random);
    this.matchRandom = { a: Math.floor(this.settings.random() * 2 ** 32) };
    this.ms = matchResetFrom(this.deal.deckOrders, this.deal.coins);
    this.actions = [];
    this.startedAt = new Date().toISOString();
    this.summaries = [];
    this.overlay = null;
    this.roundScoresShown = false;
    this.lastAgentMove = null;
    this.hint = null;
    this.hintSeenAt = null;
    this.hintedPlies = [];
    this.clearSelection();
    this.saveProgress();
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
    if (this.ms.round.toMove === this.humanSeat && this.hintSeenAt === this.ms) this.hintedPlies.push(this.actions.length);
    const { state, finishedRound } = matchStep(this.ms, action);
    this.ms = state;
    this.actions.push(action);
    if (finishedRound) {
      this.summaries.push(roundSummary(roundIdx, finishedRound, state));
      this.overlay = state.done ? 'match' : 'round';
      if (state.done) this.recordGame();
    }
    if (state.done) this.forgetMatch();
    else this.saveProgress();
    this.update();
  }

  continueAfterRound(): void {
    if (this.overlay !== 'round') return;
    this.overlay = null;
    this.roundScoresShown = false;
    this.lastAgentMove = null;
    this.saveProgress();
    this.update();
    this.maybeAgentTurn();
  }

  async maybeAgentTurn(): Promise<void> {
    if (!this.policy || !this.ms || this.ms.done || this.overlay !== null || this.choosing || this.review || this.ms.round.toMove !== this.agentSeat || this.thinking) {
      return;
    }
    this.thinking = true;
    this.update();
    try {
      const position = this.ms;
      const policy = this.policy;
      const decision = await policy.decide(position, randomFrom(this.matchRandom));
      this.latencies.push(decision.latencyMs);
      // the pause before the move is shown counts the agent's thinking (a search's move takes about 0.5 s)
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, this.settings.agentDelayMs - decision.latencyMs)));
      this.thinking = false;
      if (this.ms !== position || this.policy !== policy) {
        // A new match was started while the agent was thinking: its move belongs to the old one.
        this.maybeAgentTurn();
        return;
      }
      this.lastAgentMove = { text: `${seatName(this.policy?.agent)} ${describeAction(position.round, decision.action)}`, decision, round: position.round };
      this.apply(decision.action);
    } catch (error) {
      this.thinking = false;
      this.fail(error);
    }
  }

  recordGame(): void {
    const seats = [0, 1].map((seat) => (seat === this.humanSeat ? 'human' : 'agent'));
    const manifest = this.policy?.manifest;
    const agent = this.policy?.agent;
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
      opponent: agent ? { id: agent.id, name: agent.name, strength: agent.strength } : undefined,
      hints: { used: this.hintedPlies.length > 0, plies: [...this.hintedPlies] },
      started_at: this.startedAt,
      finished_at: new Date().toISOString(),
    });
    saveGames(this.games);
  }

  downloadLog(): void {
    if (this.games.length > 0) downloadJsonl(this.games);
  }

  clearLog(): void {
    if (this.review) this.closeReview();
    this.games = [];
    saveGames(this.games);
    this.update();
  }

  toggleRoundScores(): void {
    this.roundScoresShown = !this.roundScoresShown;
    this.update();
  }

  toggleProbs(): void {
    this.showProbs = !this.showProbs;
    this.update();
  }

  toggleHints(): void {
    this.hintsOn = !this.hintsOn;
    this.saveProgress();
    this.update();
  }

  /** The hint for the position on the table, if hints are on and it has been computed. */
  get visibleHint(): Hint | null {
    return this.hintsOn && this.humansTurn && this.hint?.ms === this.ms ? this.hint : null;
  }

  /** Ask the policy for the player's move probabilities (from the player's seat) when hints are on. */
  requestHint(): void {
    const policy = this.policy;
    const ms = this.ms;
    if (!policy || !this.hintsOn || !this.humansTurn || this.hint?.ms === ms || this.hintPending === ms) return;
    this.hintPending = ms;
    policy
      .hint(ms)
      .then((decision) => {
        if (this.hintPending === ms) this.hintPending = null;
        if (this.ms !== ms || this.policy !== policy) return;
        this.hint = { ms, decision };
        this.update();
      })
      .catch((error) => {
        this.hintPending = null;
        this.fail(error);
      });
  }

  fail(error: unknown): void {
    this.error = error instanceof Error ? error.message : String(error);
    console.error(error);
    this.update();
  }

  update(): void {
    this.requestHint();
    if (this.visibleHint) this.hintSeenAt = this.ms;
    this.render(this);
  }
}
