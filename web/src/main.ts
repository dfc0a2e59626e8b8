/**
 * Entry point. URL parameters (for tests and demos): `?seed=N` deals reproducibly,
 * `?ep=wasm` skips WebGPU, `?delay=MS` sets the pause before the agent's move is shown,
 * `?agent=ID` preselects an opponent from agents.json.
 */
import './style.css';
import { App } from './app';
import { DISCARD, PLAY } from './cards';
import { cryptoRandom, seededRandom } from './deal';
import { render } from './view';

const params = new URLSearchParams(location.search);
const seed = params.get('seed');
const root = document.getElementById('app') as HTMLElement;
const app = new App(root, {
  agentDelayMs: Number(params.get('delay') ?? 400),
  random: seed === null ? cryptoRandom : seededRandom(Number(seed)),
  preferWasm: params.get('ep') === 'wasm',
  baseUrl: document.baseURI,
  preselect: params.get('agent'),
}, render);

const handlers: Record<string, () => void> = {
  'place-play': () => app.choosePlace(PLAY),
  'place-discard': () => app.choosePlace(DISCARD),
  cancel: () => {
    if (app.selectedPlace !== null) app.selectedPlace = null;
    else app.selectedSlot = null;
    app.update();
  },
  'next-round': () => app.continueAfterRound(),
  'toggle-round-scores': () => app.toggleRoundScores(),
  'new-match': () => app.openChooser(),
  'start-match': () => app.startMatch(),
  'close-chooser': () => app.closeChooser(),
  'download-log': () => app.downloadLog(),
  'clear-log': () => app.clearLog(),
  'toggle-probs': () => app.toggleProbs(),
  'toggle-hints': () => app.toggleHints(),
  'review-last': () => app.startReview(),
  'review-prev': () => app.reviewStep(-1),
  'review-next': () => app.reviewStep(1),
  'close-review': () => app.closeReview(),
};

root.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>('[data-do]');
  if (!target || (target as HTMLButtonElement).disabled) return;
  const name = target.dataset.do as string;
  const [kind, index] = name.split('-');
  if (kind === 'card') app.selectCard(Number(index));
  else if (kind === 'draw') app.chooseDraw(Number(index));
  else if (kind === 'opponent') app.chooseOpponent(name.slice('opponent-'.length));
  else if (name.startsWith('review-game-')) app.startReview(Number(name.slice('review-game-'.length)));
  else if (name.startsWith('review-ply-')) app.reviewGoto(Number(name.slice('review-ply-'.length)));
  else handlers[name]?.();
  // the input's latency: from the event's creation to the end of its handling and re-render
  app.inputLatencies.push(performance.now() - event.timeStamp);
});

// A reload resumes the match (savedMatch.ts), but leaving mid-match is still asked about first.
window.addEventListener('beforeunload', (event) => {
  if (app.matchInProgress) event.preventDefault();
});

Object.assign(window, { lostCities: app });
app.update();
app.loadIndex();
