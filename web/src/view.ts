/** Renders the whole page from the App's state (plain DOM strings; the table is small): the chooser, the table, the review. */
import { type Agent, describeStrength, playerName, seatName } from './agents';
import type { App } from './app';
import { COLOURS, deckView, expeditionRow, pileView } from './board';
import { DECK, DISCARD, N_DRAW_SOURCES, PLAY, cardColour } from './cards';
import { COLOUR_KEYS, COLOUR_NAMES, cardName, describeAction } from './describe';
import { LOC_KNOWN, type RoundState, boardScore, deckLeft, expeditionScore } from './engine';
import { points, signed, signedRound, whole } from './format';
import { drawHints, hintPercent, placeHints, slotHints } from './hints';
import { back, button, card, escapeHtml } from './html';
import { N_ROUNDS, type RoundSummary } from './match';
import { practiceLine, ratedAs } from './practice';
import { topActions } from './policyContract';
import { type Ratings, ratingText as ratingLine, versusNeighbour } from './ratings';
import { type OpponentRecord, meanMargin, opponentRecords, recordText } from './record';
import { reviewPage } from './reviewView';
import { capitalized, resultWords } from './reviewWords';

function median(values: number[]): number | null {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
}

const hintBadge = (p: number): string => `<span class="hint-badge ${p >= 0.3 ? 'strong' : ''}">${hintPercent(p)}</span>`;

/** The round on the board: the finished one while its summary is open (the next is dealt behind it), else the one in play. */
function boardRound(app: App): { round: RoundState; roundIdx: number } {
  const finished = app.overlay === 'round' ? app.summaries[app.summaries.length - 1] : null;
  return finished ? { round: finished.round, roundIdx: finished.roundIdx } : { round: app.ms.round, roundIdx: app.ms.roundIdx };
}

function centreRow(app: App, round: RoundState): string {
  const drawing = app.selectedPlace !== null && app.selectedSlot !== null;
  const can = (source: number) => drawing && app.canChoose(app.selectedSlot as number, app.selectedPlace, source);
  const piles = COLOURS.map((colour) => pileView(round, colour, can(colour + 1) ? `draw-${colour + 1}` : null));
  return `<div class="centre">${piles.join('')}${deckView(round, can(DECK) ? `draw-${DECK}` : null)}</div>`;
}

function agentHand(app: App, round: RoundState): string {
  const hand = round.hands[app.agentSeat];
  const known = hand.filter((id) => round.loc[id] === LOC_KNOWN + app.agentSeat);
  const cards = [...known.map((id) => card(id, 'small known')), ...Array(hand.length - known.length).fill(back('small'))];
  const caption = known.length ? `<span class="tag">face-up: taken from discard piles</span>` : '';
  return `<div class="hand agent-hand">${cards.join('')}</div>${caption}`;
}

function myHand(app: App, round: RoundState): string {
  const hint = app.visibleHint;
  const hints = hint ? slotHints(hint.decision.probs, hint.decision.mask) : null;
  const cards = round.hands[app.humanSeat].map((id, slot) => {
    const usable = app.canChoose(slot);
    const selected = app.selectedSlot === slot ? 'selected' : '';
    const badge = hints && usable ? hintBadge(hints[slot]) : '';
    return `<button class="card-button ${selected}" data-do="card-${slot}" data-testid="hand-${slot}" aria-label="${cardName(id)}" ${usable ? '' : 'disabled'}>${card(id)}${badge}</button>`;
  });
  return `<div class="hand my-hand ${hints ? 'hinted' : ''}" data-testid="my-hand">${cards.join('')}</div>`;
}

/** The hints toggle, beside the move buttons. */
function hintToggle(app: App): string {
  if (!app.policy || app.overlay || app.choosing || app.error || app.ms.done) return '';
  return `<button class="hint-toggle ${app.hintsOn ? 'on' : ''}" data-do="toggle-hints" data-testid="toggle-hints" aria-pressed="${app.hintsOn}" title="a strong player's odds for your moves (noted in the game log)">${app.hintsOn ? 'Hide hints' : 'Show hints'}</button>`;
}

