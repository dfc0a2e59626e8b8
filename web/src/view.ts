/** Renders the whole table from the App's state (plain DOM strings; the table is small). */
import type { App, RoundSummary } from './app';
import { DECK, DISCARD, N_COLOURS, N_DRAW_SOURCES, PLAY, cardColour } from './cards';
import { COLOUR_KEYS, COLOUR_NAMES, cardFace, cardName, describeAction } from './describe';
import { LOC_KNOWN, type RoundState, boardScore, deckLeft, expeditionCards, expeditionScore } from './engine';
import { N_ROUNDS } from './match';
import { topActions } from './policyContract';

const COLOURS = [...Array(N_COLOURS).keys()];

const card = (id: number, extra = ''): string =>
  `<div class="card c-${COLOUR_KEYS[cardColour(id)]} ${extra}" title="${cardName(id)}"><span class="corner">${cardFace(id)}</span><span class="face">${cardFace(id)}</span></div>`;

const back = (): string => '<div class="card back"></div>';

const signed = (n: number): string => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');

const button = (label: string, action: string, enabled = true, extra = ''): string =>
  `<button data-do="${action}" data-testid="${action}" ${enabled ? '' : 'disabled'} ${extra}>${label}</button>`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
}

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
  const cards = round.hands[app.humanSeat].map((id, slot) => {
    const usable = app.canChoose(slot);
    const selected = app.selectedSlot === slot ? 'selected' : '';
    return `<button class="card-button ${selected}" data-do="card-${slot}" data-testid="hand-${slot}" ${usable ? '' : 'disabled'}>${card(id)}</button>`;
  });
  return `<div class="hand my-hand" data-testid="my-hand">${cards.join('')}</div>`;
}

function actionBar(app: App): string {
  const round = app.ms.round;
  if (app.error) return `<div class="actionbar error">${app.error}</div>`;
  if (!app.policy) return `<div class="actionbar">${app.status}</div>`;
  if (app.overlay) return '<div class="actionbar"></div>';
  if (!app.humansTurn) return '<div class="actionbar waiting" data-testid="agent-thinking">Agent is thinking…</div>';
  if (app.selectedSlot === null) return '<div class="actionbar" data-testid="prompt">Your turn: pick a card from your hand.</div>';
  const slot = app.selectedSlot;
  const id = round.hands[app.humanSeat][slot];
  const colour = COLOUR_NAMES[cardColour(id)];
  if (app.selectedPlace === null) {
    return `<div class="actionbar"><b>${cardName(id)}</b>: ${button(`Play on your ${colour} expedition`, 'place-play', app.canChoose(slot, PLAY))} ${button(`Discard to the ${colour} pile`, 'place-discard', app.canChoose(slot, DISCARD))} ${button('Cancel', 'cancel')}</div>`;
  }
  const verb = app.selectedPlace === PLAY ? 'Play' : 'Discard';
  const sources = [...Array(N_DRAW_SOURCES).keys()].map((source) => {
    const label = source === DECK ? `Deck (${deckLeft(round)})` : `${COLOUR_NAMES[source - 1]} pile`;
    return button(label, `draw-${source}`, app.canChoose(slot, app.selectedPlace, source));
  });
  return `<div class="actionbar">${verb} <b>${cardName(id)}</b>, then draw from: ${sources.join(' ')} ${button('Back', 'cancel')}</div>`;
}

function roundTable(app: App, summaries: RoundSummary[]): string {
  const name = (seat: number) => (seat === app.humanSeat ? 'You' : 'Agent');
  const rows = [app.humanSeat, app.agentSeat].map(
    (seat) => `<tr><th>${name(seat)}</th>${summaries.map((s) => `<td>${signed(s.scores[seat])}</td>`).join('')}${'<td></td>'.repeat(N_ROUNDS - summaries.length)}<td class="total">${summaries.length ? summaries[summaries.length - 1].carry[seat] : 0}</td></tr>`,
  );
  const head = `<tr><th></th>${[...Array(N_ROUNDS).keys()].map((r) => `<th>Round ${r + 1}</th>`).join('')}<th>Total</th></tr>`;
  return `<table class="rounds">${head}${rows.join('')}</table>`;
}

