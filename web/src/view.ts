/** Renders the whole table from the App's state (plain DOM strings; the table is small). */
import { type Agent, describeStrength, playerName, seatName } from './agents';
import { type Ratings, measuredScore, ratingText as ratingLine, versusLine } from './ratings';
import { REVIEW_KNOBS, costliestFirst } from './review';
import type { App, RoundSummary } from './app';
import { DECK, DISCARD, N_COLOURS, N_DRAW_SOURCES, PLAY, cardColour, decodeAction } from './cards';
import { COLOUR_KEYS, COLOUR_NAMES, cardFace, cardName, describeAction } from './describe';
import { LOC_KNOWN, type RoundState, boardScore, deckLeft, expeditionCards, expeditionScore } from './engine';
import { type MatchState, N_ROUNDS } from './match';
import { drawHints, hintPercent, placeHints, slotHints } from './hints';
import { topActions } from './policyContract';
import { type OpponentRecord, meanMargin, opponentRecords } from './record';

const COLOURS = [...Array(N_COLOURS).keys()];
const REVIEW_WORLDS = REVIEW_KNOBS.worlds;

const card = (id: number, extra = ''): string =>
  `<div class="card c-${COLOUR_KEYS[cardColour(id)]} ${extra}" title="${cardName(id)}"><span class="corner">${cardFace(id)}</span><span class="face">${cardFace(id)}</span></div>`;

const back = (): string => '<div class="card back"></div>';

const signed = (n: number): string => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');
const matchPoints = (n: number): string => (n < 0 ? `−${-n}` : String(n));

const button = (label: string, action: string, enabled = true, extra = ''): string =>
  `<button data-do="${action}" data-testid="${action}" ${enabled ? '' : 'disabled'} ${extra}>${label}</button>`;