/** When hints are on: whose they are and its three most probable moves for you. */
function hintList(app: App): string {
  if (!app.hintsOn || !app.policy || app.overlay || app.choosing || app.error || app.ms.done) return '';
  if (!app.humansTurn) return '<div class="hint-row muted">Hints appear on your turn.</div>';
  const hint = app.visibleHint;
  if (!hint) return '<div class="hint-row muted" data-testid="hints-pending">Computing hints…</div>';
  const top = topActions(hint.decision.probs, hint.decision.mask, 3);
  const rows = top.map(({ action, prob }) => `<li><b>${hintPercent(prob)}</b> ${describeAction(app.ms.round, action, true)}</li>`);
  return `<div class="hint-row"><div class="hints" data-testid="hints"><span class="hints-title">${escapeHtml(hintSource(app))}:</span><ol>${rows.join('')}</ol></div></div>`;
}

/** Whose moves the hints are, in a player's words: the level whose net gives them (a scripted level's or the Master's
 * hints are the Master's net at a glance, without its look-ahead). */
export function hintSource(app: Pick<App, 'policy' | 'agents'>): string {
  const agent = app.policy?.agent;
  if (!agent) return 'A strong player in your seat would';
  const own = !agent.bot && !agent.search && agent.level ? agent : undefined;
  const level = own ?? app.agents.find((a) => a.level && !a.bot && a.modelUrl === agent.modelUrl);
  if (!level?.level) return 'A strong player in your seat would';
  return level.search ? `The ${level.level.name} at a glance (without thinking ahead) would` : `The ${level.level.name} in your seat would`;
}

function errorBox(app: App): string {
  return app.error ? `<div class="error-box" data-testid="error">${escapeHtml(app.error)}</div>` : '';
}

function actionBar(app: App): string {
  const round = app.ms.round;
  if (app.error) return `<div class="actionbar error" data-testid="error">${escapeHtml(app.error)}</div>`;
  if (!app.policy) return `<div class="actionbar">${app.status}</div>`;
  if (app.overlay || app.choosing) return '<div class="actionbar"></div>';
  if (app.ms.done) return '<div class="actionbar">Match over.</div>';
  if (!app.humansTurn) return `<div class="actionbar waiting" data-testid="agent-thinking">The ${opponentName(app)} is thinking…</div>`;
  const hint = app.visibleHint;
  if (app.selectedSlot === null) return `<div class="actionbar" data-testid="prompt"><span class="prompt-text">Your turn: pick a card from your hand.</span></div>`;
  const slot = app.selectedSlot;
  const id = round.hands[app.humanSeat][slot];
  const colour = COLOUR_NAMES[cardColour(id)];
  if (app.selectedPlace === null) {
    const places = hint ? placeHints(hint.decision.probs, hint.decision.mask, slot) : null;
    const label = (text: string, place: number) => (places && app.canChoose(slot, place) ? `${text} ${hintBadge(places[place])}` : text);
    return `<div class="actionbar choices"><span class="prompt-text"><b>${cardName(id)}</b>:</span> ${button(label(`Play on your ${colour} expedition`, PLAY), 'place-play', app.canChoose(slot, PLAY))} ${button(label(`Discard to the ${colour} pile`, DISCARD), 'place-discard', app.canChoose(slot, DISCARD))} ${button('Cancel', 'cancel')}</div>`;
  }
  const verb = app.selectedPlace === PLAY ? 'Play' : 'Discard';
  const draws = hint ? drawHints(hint.decision.probs, hint.decision.mask, slot, app.selectedPlace) : null;
  const sources = [...Array(N_DRAW_SOURCES).keys()].map((source) => {
    const text = source === DECK ? `Deck (${deckLeft(round)})` : COLOUR_NAMES[source - 1];
    const enabled = app.canChoose(slot, app.selectedPlace, source);
    return button(draws && enabled ? `${text} ${hintBadge(draws[source])}` : text, `draw-${source}`, enabled, source === DECK ? '' : `class="pile-${COLOUR_KEYS[source - 1]}"`);
  });
  return `<div class="actionbar choices"><span class="prompt-text">${verb} <b>${cardName(id)}</b>, then draw from:</span> ${sources.join(' ')} ${button('Back', 'cancel')}</div>`;
}

const opponentName = (app: App) => escapeHtml(seatName(app.policy?.agent));

