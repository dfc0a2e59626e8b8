/** Renders the whole table from the App's state (plain DOM strings; the table is small). */
import { type Agent, describeStrength } from './agents';
import type { App, RoundSummary } from './app';
import { DECK, DISCARD, N_COLOURS, N_DRAW_SOURCES, PLAY, cardColour } from './cards';
import { COLOUR_KEYS, COLOUR_NAMES, cardFace, cardName, describeAction } from './describe';
import { LOC_KNOWN, type RoundState, boardScore, deckLeft, expeditionCards, expeditionScore } from './engine';
import { N_ROUNDS } from './match';
import { drawHints, hintPercent, placeHints, slotHints } from './hints';
import { topActions } from './policyContract';
import { type OpponentRecord, meanMargin, opponentRecords } from './record';

const COLOURS = [...Array(N_COLOURS).keys()];

const card = (id: number, extra = ''): string =>
  `<div class="card c-${COLOUR_KEYS[cardColour(id)]} ${extra}" title="${cardName(id)}"><span class="corner">${cardFace(id)}</span><span class="face">${cardFace(id)}</span></div>`;

const back = (): string => '<div class="card back"></div>';

const signed = (n: number): string => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');

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
  if (!app.hintsOn) return `<div class="hint-row">${toggle}<span class="muted">the agent's odds for your moves (noted in the game log)</span></div>`;
  if (!app.humansTurn) return `<div class="hint-row">${toggle}<span class="muted">Hints appear on your turn.</span></div>`;
  const hint = app.visibleHint;
  if (!hint) return `<div class="hint-row">${toggle}<span class="muted" data-testid="hints-pending">Computing hints…</span></div>`;
  const top = topActions(hint.decision.probs, hint.decision.mask, 3);
  const rows = top.map(({ action, prob }) => `<li><b>${hintPercent(prob)}</b> ${describeAction(app.ms.round, action, true)}</li>`);
  return `<div class="hint-row">${toggle}<div class="hints" data-testid="hints"><span class="hints-title">${escapeHtml(app.policy.agent.search ? 'Its net, without the search,' : app.policy.agent.name)} in your seat would:</span><ol>${rows.join('')}</ol></div></div>`;
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

/** Finished rounds' scores, the current round's board score so far (in italics), '–' for rounds not begun. */
function roundTable(app: App, summaries: RoundSummary[], live = false): string {
  const name = (seat: number) => (seat === app.humanSeat ? 'You' : 'Agent');
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
    return `<tr><th>${seat === app.humanSeat ? 'You' : 'Agent'}</th>${cells.map((x) => `<td>${x}</td>`).join('')}<td class="total">${signed(boardScore(round)[seat])}</td></tr>`;
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
  const opponent = escapeHtml(app.policy?.agent.name ?? 'the agent');
  return `<div class="overlay" data-testid="match-summary"><div class="dialog"><h2>Match over: ${verdict}</h2><p class="muted">against ${opponent}</p>${colourBreakdown(app, last.round, last.roundIdx)}${roundTable(app, app.summaries)}<p class="final" data-testid="final-score" data-you="${you}" data-agent="${agent}">Final: You <b>${you}</b> · Agent <b>${agent}</b></p>${recordLine(app, app.policy?.agent.id)}<div class="buttons">${button(`Download game log (${app.games.length})`, 'download-log')} ${button('New match', 'new-match', true, 'class="primary"')}</div></div></div>`;
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
    const name = app.agents.find((a) => a.id === r.key)?.name ?? r.name;
    return `<tr data-testid="record-${escapeHtml(r.key)}" data-played="${r.played}" data-wins="${r.wins}" data-draws="${r.draws}" data-losses="${r.losses}"><th>${escapeHtml(name)}</th><td>${r.wins}–${r.draws}–${r.losses}</td><td>${signed(Math.round(meanMargin(r)))}</td><td>${signed(r.best)} / ${signed(r.worst)}</td></tr>`;
  });
  return `<table class="record" data-testid="record"><tr><th>Opponent</th><th title="won–drawn–lost">W–D–L</th><th title="your mean margin">Mean</th><th title="your best / worst margin">Best / worst</th></tr>${rows.join('')}</table>`;
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