function colourBreakdown(app: App, round: RoundState, roundIdx: number): string {
  const head = `<tr><th></th>${COLOURS.map((c) => `<th class="c-${COLOUR_KEYS[c]}-text">${COLOUR_NAMES[c]}</th>`).join('')}<th>Round ${roundIdx + 1}</th></tr>`;
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
  return `<div class="overlay" data-testid="match-summary"><div class="dialog"><h2>Match over: ${verdict}</h2>${colourBreakdown(app, last.round, last.roundIdx)}${roundTable(app, app.summaries)}<p class="final" data-testid="final-score" data-you="${you}" data-agent="${agent}">Final: You <b>${you}</b> · Agent <b>${agent}</b></p>${button(`Download game log (${app.games.length})`, 'download-log')} ${button('New match', 'new-match', true, 'class="primary"')}</div></div>`;
}

function probabilities(app: App): string {
  const move = app.lastAgentMove;
  if (!app.showProbs) return '';
  if (!move) return '<p class="muted">No agent move yet this round.</p>';
  const top = topActions(move.decision.probs, move.decision.mask, 6);
  const rows = top.map(
    ({ action, prob }) =>
      `<tr class="${action === move.decision.action ? 'chosen' : ''}"><td>${describeAction(move.round, action)}</td><td class="bar"><span style="width:${(prob * 100).toFixed(1)}%"></span></td><td>${(prob * 100).toFixed(1)}%</td></tr>`,
  );
  return `<table class="probs" data-testid="probs">${rows.join('')}</table>`;
}

function sidePanel(app: App): string {
  const manifest = app.policy?.manifest;
  const model = manifest
    ? `${manifest.name ?? 'policy'}${manifest.placeholder ? ' <span class="warn">placeholder: random weights, not a trained agent</span>' : ''}<br><small>obs ${manifest.obs_version} · ${app.policy?.backend} · median ${median(app.latencies).toFixed(1)} ms/move</small>`
    : '…';
  return `<aside class="side">
    <section><h3>Agent's last move</h3><p data-testid="agent-last-move">${app.lastAgentMove?.text ?? '–'}</p>
      <label class="toggle"><input type="checkbox" data-do="toggle-probs" data-testid="toggle-probs" ${app.showProbs ? 'checked' : ''}> show the agent's move probabilities</label>
      ${probabilities(app)}</section>
    <section><h3>Match</h3>${roundTable(app, app.summaries)}</section>
    <section><h3>Game log</h3><p>${app.games.length} finished match${app.games.length === 1 ? '' : 'es'} stored in this browser.</p>
      ${button('Download JSONL', 'download-log', app.games.length > 0)} ${button('Clear', 'clear-log', app.games.length > 0)}</section>
    <section><h3>Agent</h3><p class="model">${model}</p></section>
    <section class="rules"><h3>Rules</h3><p>Place one card (play it on your expedition or discard it), then draw one (deck or a pile top; not the card you just discarded). Expeditions go up; wagers (W) only before numbers. Score: (sum − 20) × (1 + wagers), +20 bonus for 8+ cards. The round ends when the deck is empty; 3 rounds.</p></section>
  </aside>`;
}

export function render(app: App): void {
  if (!app.ms) {
    app.root.innerHTML = `<div class="loading">${app.error ?? app.status}</div>`;
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
    <span class="chip" data-testid="carry">Match total: You <b>${app.ms.carry[app.humanSeat]}</b> · Agent <b>${app.ms.carry[app.agentSeat]}</b></span>
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
    </div>
    ${sidePanel(app)}
  </div>
  ${overlay(app)}`;
}