/** Finished rounds' scores, the current round's board score so far (in italics), '–' for rounds not begun. */
function roundTable(app: App, summaries: RoundSummary[], live = false): string {
  const name = (seat: number) => (seat === app.humanSeat ? 'You' : opponentName(app));
  const current = live && !app.ms.done && app.overlay !== 'round' && summaries.length < N_ROUNDS ? boardScore(app.ms.round) : null;
  const rows = [app.humanSeat, app.agentSeat].map((seat) => {
    const cells = [...Array(N_ROUNDS).keys()].map((r) => {
      if (r < summaries.length) return `<td>${signed(summaries[r].scores[seat])}</td>`;
      if (current && r === summaries.length) return `<td class="live" title="this round so far">${signed(current[seat])}</td>`;
      return '<td class="muted" title="not played yet">–</td>';
    });
    return `<tr><th>${name(seat)}</th>${cells.join('')}<td class="total">${whole(summaries.length ? summaries[summaries.length - 1].carry[seat] : 0)}</td></tr>`;
  });
  const head = `<tr><th></th>${[...Array(N_ROUNDS).keys()].map((r) => `<th>R${r + 1}</th>`).join('')}<th>Total</th></tr>`;
  return `<table class="rounds">${head}${rows.join('')}</table>`;
}

function colourBreakdown(app: App, round: RoundState, roundIdx: number): string {
  const head = `<tr><th></th>${COLOURS.map((c) => `<th class="c-${COLOUR_KEYS[c]}-text" title="${COLOUR_NAMES[c]}"><span class="long">${COLOUR_NAMES[c]}</span><span class="short">${COLOUR_NAMES[c].slice(0, 3)}</span></th>`).join('')}<th>R${roundIdx + 1}</th></tr>`;
  const rows = [app.humanSeat, app.agentSeat].map((seat) => {
    const cells = COLOURS.map((c) => (round.expCount[seat][c] ? signed(expeditionScore(round, seat, c)) : '–'));
    return `<tr><th>${seat === app.humanSeat ? 'You' : opponentName(app)}</th>${cells.map((x) => `<td>${x}</td>`).join('')}<td class="total">${signed(boardScore(round)[seat])}</td></tr>`;
  });
  return `<table class="rounds">${head}${rows.join('')}</table>`;
}

function overlay(app: App): string {
  if (!app.overlay) return '';
  const last = app.summaries[app.summaries.length - 1];
  const you = last.carry[app.humanSeat];
  const agent = last.carry[app.agentSeat];
  const name = opponentName(app);
  if (app.overlay === 'round') {
    const starter = last.nextStarter === app.humanSeat ? 'You start' : `The ${name} starts`;
    const why = last.tieBroken ? 'totals are tied, the coin decided' : 'more points so far';
    // narrower than a laptop the summary is a sheet under the board, which shows each expedition's score: the
    // scores by colour open on request there (style.css), beside the board they are always shown
    const shown = app.roundScoresShown;
    const toggle = button(shown ? 'Hide scores by colour' : 'Scores by colour', 'toggle-round-scores', true, `class="scores-toggle" aria-expanded="${shown}"`);
    return `<div class="overlay round-end ${shown ? 'scores-shown' : ''}" data-testid="round-summary"><div class="dialog"><h2>Round ${last.roundIdx + 1} finished</h2><div class="breakdown">${colourBreakdown(app, last.round, last.roundIdx)}</div><p>Match so far: You <b>${whole(you)}</b> · ${name} <b>${whole(agent)}</b></p><p>${starter} round ${last.roundIdx + 2} (${why}).</p><div class="buttons">${toggle}${button(`Start round ${last.roundIdx + 2}`, 'next-round', true, 'class="primary"')}</div></div></div>`;
  }
  const result = escapeHtml(resultWords(you, agent, seatName(app.policy?.agent)));
  return `<div class="overlay" data-testid="match-summary"><div class="dialog"><h2 data-testid="match-result">Match over: ${result}</h2><p class="muted">against the ${escapeHtml(playerName(app.policy?.agent))}</p>${colourBreakdown(app, last.round, last.roundIdx)}${roundTable(app, app.summaries)}<p class="final" data-testid="final-score" data-you="${you}" data-agent="${agent}">Final: You <b>${whole(you)}</b> · ${name} <b>${whole(agent)}</b></p>${recordLine(app, app.policy?.agent.id)}<div class="buttons">${button('Review this match', 'review-last', !!app.reviewer, 'class="primary"')} ${button('New match', 'new-match', true, 'class="primary"')} ${button(`Download game log (${app.games.length})`, 'download-log')}</div></div></div>`;
}