function median(values: number[]): number | null {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const hintBadge = (p: number): string => `<span class="hint-badge ${p >= 0.3 ? 'strong' : ''}">${hintPercent(p)}</span>`;

function expeditionRow(round: RoundState, seat: number, side: 'agent' | 'me'): string {
  const columns = COLOURS.map((colour) => {
    const cards = expeditionCards(round, seat, colour);
    const score = cards.length ? expeditionScore(round, seat, colour) : null;
    const scoreLabel = `<div class="exp-score ${score !== null && score < 0 ? 'neg' : ''}">${score === null ? '' : signed(score)}</div>`;
    const stack = `<div class="stack">${cards.map((id) => card(id)).join('')}</div>`;
    return `<div class="exp c-${COLOUR_KEYS[colour]}-zone">${side === 'agent' ? stack + scoreLabel : scoreLabel + stack}</div>`;
  });
  return `<div class="expeditions ${side}" data-testid="expeditions-${side}">${columns.join('')}<div class="exp-total">${signed(boardScore(round)[seat])}<small>this round</small></div></div>`;
}

function centreRow(app: App): string {
  const round = app.ms.round;
  const drawing = app.selectedPlace !== null && app.selectedSlot !== null;
  const piles = COLOURS.map((colour) => {
    const pile = round.piles[colour];
    const top = pile.length ? card(pile[pile.length - 1]) : `<div class="card empty c-${COLOUR_KEYS[colour]}-empty"></div>`;
    const source = colour + 1;
    const can = drawing && app.canChoose(app.selectedSlot as number, app.selectedPlace, source);
    return `<div class="pile ${can ? 'drawable' : ''}" ${can ? `data-do="draw-${source}"` : ''} title="${COLOUR_NAMES[colour]} discard pile">${top}<div class="count">${pile.length ? `${pile.length} card${pile.length > 1 ? 's' : ''}` : 'empty'}</div></div>`;
  });
  const canDeck = drawing && app.canChoose(app.selectedSlot as number, app.selectedPlace, DECK);
  const deck = `<div class="pile deck ${canDeck ? 'drawable' : ''}" ${canDeck ? 'data-do="draw-0"' : ''} data-testid="deck">${deckLeft(round) ? back() : '<div class="card empty"></div>'}<div class="count"><b>${deckLeft(round)}</b> in deck</div></div>`;
  return `<div class="centre">${piles.join('')}${deck}</div>`;
}

function agentHand(app: App): string {
  const round = app.ms.round;
  const hand = round.hands[app.agentSeat];
  const known = hand.filter((id) => round.loc[id] === LOC_KNOWN + app.agentSeat);
  const cards = [...known.map((id) => card(id, 'small known')), ...Array(hand.length - known.length).fill(back().replace('back', 'back small'))];
  const caption = known.length ? `<span class="tag">face-up: taken from discard piles</span>` : '';
  return `<div class="hand agent-hand">${cards.join('')}</div>${caption}`;
}

function myHand(app: App): string {
  const round = app.ms.round;
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

/** The hint row: the toggle, and when on, the agent's three most probable moves for you. */
function hintPanel(app: App): string {
  if (!app.policy || app.overlay || app.choosing || app.error || app.ms.done) return '';
  const toggle = `<button class="hint-toggle ${app.hintsOn ? 'on' : ''}" data-do="toggle-hints" data-testid="toggle-hints" aria-pressed="${app.hintsOn}">${app.hintsOn ? 'Hide hints' : 'Show hints'}</button>`;
  if (!app.hintsOn) return `<div class="hint-row">${toggle}<span class="muted">a strong player's odds for your moves (noted in the game log)</span></div>`;
  if (!app.humansTurn) return `<div class="hint-row">${toggle}<span class="muted">Hints appear on your turn.</span></div>`;
  const hint = app.visibleHint;
  if (!hint) return `<div class="hint-row">${toggle}<span class="muted" data-testid="hints-pending">Computing hints…</span></div>`;
  const top = topActions(hint.decision.probs, hint.decision.mask, 3);
  const rows = top.map(({ action, prob }) => `<li><b>${hintPercent(prob)}</b> ${describeAction(app.ms.round, action, true)}</li>`);
  return `<div class="hint-row">${toggle}<div class="hints" data-testid="hints"><span class="hints-title">${escapeHtml(hintSource(app))} in your seat would:</span><ol>${rows.join('')}</ol></div></div>`;
}

/** Whose moves the hints are: the net of the level that plays it alone (a bot's or a search's hints come from a net). */
function hintSource(app: App): string {
  const agent = app.policy?.agent;
  if (!agent) return 'The agent';
  if (!agent.bot && !agent.search) return `The ${playerName(agent)}`;
  const net = app.agents.find((a) => a.modelUrl === agent.modelUrl && !a.bot && !a.search);
  return net ? `The ${playerName(net)}` : 'The net';
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
  if (!app.humansTurn) return '<div class="actionbar waiting" data-testid="agent-thinking">Agent is thinking…</div>';
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
    const text = source === DECK ? `Deck (${deckLeft(round)})` : `${COLOUR_NAMES[source - 1]} pile`;
    const enabled = app.canChoose(slot, app.selectedPlace, source);
    return button(draws && enabled ? `${text} ${hintBadge(draws[source])}` : text, `draw-${source}`, enabled);
  });
  return `<div class="actionbar choices"><span class="prompt-text">${verb} <b>${cardName(id)}</b>, then draw from:</span> ${sources.join(' ')} ${button('Back', 'cancel')}</div>`;
}

const opponentName = (app: App) => escapeHtml(seatName(app.policy?.agent));

