/**
 * Entry point. URL parameters (for tests and demos): `?seed=N` deals reproducibly,
 * `?ep=wasm` skips WebGPU, `?delay=MS` sets the pause before the agent's move is shown.
 */
import './style.css';
import { App } from './app';
import { DISCARD, PLAY } from './cards';
import { cryptoRandom, seededRandom } from './deal';
import { loadPolicy } from './policy';

const params = new URLSearchParams(location.search);
const seed = params.get('seed');
const root = document.getElementById('app') as HTMLElement;
const app = new App(root, {
  agentDelayMs: Number(params.get('delay') ?? 400),
  random: seed === null ? cryptoRandom : seededRandom(Number(seed)),
});

const handlers: Record<string, () => void> = {
  'place-play': () => app.choosePlace(PLAY),
  'place-discard': () => app.choosePlace(DISCARD),
  cancel: () => {
    if (app.selectedPlace !== null) app.selectedPlace = null;
    else app.selectedSlot = null;
    app.update();
  },
  'next-round': () => app.continueAfterRound(),
  'new-match': () => app.newMatch(),
  'download-log': () => app.downloadLog(),
  'clear-log': () => app.clearLog(),
  'toggle-probs': () => app.toggleProbs(),
};

root.addEventListener('click', (event) => {
  const target = (event.target as HTMLElement).closest<HTMLElement>('[data-do]');
  if (!target || (target as HTMLButtonElement).disabled) return;
  const name = target.dataset.do as string;
  const [kind, index] = name.split('-');
  if (kind === 'card') app.selectCard(Number(index));
  else if (kind === 'draw') app.chooseDraw(Number(index));
  else handlers[name]?.();
});

Object.assign(window, { lostCities: app });
app.newMatch();
loadPolicy(document.baseURI, params.get('ep') === 'wasm')
  .then((policy) => {
    app.policy = policy;
    app.status = '';
    app.update();
    app.maybeAgentTurn();
  })
  .catch((error) => app.fail(error));