function recordLine(app: App, id: string | undefined): string {
  if (!id) return '';
  return `<p class="record-line" data-testid="record-line">Your record vs this opponent: ${recordText(opponentRecords(app.games).get(id))}</p>`;
}

function recordTable(app: App): string {
  const records = opponentRecords(app.games);
  if (records.size === 0) return '<p class="muted" data-testid="record-empty">No finished matches in this browser yet.</p>';
  const rows = [...records.values()].map((r) => {
    const name = app.agents.find((a) => a.id === r.key)?.label ?? r.name;
    return `<tr data-testid="record-${escapeHtml(r.key)}" data-played="${r.played}" data-wins="${r.wins}" data-draws="${r.draws}" data-losses="${r.losses}"><th>${escapeHtml(name)}</th><td>${r.wins}–${r.draws}–${r.losses}</td><td>${signedRound(meanMargin(r))}</td><td>${signed(r.best)} / ${signed(r.worst)}</td></tr>`;
  });
  return `<table class="record" data-testid="record"><tr><th>Opponent</th><th title="won–drawn–lost">W–D–L</th><th title="your mean margin">Mean</th><th title="your best / worst margin">Best / worst</th></tr>${rows.join('')}</table>`;
}

/** The agents of the ladder, beginner first (the index's order), and the others. */
export function ladder(agents: Agent[]): { levels: Agent[]; others: Agent[] } {
  return { levels: agents.filter((a) => a.level), others: agents.filter((a) => !a.level) };
}

const ratingOf = (ratings: Ratings | null, agent: Agent) => (agent.level && ratings ? (ratings.players.get(agent.level.ratedAs) ?? null) : null);

function ratingText(ratings: Ratings | null, agent: Agent): string {
  return agent.level && ratings ? ratingLine(ratings, agent.level.ratedAs) : 'rating not measured';
}

function levelOption(app: App, agent: Agent, levels: Agent[], records: Map<string, OpponentRecord>): string {
  const selected = agent.id === app.chosenId;
  const disabled = agent.problem !== null || app.loadingAgent !== null;
  const level = agent.level as NonNullable<Agent['level']>;
  const problem = agent.problem ? `<span class="warn">cannot be played here</span>` : '';
  const rating = ratingOf(app.ratings, agent);
  const range = rating ? ` title="95% confidence: ${whole(Math.round(rating.lower))} to ${whole(Math.round(rating.upper))}"` : '';
  return `<button class="opponent level ${selected ? 'selected' : ''}" data-do="opponent-${agent.id}" data-testid="opponent-${agent.id}" role="radio" aria-checked="${selected}" ${disabled ? 'disabled' : ''}>
    <span class="opponent-name"><span class="level-number">${levels.indexOf(agent) + 1}</span> ${escapeHtml(level.name)} <span class="rating" data-testid="rating-${agent.id}"${range}>${ratingText(app.ratings, agent)}</span>${problem}</span>
    <span class="opponent-about">${escapeHtml(level.about)} ${app.ratings ? escapeHtml(versusNeighbour(app.ratings, levels.map((a) => a.level!), levels.indexOf(agent))) : ''}</span>
    <span class="opponent-record" data-testid="level-record-${agent.id}">You: ${recordText(records.get(agent.id))}</span></button>`;
}

/** An opponent off the ladder: its label and a line in a player's words; its id, its manifest's name and what was
 * measured only in the tooltip and the technical details (training jargon). */
function opponentOption(app: App, agent: Agent, records: Map<string, OpponentRecord>): string {
  const selected = agent.id === app.chosenId;
  const disabled = agent.problem !== null || app.loadingAgent !== null;
  const problem = agent.problem ? ` <span class="warn">cannot be played here</span>` : '';
  const tooltip = `${agent.id}: ${agent.name}; ${agent.problem ?? describeStrength(agent.strength)}`;
  return `<button class="opponent ${selected ? 'selected' : ''}" data-do="opponent-${agent.id}" data-testid="opponent-${agent.id}" role="radio" aria-checked="${selected}" title="${escapeHtml(tooltip)}" ${disabled ? 'disabled' : ''}>
    <span class="opponent-name">${escapeHtml(agent.label)}${problem}</span>
    <span class="opponent-about">${escapeHtml(practiceLine(agent, app.agents, app.ratings))}</span>
    <span class="opponent-record">You: ${recordText(records.get(agent.id))}</span></button>`;
}