function chooser(app: App): string {
  if (!app.choosing) return '';
  if (app.agents.length === 0) {
    return `<div class="overlay"><div class="dialog chooser">${app.error ? errorBox(app) : `<p>${app.status}</p>`}</div></div>`;
  }
  const records = opponentRecords(app.games);
  const options = app.agents.map((agent) => opponentOption(app, agent, records)).join('');
  const inProgress = app.ms && !app.ms.done;
  const start = app.loadingAgent ? `Loading ${escapeHtml(app.loadingAgent)}…` : inProgress ? 'Start a new match' : 'Start the match';
  const cancel = inProgress ? button('Back to the match', 'close-chooser', !app.loadingAgent) : '';
  return `<div class="overlay" data-testid="chooser"><div class="dialog chooser">
    <h2>Choose your opponent</h2>
    <div class="opponents" role="radiogroup">${options}</div>
    <p class="muted">A match is 3 rounds: a coin picks who starts round 1, then whoever leads starts the next. Hints (the agent's suggestions for your own moves) can be switched on during the match; the game log notes when they were shown.</p>
    ${errorBox(app)}
    <div class="buttons">${button(start, 'start-match', !app.loadingAgent && !!app.chosen && !app.chosen.problem, 'class="primary"')} ${cancel}</div>
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

function sidePanel(app: App): string {
  const policy = app.policy;
  let model = 'Loading…';
  if (policy) {
    const m = median(app.latencies);
    const speed = m === null ? 'no move yet' : `median ${m.toFixed(1)} ms/move`;
    const placeholder = policy.manifest.placeholder ? ' <span class="warn">placeholder: random weights, not a trained agent</span>' : '';
    model = `<b data-testid="opponent-name">${escapeHtml(policy.agent.name)}</b>${placeholder}<br><small>Measured: ${escapeHtml(describeStrength(policy.agent.strength))}</small><br><small data-testid="agent-speed">obs ${escapeHtml(String(policy.manifest.obs_version))} · ${policy.backend} · ${speed}</small>`;
  }
  return `<aside class="side">
    <section><h3>Agent's last move</h3><p data-testid="agent-last-move">${app.lastAgentMove?.text ?? 'No agent move yet this round.'}</p>
      <label class="toggle"><input type="checkbox" data-do="toggle-probs" data-testid="toggle-probs" ${app.showProbs ? 'checked' : ''}> ${policy?.agent.search ? "show the search's candidates" : "show the agent's move probabilities"}</label>
      ${probabilities(app)}</section>
    <section><h3>Match</h3>${roundTable(app, app.summaries, true)}</section>
    <section><h3>Opponent</h3><p class="model">${model}</p></section>
    <section><h3>Your record</h3>${recordTable(app)}</section>
    <section><h3>Game log</h3><p>${app.games.length} finished match${app.games.length === 1 ? '' : 'es'} stored in this browser.</p>
      ${button('Download JSONL', 'download-log', app.games.length > 0)} ${button('Clear', 'clear-log', app.games.length > 0)}</section>
    <section class="rules"><h3>Rules</h3><p>Place one card (play it on your expedition or discard it), then draw one (deck or a pile top; not the card you just discarded). Expeditions go up; wagers (W) only before numbers. Score: (sum − 20) × (1 + wagers), +20 bonus for 8+ cards. The round ends when the deck is empty; 3 rounds.</p></section>
  </aside>`;
}

export function render(app: App): void {
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
    <span class="chip" data-testid="carry"><span class="long">Match total: </span>You <b>${app.ms.carry[app.humanSeat]}</b> · Agent <b>${app.ms.carry[app.agentSeat]}</b></span>
    <span class="chip" data-testid="deck-count">Deck <b>${deckLeft(round)}</b></span>
    <span class="chip turn" data-testid="turn">${turn}</span>
    <span class="spacer"></span>
    ${button('New match', 'new-match')}
  </header>
  <div class="main">
    <div class="table">
      <div class="player-row"><span class="who agent">Agent</span> ${agentHand(app)} ${starterTag(app.agentSeat)}</div>
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