/** Finished rounds' scores, the current round's board score so far (in italics), '–' for rounds not begun. */
function roundTable(app: App, summaries: RoundSummary[], live = false): string {
  const name = (seat: number) => (seat === app.humanSeat ? 'You' : opponentName(app));
  const current = live && !app.ms.done && summaries.length < N_ROUNDS ? boardScore(app.ms.round) : null;
  const rows = [app.humanSeat, app.agentSeat].map((seat) => {
    const cells = [...Array(N_ROUNDS).keys()].map((r) => {
      if (r < summaries.length) return `<td>${signed(summaries[r].scores[seat])}</td>`;
      if (current && r === summaries.length) return `<td class="live" title="this round so far">${signed(current[seat])}</td>`;
      return '<td class="muted" title="not played yet">–</td>';
    });
    return `<tr><th>${name(seat)}</th>${cells.join('')}<td class="total">${summaries.length ? summaries[summaries.length - 1].carry[seat] : 0}</td></tr>`;
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
  if (app.overlay === 'round') {
    const starter = last.nextStarter === app.humanSeat ? 'You start' : 'The agent starts';
    const why = last.tieBroken ? 'totals are tied, the coin decided' : 'more points so far';
    return `<div class="overlay" data-testid="round-summary"><div class="dialog"><h2>Round ${last.roundIdx + 1} finished</h2>${colourBreakdown(app, last.round, last.roundIdx)}<p>Match so far: You <b>${you}</b> · Agent <b>${agent}</b></p><p>${starter} round ${last.roundIdx + 2} (${why}).</p>${button(`Start round ${last.roundIdx + 2}`, 'next-round', true, 'class="primary"')}</div></div>`;
  }
  const verdict = you === agent ? 'Draw' : you > agent ? `You win by ${you - agent}` : `The agent wins by ${agent - you}`;
  const opponent = escapeHtml(playerName(app.policy?.agent));
  return `<div class="overlay" data-testid="match-summary"><div class="dialog"><h2>Match over: ${verdict}</h2><p class="muted">against the ${opponent}</p>${colourBreakdown(app, last.round, last.roundIdx)}${roundTable(app, app.summaries)}<p class="final" data-testid="final-score" data-you="${you}" data-agent="${agent}">Final: You <b>${you}</b> · Agent <b>${agent}</b></p>${recordLine(app, app.policy?.agent.id)}<div class="buttons">${button('Review this match', 'review-last', !!app.reviewer, 'class="primary"')} ${button('New match', 'new-match', true, 'class="primary"')} ${button(`Download game log (${app.games.length})`, 'download-log')}</div></div></div>`;
}

function recordText(record: OpponentRecord | undefined): string {
  if (!record) return 'no matches yet';
  const matches = `${record.played} match${record.played === 1 ? '' : 'es'}`;
  const hinted = record.hinted ? `, hints in ${record.hinted}` : '';
  return `${matches}: ${record.wins} won · ${record.draws} drawn · ${record.losses} lost; mean margin ${signed(Math.round(meanMargin(record)))}${hinted}`;
}

function recordLine(app: App, id: string | undefined): string {
  if (!id) return '';
  return `<p class="record-line" data-testid="record-line">Your record vs this opponent: ${recordText(opponentRecords(app.games).get(id))}</p>`;
}

function recordTable(app: App): string {
  const records = opponentRecords(app.games);
  if (records.size === 0) return '<p class="muted" data-testid="record-empty">No finished matches in this browser yet.</p>';
  const rows = [...records.values()].map((r) => {
    const agent = app.agents.find((a) => a.id === r.key);
    const name = agent?.level?.name ?? agent?.name ?? r.name;
    return `<tr data-testid="record-${escapeHtml(r.key)}" data-played="${r.played}" data-wins="${r.wins}" data-draws="${r.draws}" data-losses="${r.losses}"><th>${escapeHtml(name)}</th><td>${r.wins}–${r.draws}–${r.losses}</td><td>${signed(Math.round(meanMargin(r)))}</td><td>${signed(r.best)} / ${signed(r.worst)}</td></tr>`;
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

/** How a level fares, measured head to head, against the reference level (the one rated as the ratings' anchor,
 * the Club player); the reference itself against the level below it. */
function versusText(ratings: Ratings | null, agent: Agent, levels: Agent[]): string {
  if (!ratings || !agent.level) return '';
  const reference = levels.find((a) => a.level?.ratedAs === ratings.anchor);
  const i = levels.indexOf(agent);
  const other = agent === reference || !reference ? levels[i > 0 ? i - 1 : 1] : reference;
  if (!other?.level) return '';
  const measured = measuredScore(ratings, agent.level.ratedAs, other.level.ratedAs);
  return measured ? versusLine(measured.score, other.level.name) : '';
}

function levelOption(app: App, agent: Agent, levels: Agent[], records: Map<string, OpponentRecord>): string {
  const selected = agent.id === app.chosenId;
  const disabled = agent.problem !== null || app.loadingAgent !== null;
  const level = agent.level as NonNullable<Agent['level']>;
  const problem = agent.problem ? `<span class="warn">cannot be played here</span>` : '';
  return `<button class="opponent level ${selected ? 'selected' : ''}" data-do="opponent-${agent.id}" data-testid="opponent-${agent.id}" role="radio" aria-checked="${selected}" ${disabled ? 'disabled' : ''}>
    <span class="opponent-name"><span class="level-number">${levels.indexOf(agent) + 1}</span> ${escapeHtml(level.name)} <span class="rating" data-testid="rating-${agent.id}">${ratingText(app.ratings, agent)}</span>${problem}</span>
    <span class="opponent-about">${escapeHtml(level.about)} ${escapeHtml(versusText(app.ratings, agent, levels))}</span>
    <span class="opponent-record" data-testid="level-record-${agent.id}">You: ${recordText(records.get(agent.id))}</span></button>`;
}

function opponentOption(app: App, agent: Agent, records: Map<string, OpponentRecord>): string {
  const selected = agent.id === app.chosenId;
  const disabled = agent.problem !== null || app.loadingAgent !== null;
  const strength = agent.problem ? `<span class="warn">cannot be played here: ${escapeHtml(agent.problem)}</span>` : escapeHtml(describeStrength(agent.strength));
  const placeholder = agent.manifest?.placeholder ? ' <span class="warn">placeholder: random weights</span>' : '';
  return `<button class="opponent ${selected ? 'selected' : ''}" data-do="opponent-${agent.id}" data-testid="opponent-${agent.id}" role="radio" aria-checked="${selected}" ${disabled ? 'disabled' : ''}>
    <span class="opponent-name">${escapeHtml(agent.name)}${placeholder}</span>
    <span class="opponent-strength">Measured: ${strength}</span>
    <span class="opponent-record">You: ${recordText(records.get(agent.id))}</span></button>`;
}

/** What each level is, in the project's terms (behind the chooser's "details"). */
function levelDetails(app: App, levels: Agent[]): string {
  const rows = levels.map((agent) => {
    const rating = ratingOf(app.ratings, agent);
    const interval = rating ? `${Math.round(rating.rating)} [${Math.round(rating.lower)}, ${Math.round(rating.upper)}]` : 'not rated';
    const kind = agent.bot ? `scripted bot ${agent.bot} (hints by the net ${agent.manifest?.name ?? ''})` : agent.name;
    return `<li><b>${escapeHtml(agent.level?.name ?? agent.id)}</b>: ${escapeHtml(kind)}; id ${escapeHtml(agent.id)}; rated as ${escapeHtml(agent.level?.ratedAs ?? '')}: ${interval}; ${escapeHtml(describeStrength(agent.strength))}</li>`;
  });
  const prov = app.ratings?.provenance;
  const source = app.ratings
    ? `Ratings: Bradley-Terry on the Elo scale from an all-play-all duplicate tournament (anchor ${escapeHtml(app.ratings.anchor)} = 1500; ± is the 95% interval), ${escapeHtml(prov?.date ?? '')}, commit ${escapeHtml((prov?.commit ?? '').slice(0, 10))}.`
    : `Ratings not loaded${app.ratingsProblem ? `: ${escapeHtml(app.ratingsProblem)}` : ''}.`;
  return `<ul class="level-details">${rows.join('')}</ul><p class="muted">${source}</p>`;
}

function chooser(app: App): string {
  if (!app.choosing) return '';
  if (app.agents.length === 0) {
    return `<div class="overlay"><div class="dialog chooser">${app.error ? errorBox(app) : `<p>${app.status}</p>`}</div></div>`;
  }
  const records = opponentRecords(app.games);
  const { levels, others } = ladder(app.agents);
  const options = levels.map((agent) => levelOption(app, agent, levels, records)).join('');
  const more = others.map((agent) => opponentOption(app, agent, records)).join('');
  const inProgress = app.ms && !app.ms.done;
  const chosen = app.chosen;
  const chosenName = chosen?.level?.name ?? chosen?.name ?? '';
  const start = app.loadingAgent ? 'Loading…' : `${inProgress ? 'Start a new match' : 'Play'} against the ${escapeHtml(chosenName)}`;
  const cancel = inProgress ? button('Back to the match', 'close-chooser', !app.loadingAgent) : '';
  const details = app.chosen && !app.chosen.level ? ' open' : '';
  return `<div class="overlay" data-testid="chooser"><div class="dialog chooser">
    <h2>Who do you want to play?</h2>
    <div class="opponents" role="radiogroup">${options}</div>
    <div class="buttons">${button(start, 'start-match', !app.loadingAgent && !!app.chosen && !app.chosen.problem, 'class="primary"')} ${cancel}</div>
    ${errorBox(app)}
    ${app.games.length ? `<h3>Your matches</h3>${storedMatches(app)}` : ''}
    <p class="muted">A match is 3 rounds. A coin picks who starts round 1, then whoever leads starts the next. During a match you can ask for hints; after it, a review shows where the ${escapeHtml(playerName(app.reviewer))} would have played differently. Ratings: 200 points apart, the stronger wins about 3 of 4 matches.</p>
    <details class="more" data-testid="details"${details}><summary>Details: how the levels play and were measured, and more players</summary>
      ${levelDetails(app, levels)}
      <div class="opponents" role="radiogroup">${more}</div>
    </details>
  </div></div>`;
}

function probabilities(app: App): string {
  const move = app.lastAgentMove;
  if (!app.showProbs) return '';
  if (!move) return '<p class="muted">No agent move yet this round.</p>';
  const search = move.decision.search;
  if (search) {
    // the search's candidates: the net's probability of each, and its mean gain over the net's move in the worlds
    const rows = search.candidates.map((action, k) => {
      const gain = k === 0 ? "the net's move" : `${search.gains[k] >= 0 ? '+' : '−'}${Math.abs(search.gains[k]).toFixed(1)} points`;
      return `<tr class="${k === search.chosen ? 'chosen' : ''}"><td>${describeAction(move.round, action)}</td><td>${(move.decision.probs[action] * 100).toFixed(1)}%</td><td>${gain}</td></tr>`;
    });
    return `<table class="probs" data-testid="probs"><tr><th>candidate</th><th>net</th><th>search</th></tr>${rows.join('')}</table>`;
  }
  const top = topActions(move.decision.probs, move.decision.mask, 6);
  const rows = top.map(
    ({ action, prob }) =>
      `<tr class="${action === move.decision.action ? 'chosen' : ''}"><td>${describeAction(move.round, action)}</td><td class="bar"><span style="width:${(prob * 100).toFixed(1)}%"></span></td><td>${(prob * 100).toFixed(1)}%</td></tr>`,
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
      const you = game.final_carry[human];
      const them = game.final_carry[1 - human];
      const agent = app.agents.find((a) => a.id === game.opponent?.id);
      const who = escapeHtml(agent ? playerName(agent) : (game.opponent?.name ?? game.model?.name ?? 'an opponent'));
      const verdict = you > them ? 'won' : you < them ? 'lost' : 'drew';
      return `<li>You ${verdict} ${matchPoints(you)} to ${matchPoints(them)} against the ${who} ${button('Review', `review-game-${i}`, !!app.reviewer, `data-testid="review-game-${i}"`)}</li>`;
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
    const about = agent.level ? `<br><small>${escapeHtml(agent.level.about)} ${rating[0].toUpperCase()}${rating.slice(1)}.</small>` : '';
    model = `<b data-testid="opponent-name">${escapeHtml(playerName(agent))}</b>${placeholder}${about}
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

/** Points with their sign and one decimal: "+4.2", "−0.8", "0.0". */
const points = (x: number): string => `${x > 0.05 ? '+' : x < -0.05 ? '−' : ''}${Math.abs(x).toFixed(1)}`;

/** The review page: progress, the costliest decisions, and one decision at a time on its board. */
function reviewPage(app: App): string {
  const review = app.review;
  if (!review) return '';
  const game = review.game;
  const seat = review.humanSeat;
  const agent = app.agents.find((a) => a.id === game.opponent?.id);
  const reviewer = playerName(app.reviewer);
  const you = game.final_carry[seat];
  const them = game.final_carry[1 - seat];
  const done = review.decisions.length;
  const total = review.total;
  const running = review.seconds === null && !review.error;
  const progress = review.error
    ? `<p class="error-box" data-testid="review-error">The review stopped: ${escapeHtml(review.error)}</p>`
    : running
      ? `<p data-testid="review-progress" data-done="${done}" data-total="${total ?? ''}">Reviewing your decisions: ${done} of ${total ?? '…'} (${reviewer}'s search, ${app.reviewer?.search ? REVIEW_WORLDS : 0} deals of the hidden cards each)… <progress max="${total ?? 1}" value="${done}"></progress></p>`
      : `<p data-testid="review-done" data-seconds="${(review.seconds ?? 0).toFixed(1)}" data-total="${total}">All ${total} of your decisions reviewed in ${(review.seconds ?? 0).toFixed(0)} s.</p>`;
  const lost = costliestFirst(review.decisions.filter((d) => !d.forced));
  const worst = lost.slice(0, 5).map((d) => {
    const ms = review.positions[d.ply];
    return `<li><button class="linklike" data-do="review-ply-${d.ply}" data-testid="costly-${d.ply}">Round ${d.roundIdx + 1}, deck ${60 - ms.round.deckPtr}</button>: ${d.best === d.played ? 'the same move as yours' : `you ${escapeHtml(describeAction(ms.round, d.played))}; better: ${escapeHtml(describeAction(ms.round, d.best, true).toLowerCase())}`} <b class="${d.gain > 2 * d.se ? 'cost' : ''}">${points(d.gain)} ± ${d.se.toFixed(1)}</b></li>`;
  });
  const total_gain = review.decisions.reduce((sum, d) => sum + d.gain, 0);
  const agreed = review.decisions.filter((d) => d.best === d.played).length;
  const summary = done
    ? `<p>The ${escapeHtml(reviewer)} would have chosen your move in <b>${agreed} of ${done}</b> decisions. Its choices would have gained about <b>${points(total_gain)}</b> points in all (each estimate: the mean over deals of the cards you could not see, ± its standard error).</p>`
    : '';
  const d = review.decisions[review.step];
  let stepper = '';
  if (d) {
    const ms = review.positions[d.ply];
    const round = ms.round;
    const verdict = d.forced
      ? 'Only one legal move.'
      : d.best === d.played
        ? `The ${escapeHtml(reviewer)} agrees with your move.`
        : `The ${escapeHtml(reviewer)} would ${escapeHtml(describeAction(round, d.best, true).toLowerCase())}: <b>${points(d.gain)} ± ${d.se.toFixed(1)}</b> points against yours.`;
    stepper = `<div class="review-step" data-testid="review-step" data-ply="${d.ply}">
      <div class="buttons">${button('◀ Previous', 'review-prev', review.step > 0)} <span>Decision <b>${review.step + 1}</b> of ${total ?? '…'} · round ${d.roundIdx + 1} · deck ${60 - round.deckPtr}</span> ${button('Next ▶', 'review-next', review.step < done - 1)}</div>
      <p>You ${escapeHtml(describeAction(round, d.played))}. ${verdict}</p>
      ${reviewBoard(ms, seat, d.played, d.best)}
    </div>`;
  }
  return `<div class="review" data-testid="review">
    <div class="review-head"><h2>Review of your match against the ${escapeHtml(playerName(agent))}: you ${you > them ? 'won' : you < them ? 'lost' : 'drew'}, ${matchPoints(you)} to ${matchPoints(them)}</h2>${button('Back', 'close-review')}</div>
    ${progress}${summary}
    ${worst.length ? `<h3>Your costliest decisions</h3><ol class="costly" data-testid="costly">${worst.join('')}</ol>` : ''}
    ${stepper}
  </div>`;
}

/** A decision's position as the player saw it: the opponent's hand face down, yours with the played and the better card marked. */
function reviewBoard(ms: MatchState, seat: number, played: number, best: number): string {
  const round = ms.round;
  const playedCard = round.hands[seat][decodeAction(played).handSlot];
  const bestCard = round.hands[seat][decodeAction(best).handSlot];
  const piles = COLOURS.map((colour) => {
    const pile = round.piles[colour];
    return `<div class="pile">${pile.length ? card(pile[pile.length - 1]) : `<div class="card empty c-${COLOUR_KEYS[colour]}-empty"></div>`}<div class="count">${pile.length ? `${pile.length} card${pile.length > 1 ? 's' : ''}` : 'empty'}</div></div>`;
  });
  const hand = round.hands[seat].map((id) => {
    const marks = [id === playedCard ? '<span class="mark you">you</span>' : '', id === bestCard && best !== played ? '<span class="mark best">better</span>' : ''].join('');
    return `<div class="card-button">${card(id)}${marks}</div>`;
  });
  return `<div class="table review-table">
    ${expeditionRow(round, 1 - seat, 'agent')}
    <div class="centre">${piles.join('')}<div class="pile deck">${back()}<div class="count"><b>${deckLeft(round)}</b> in deck</div></div></div>
    ${expeditionRow(round, seat, 'me')}
    <div class="hand my-hand review-hand">${hand.join('')}</div>
  </div>`;
}

export function render(app: App): void {
  if (app.review) {
    app.root.innerHTML = `<header class="topbar"><h1>Lost Cities</h1></header><div class="main">${reviewPage(app)}</div>`;
    return;
  }
  if (!app.ms) {
    app.root.innerHTML = `<header class="topbar"><h1>Lost Cities</h1></header>${app.choosing && app.agents.length > 0 ? chooser(app) : `<div class="loading">${app.error ? errorBox(app) : app.status}</div>`}`;
    return;
  }
  const round = app.ms.round;
  const turn = app.ms.done
    ? 'Match over'
    : app.ms.round.toMove === app.humanSeat
      ? '<span class="you">Your turn</span>'
      : '<span class="agent">Agent\'s turn</span>';
  const starterTag = (seat: number) => (app.ms.starter === seat ? '<span class="tag">started this round</span>' : '');
  app.root.innerHTML = `
  <header class="topbar">
    <h1>Lost Cities</h1>
    <span class="chip" data-testid="round">Round <b>${app.ms.roundIdx + 1}</b> / ${N_ROUNDS}</span>
    <span class="chip" data-testid="carry"><span class="long">Match total: </span>You <b>${app.ms.carry[app.humanSeat]}</b> · ${opponentName(app)} <b>${app.ms.carry[app.agentSeat]}</b></span>
    <span class="chip" data-testid="deck-count">Deck <b>${deckLeft(round)}</b></span>
    <span class="chip turn" data-testid="turn">${turn}</span>
    <span class="spacer"></span>
    ${button('New match', 'new-match')}
  </header>
  <div class="main">
    <div class="table">
      <div class="player-row"><span class="who agent" data-testid="board-opponent">${opponentName(app)}</span> ${agentHand(app)} ${starterTag(app.agentSeat)}</div>
      ${expeditionRow(round, app.agentSeat, 'agent')}
      ${centreRow(app)}
      ${expeditionRow(round, app.humanSeat, 'me')}
      <div class="player-row"><span class="who you">You</span> ${starterTag(app.humanSeat)}</div>
      ${myHand(app)}
      ${actionBar(app)}
      ${hintPanel(app)}
    </div>
    ${sidePanel(app)}
  </div>
  ${app.choosing ? chooser(app) : overlay(app)}`;
}