/** What each player is, in the project's terms (behind the chooser's technical details): the levels, then the others. */
function technicalDetails(app: App, agents: Agent[]): string {
  const rows = agents.map((agent) => {
    const player = app.ratings && ratedAs(agent, app.ratings);
    const rating = player ? app.ratings!.players.get(player) : undefined;
    const interval = rating ? `rated as ${player}: ${whole(Math.round(rating.rating))} [${whole(Math.round(rating.lower))}, ${whole(Math.round(rating.upper))}]` : 'not rated';
    const kind = agent.bot ? `scripted bot ${agent.bot} (hints by the net ${agent.manifest?.name ?? ''})` : agent.name;
    const problem = agent.problem ? `; cannot be played here: ${agent.problem}` : '';
    return `<li><b>${escapeHtml(agent.label)}</b>: ${escapeHtml(kind)}; id ${escapeHtml(agent.id)}; ${escapeHtml(interval)}; ${escapeHtml(describeStrength(agent.strength))}${escapeHtml(problem)}</li>`;
  });
  const prov = app.ratings?.provenance;
  const source = app.ratings
    ? `Ratings: Bradley-Terry on the Elo scale from an all-play-all duplicate tournament (anchor ${escapeHtml(app.ratings.anchor)} = 1500; ± is the 95% interval), ${escapeHtml(prov?.date ?? '')}, commit ${escapeHtml((prov?.commit ?? '').slice(0, 10))}.`
    : `Ratings not loaded${app.ratingsProblem ? `: ${escapeHtml(app.ratingsProblem)}` : ''}.`;
  return `<ul class="level-details">${rows.join('')}</ul><p class="muted">${source}</p>`;
}

/** The chooser: the page's own content (under the title), before the first match and after "New match". */
function chooser(app: App): string {
  if (app.agents.length === 0) return `<div class="chooser" data-testid="chooser-loading">${app.error ? errorBox(app) : `<p>${app.status}</p>`}</div>`;
  const records = opponentRecords(app.games);
  const { levels, others } = ladder(app.agents);
  const options = levels.map((agent) => levelOption(app, agent, levels, records)).join('');
  const more = others.map((agent) => opponentOption(app, agent, records)).join('');
  const inProgress = app.ms && !app.ms.done;
  const chosen = app.chosen;
  const chosenName = chosen?.label ?? '';
  const start = app.loadingAgent ? 'Loading…' : `${inProgress ? 'Start a new match' : 'Play'} against the ${escapeHtml(chosenName)}`;
  const cancel = inProgress ? button('Back to the match', 'close-chooser', !app.loadingAgent) : '';
  const details = app.chosen && !app.chosen.level ? ' open' : '';
  return `<div class="chooser" data-testid="chooser">
    <h2>Who do you want to play?</h2>
    <div class="opponents" role="radiogroup">${options}</div>
    <div class="buttons">${button(start, 'start-match', !app.loadingAgent && !!app.chosen && !app.chosen.problem, 'class="primary"')} ${cancel}</div>
    ${errorBox(app)}
    <p class="muted">A rating says how strong a level is: 200 points apart, the stronger wins about 3 of 4 matches; ± is how far the measured rating may be off (95% confidence). A match is 3 rounds. A coin picks who starts round 1, then whoever leads starts the next. During a match you can ask for hints; after it, a review shows where the ${escapeHtml(playerName(app.reviewer))} would have played differently.</p>
    ${app.games.length ? `<h3>Your matches</h3>${storedMatches(app)}` : ''}
    <details class="more" data-testid="details"${details}><summary>More opponents, and how the players were made</summary>
      ${others.length ? '<p class="muted">Practice opponents off the ladder, still playable:</p>' : ''}
      <div class="opponents" role="radiogroup">${more}</div>
      <details class="more" data-testid="technical"><summary>Technical details: what each player is, its id and how it was measured</summary>${technicalDetails(app, [...levels, ...others])}</details>
    </details>
  </div>`;
}

function probabilities(app: App): string {
  const move = app.lastAgentMove;
  if (!app.showProbs) return '';
  if (!move) return '<p class="muted">No move yet this round.</p>';
  if (!move.decision) return '<p class="muted">Not kept when the page was reloaded; shown again from its next move.</p>';
  const search = move.decision.search;
  if (search) {
    // the search's candidates: the net's probability of each, and its mean gain over its first choice in the worlds
    const rows = search.candidates.map((action, k) => {
      const gain = k === 0 ? 'first choice' : `${points(search.gains[k])} points`;
      return `<tr class="${k === search.chosen ? 'chosen' : ''}"><td>${describeAction(move.round, action)}</td><td>${(move.decision!.probs[action] * 100).toFixed(1)}%</td><td>${gain}</td></tr>`;
    });
    return `<table class="probs" data-testid="probs"><tr><th>move weighed</th><th>at a glance</th><th>thought through</th></tr>${rows.join('')}</table>`;
  }
  const top = topActions(move.decision.probs, move.decision.mask, 6);
  const rows = top.map(
    ({ action, prob }) =>
      `<tr class="${action === move.decision!.action ? 'chosen' : ''}"><td>${describeAction(move.round, action)}</td><td class="bar"><span style="width:${(prob * 100).toFixed(1)}%"></span></td><td>${(prob * 100).toFixed(1)}%</td></tr>`,
  );
  return `<table class="probs" data-testid="probs">${rows.join('')}</table>`;
}

function storedMatches(app: App): string {
  if (app.games.length === 0) return '';
  const rows = app.games
    .map((game, i) => ({ game, i }))
    .slice(-5)
    .reverse()
    .map(({ game, i }) => {
      const human = game.seats.indexOf('human');
      const agent = app.agents.find((a) => a.id === game.opponent?.id);
      const who = agent ? playerName(agent) : (game.opponent?.name ?? game.model?.name ?? 'an opponent');
      const result = capitalized(resultWords(game.final_carry[human], game.final_carry[1 - human], agent ? seatName(agent) : 'opponent'));
      return `<li>${escapeHtml(result)} against the ${escapeHtml(who)} ${button('Review', `review-game-${i}`, !!app.reviewer, `data-testid="review-game-${i}"`)}</li>`;
    });
  return `<ul class="stored" data-testid="stored-matches">${rows.join('')}</ul>`;
}

function sidePanel(app: App): string {
  const policy = app.policy;
  let model = 'Loading…';
  if (policy) {
    const m = median(app.latencies);
    const speed = m === null ? 'no move yet' : `median ${m.toFixed(1)} ms/move`;
    const placeholder = policy.manifest.placeholder ? ' <span class="warn">placeholder: random weights, not a trained agent</span>' : '';
    const agent = policy.agent;
    const rating = ratingText(app.ratings, agent);
    const about = agent.level ? `${escapeHtml(agent.level.about)} ${capitalized(rating)}.` : escapeHtml(practiceLine(agent, app.agents, app.ratings));
    model = `<b data-testid="opponent-name">${escapeHtml(playerName(agent))}</b>${placeholder}<br><small>${about}</small>
      <details class="more"><summary>Details</summary><small>${escapeHtml(agent.name)}<br>Measured: ${escapeHtml(describeStrength(agent.strength))}</small><br><small data-testid="agent-speed">obs ${escapeHtml(String(policy.manifest.obs_version))} · ${policy.backend} · ${speed}</small></details>`;
  }
  const probsToggle = policy?.agent.bot
    ? ''
    : `<label class="toggle"><input type="checkbox" data-do="toggle-probs" data-testid="toggle-probs" ${app.showProbs ? 'checked' : ''}> ${policy?.agent.search ? 'show the moves it weighed' : 'show its move probabilities'}</label>${probabilities(app)}`;
  return `<aside class="side">
    <section><h3>Opponent's last move</h3><p data-testid="agent-last-move">${escapeHtml(app.lastAgentMove?.text ?? 'No move yet this round.')}</p>
      ${probsToggle}</section>
    <section><h3>Match</h3>${roundTable(app, app.summaries, true)}</section>
    <section><h3>Opponent</h3><p class="model">${model}</p></section>
    <section><h3>Your record</h3>${recordTable(app)}</section>
    <section><h3>Your matches</h3><p>${app.games.length} finished match${app.games.length === 1 ? '' : 'es'} stored in this browser.</p>
      ${storedMatches(app)}
      ${button('Download game log', 'download-log', app.games.length > 0)} ${button('Clear', 'clear-log', app.games.length > 0)}</section>
    <section class="rules"><h3>Rules</h3><p>Place one card (play it on your expedition or discard it), then draw one (deck or a pile top; not the card you just discarded). Expeditions go up; wagers (W) only before numbers. Score: (sum − 20) × (1 + wagers), +20 bonus for 8+ cards. The round ends when the deck is empty; 3 rounds.</p></section>
  </aside>`;
}

const TITLE = '<h1>Lost Cities</h1>';

export function render(app: App): void {
  if (app.review) {
    app.root.innerHTML = `<header class="topbar">${TITLE}</header><div class="main">${reviewPage(app)}</div>`;
    return;
  }
  if (app.choosing || !app.ms) {
    app.root.innerHTML = `<header class="topbar">${TITLE}</header><div class="main chooser-page">${app.choosing || app.agents.length === 0 ? chooser(app) : `<div class="loading">${app.error ? errorBox(app) : app.status}</div>`}</div>`;
    return;
  }
  const { round, roundIdx } = boardRound(app);
  const turn = app.ms.done
    ? 'Match over'
    : app.overlay === 'round'
      ? 'Round over'
      : round.toMove === app.humanSeat
        ? '<span class="you">Your turn</span>'
        : `<span class="agent">${opponentName(app)}'s turn</span>`;
  const starter = app.overlay === 'round' ? null : app.ms.starter;
  const starterTag = (seat: number) => (starter === seat ? '<span class="tag">started this round</span>' : '');
  const carry = app.overlay === 'round' ? app.summaries[app.summaries.length - 1].carry : app.ms.carry;
  app.root.innerHTML = `
  <header class="topbar">
    ${TITLE}
    <span class="chip" data-testid="round">Round <b>${roundIdx + 1}</b> / ${N_ROUNDS}</span>
    <span class="chip" data-testid="carry"><span class="long">Match total: </span>You <b>${whole(carry[app.humanSeat])}</b> · ${opponentName(app)} <b>${whole(carry[app.agentSeat])}</b></span>
    <span class="chip" data-testid="deck-count">Deck <b>${deckLeft(round)}</b></span>
    <span class="chip turn" data-testid="turn">${turn}</span>
    <span class="spacer"></span>
    ${button('New match', 'new-match')}
  </header>
  <div class="main ${app.overlay === 'round' ? 'under-sheet' : ''}">
    <div class="table" data-testid="table">
      <div class="player-row"><span class="who agent" data-testid="board-opponent">${opponentName(app)}</span> ${agentHand(app, round)} ${starterTag(app.agentSeat)}</div>
      ${expeditionRow(round, app.agentSeat, 'agent')}
      ${centreRow(app, round)}
      ${expeditionRow(round, app.humanSeat, 'me')}
      <div class="player-row mine"><span class="who you">You</span>${starterTag(app.humanSeat)}${myHand(app, round)}</div>
      <div class="controls">${actionBar(app)}${hintToggle(app)}</div>
      ${hintList(app)}
    </div>
    ${sidePanel(app)}
  </div>
  ${overlay(app)}`;
  if (app.overlay === 'round') revealBoard(app);
}

/** The round summary whose board was last brought into view (once per summary: a re-render must not scroll). */
let revealed: RoundSummary | null = null;

/** Narrower than a laptop, the round's summary is a sheet at the window's bottom (style.css): when it opens (or is
 * restored by a reload), scroll the finished board's expeditions into the room above it; the player was looking at
 * the hand, below them. Beside the board (a laptop) the summary covers none of it and nothing moves. */
function revealBoard(app: App): void {
  const last = app.summaries[app.summaries.length - 1];
  if (last === revealed || typeof window === 'undefined') return;
  revealed = last;
  const box = (selector: string) => app.root.querySelector(selector)?.getBoundingClientRect();
  const [sheet, table, top, bottom] = ['[data-testid="round-summary"] .dialog', '.table', '[data-testid="expeditions-agent"]', '[data-testid="expeditions-me"]'].map(box);
  if (!sheet || !table || !top || !bottom || sheet.left > 0) return; // beside the board
  const margin = 6;
  if (top.top >= margin && bottom.bottom <= sheet.top - margin) return;
  // the whole table from its top if it fits above the sheet, else from the opponent's expeditions
  const from = bottom.bottom - table.top <= sheet.top - margin ? table.top : top.top - margin;
  window.scrollBy(0, from);
}
