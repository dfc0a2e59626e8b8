/**
 * End-to-end test of the built site (dist/): serves it under a sub-path on localhost and,
 * in headless Chromium, plays two whole 3-round matches by clicking random legal moves:
 * one at a laptop viewport (1280x720) against the first agent of agents.json, one at a
 * phone viewport (390x844, touch) against a second index entry (added here by routing:
 * the same model under a test id, so the chooser is tested with two opponents) with hints
 * switched on for some moves. The phone match starts from the laptop's browser storage, so
 * "your record" must show one match against each opponent at the end. With --af1-model a
 * third match plays a test-only af1 model; a last one plays the shipped search agent (the
 * agents.json entry with `search`), whose median move must stay under SEARCH_LATENCY_BAR_MS.
 *
 * Checks: the downloaded game log replays with `python -m lost_cities.replay` to the scores
 * the page shows; the log names the chosen opponent and marks the hinted plies; no console
 * errors; no request leaves the site; no NaN/undefined on the page; no horizontal scroll
 * (`scrollWidth <= clientWidth`) at either viewport; the agent's median move latency on
 * WebAssembly under 50 ms; the default start-up is clean; an unknown observation version
 * is refused with a message. Screenshots and logs go to web/test-results/ (git-ignored).
 *
 *   npm run build && node e2e/play.mjs [--seed N] [--chromium /usr/bin/chromium]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const WEB = dirname(dirname(fileURLToPath(import.meta.url)));
const REPO = dirname(WEB);
const DIST = join(WEB, 'dist');
const BASE_PATH = '/some/base/path/'; // the site must not assume it is served from /
const OUTPUT = join(WEB, 'test-results'); // git-ignored: screenshots and the downloaded logs
const LATENCY_BAR_MS = 50;
const SEARCH_LATENCY_BAR_MS = 1000; // the search's move on WebAssembly: about 1 s at most
const SECOND_ID = 'e2e-second'; // test-only index entry: the shipped model under another id and name
const AF1_ID = 'e2e-af1'; // test-only index entry: an af1 model (--af1-model), never shipped
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.onnx': 'application/octet-stream', '.png': 'image/png' };

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string', default: '2024' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    // an af1 model and its manifest beside it (ci.sh writes the test-only one with
    // `python tools/action_fixture.py --expert-model ...`): a third match against it
    'af1-model': { type: 'string' },
  },
});

function serveDist() {
  const server = createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    if (!url.pathname.startsWith(BASE_PATH)) return response.writeHead(404).end();
    const relative = normalize(decodeURIComponent(url.pathname.slice(BASE_PATH.length)) || 'index.html');
    const file = join(DIST, relative);
    try {
      if (!file.startsWith(DIST) || !statSync(file).isFile()) throw new Error('not a file');
      response.writeHead(200, { 'content-type': MIME[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
    } catch {
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Whether the page's deal for `seed` (src/deal.ts: three 60-card shuffles, three coins, then the human's seat) lets the human start round 1. */
function humanStarts(seed) {
  const random = seededRandom(seed);
  for (let i = 0; i < 3 * 59; i++) random();
  const coins = [0, 1, 2].map(() => (random() < 0.5 ? 0 : 1));
  return coins[0] === (random() < 0.5 ? 0 : 1);
}

const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

function check(condition, message) {
  if (!condition) throw new Error(`e2e check failed: ${message}`);
}

/** Collect console errors, page errors, failed requests and requests that leave the site. */
function watch(page, label, origin, errors) {
  page.on('console', (message) => message.type() === 'error' && errors.push(`${label} console: ${message.text()}`));
  page.on('pageerror', (error) => errors.push(`${label} page error: ${error.message}`));
  page.on('requestfailed', (request) => errors.push(`${label} request failed: ${request.url()}`));
  page.on('request', (request) => {
    const target = request.url();
    if (!target.startsWith(origin) && !/^(data|blob):/.test(target)) errors.push(`${label} request leaves the site (not offline): ${target}`);
  });
}

/** Serve agents.json with a second, test-only entry (the first entry's model and manifest under SECOND_ID). */
async function routeTwoAgents(context) {
  let firstManifest = null;
  await context.route('**/agents.json', async (route) => {
    const index = await (await route.fetch()).json();
    firstManifest = index.agents[0].manifest;
    index.agents.push({ id: SECOND_ID, model: index.agents[0].model, manifest: `${SECOND_ID}.json` });
    await route.fulfill({ json: index });
  });
  await context.route(`**/${SECOND_ID}.json`, async (route) => {
    const response = await route.fetch({ url: route.request().url().replace(`${SECOND_ID}.json`, firstManifest) });
    const manifest = await response.json();
    const strength = { opponent: 'heuristic_expert', games: 400, win_rate: 0.5, win_rate_lower: 0.45, win_rate_upper: 0.55, margin_mean: 0 };
    await route.fulfill({ json: { ...manifest, name: 'E2E test copy (same model)', strength } });
  });
}

/** Serve agents.json with a test-only af1 entry whose model and manifest are read from `modelPath` (and its .json). */
async function routeAf1Agent(context, modelPath) {
  await context.route('**/agents.json', async (route) => {
    const index = await (await route.fetch()).json();
    index.agents.push({ id: AF1_ID, model: `${AF1_ID}.onnx`, manifest: `${AF1_ID}.json` });
    await route.fulfill({ json: index });
  });
  await context.route(`**/${AF1_ID}.onnx`, (route) =>
    route.fulfill({ body: readFileSync(modelPath), contentType: 'application/octet-stream' }),
  );
  await context.route(`**/${AF1_ID}.json`, (route) =>
    route.fulfill({ json: JSON.parse(readFileSync(modelPath.replace(/\.onnx$/, '.json'), 'utf8')) }),
  );
}

/** What the layout must satisfy at any moment: no sideways scroll, no NaN/undefined shown. */
async function checkLayout(page, label, widths) {
  const state = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    text: document.body.innerText,
  }));
  check(state.scrollWidth <= state.clientWidth, `${label}: horizontal scroll (scrollWidth ${state.scrollWidth} > clientWidth ${state.clientWidth})`);
  const bad = state.text.match(/\b(NaN|undefined|null|Infinity)\b|\[object/);
  check(!bad, `${label}: the page shows "${bad?.[0]}"`);
  widths.push(state.scrollWidth);
  return state;
}

/** Play one whole match on `page` against `agentId`; returns what the page and the replay say. */
async function playMatch(page, { label, agentId, url, seed, hintMoves, screenshot, touch }) {
  const widths = [];
  const press = (locator) => (touch ? locator.tap() : locator.click());
  await page.goto(url);
  await page.getByTestId('chooser').waitFor({ timeout: 60000 });
  const options = await page.getByTestId('chooser').locator('button.opponent').count();
  check(options >= 2, `${label}: the chooser lists ${options} opponent(s), expected the shipped one and the test entry`);
  await checkLayout(page, `${label} chooser`, widths);
  await page.screenshot({ path: join(OUTPUT, `${screenshot.name}-chooser.png`) });
  await press(page.getByTestId(`opponent-${agentId}`));
  check((await page.getByTestId(`opponent-${agentId}`).getAttribute('aria-checked')) === 'true', `${label}: ${agentId} not selected`);
  const chosenName = (await page.getByTestId(`opponent-${agentId}`).locator('.opponent-name').textContent()).trim();
  await press(page.getByTestId('start-match'));
  await page.waitForFunction(() => window.lostCities?.policy || window.lostCities?.error, null, { timeout: 60000 });
  check(!(await page.evaluate(() => window.lostCities.error)), await page.evaluate(() => window.lostCities.error));
  check((await page.evaluate(() => window.lostCities.policy.backend)) === 'wasm', 'the agent should run on WASM here');
  check((await page.evaluate(() => window.lostCities.policy.agent.id)) === agentId, `${label}: playing the wrong agent`);
  const speed = await page.getByTestId('agent-speed').textContent();
  check(/^obs \S+ · \S+ · (no move yet|median \d+\.\d ms\/move)$/.test(speed), `${label}: the agent panel says "${speed}"`);
  await checkLayout(page, `${label} start`, widths);

  const random = seededRandom(seed);
  let humanMoves = 0;
  let hintsSeen = 0;
  let screenshotTaken = false;
  let reopened = false;
  for (let guard = 0; guard < 5000; guard++) {
    if (await page.getByTestId('match-summary').isVisible()) break;
    if (await page.getByTestId('round-summary').isVisible()) {
      await checkLayout(page, `${label} round summary`, widths);
      await press(page.getByTestId('next-round'));
      continue;
    }
    if (!(await page.getByTestId('prompt').isVisible())) {
      await page.waitForTimeout(5);
      continue;
    }
    if (humanMoves === 3 && !reopened) {
      // "New match" mid-match opens the chooser; "Back to the match" returns to the same position.
      const plies = await page.evaluate(() => window.lostCities.actions.length);
      await press(page.getByTestId('new-match'));
      await page.getByTestId('chooser').waitFor();
      await checkLayout(page, `${label} chooser mid-match`, widths);
      await press(page.getByTestId('close-chooser'));
      await page.getByTestId('prompt').waitFor();
      check((await page.evaluate(() => window.lostCities.actions.length)) === plies, `${label}: closing the chooser changed the match`);
      reopened = true;
    }
    const hintsOn = await page.evaluate(() => window.lostCities.hintsOn);
    if (hintsOn !== humanMoves < hintMoves) await press(page.getByTestId('toggle-hints'));
    if (humanMoves < hintMoves) {
      await page.getByTestId('hints').waitFor({ timeout: 10000 });
      check((await page.locator('.my-hand .hint-badge').count()) > 0, `${label}: hints on but no badges on the hand`);
      hintsSeen += 1;
    }
    await press(await randomEnabled(page, '[data-testid^="hand-"]', random));
    await press(await randomEnabled(page, '[data-testid^="place-"]', random));
    const state = await page.evaluate(() => ({ round: window.lostCities.ms.roundIdx, deck: 60 - window.lostCities.ms.round.deckPtr }));
    if (!screenshotTaken && state.round === 1 && state.deck <= 22) {
      if (screenshot.hints && !(await page.evaluate(() => window.lostCities.hintsOn))) {
        await press(page.getByTestId('toggle-hints'));
        await page.getByTestId('hints').waitFor({ timeout: 10000 });
      }
      if (screenshot.probs) await page.getByTestId('toggle-probs').check();
      await checkLayout(page, `${label} round 2`, widths);
      await page.screenshot({ path: join(OUTPUT, `${screenshot.name}.png`), fullPage: screenshot.fullPage });
      screenshotTaken = true;
    }
    // Mostly the deck (a shorter match), sometimes a random legal source, pile draws included.
    const deck = page.getByTestId('draw-0');
    if (random() < 0.75 && (await deck.isEnabled())) await press(deck);
    else await press(await randomEnabled(page, '[data-testid^="draw-"]', random));
    humanMoves += 1;
  }
  check(await page.getByTestId('match-summary').isVisible(), `${label}: the match did not finish`);
  check(screenshotTaken, `${label}: no screenshot was taken`);
  await checkLayout(page, `${label} match summary`, widths);
  const final = page.getByTestId('final-score');
  const shown = { you: Number(await final.getAttribute('data-you')), agent: Number(await final.getAttribute('data-agent')) };
  await page.screenshot({ path: join(OUTPUT, `${screenshot.name}-final.png`) });

  const downloading = page.waitForEvent('download');
  await press(page.getByTestId('match-summary').getByTestId('download-log'));
  const logPath = join(OUTPUT, `games-${screenshot.name}.jsonl`);
  await (await downloading).saveAs(logPath);
  const games = readFileSync(logPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const replayed = execFileSync('python', ['-m', 'lost_cities.replay', logPath, '--json'], { cwd: REPO, encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  check(replayed.length === games.length, `${label}: replayed ${replayed.length} of ${games.length} games`);
  const game = games[games.length - 1];
  const last = replayed[replayed.length - 1];
  const humanSeat = game.seats.indexOf('human');
  check(humanSeat >= 0 && game.seats[1 - humanSeat] === 'agent', `seats ${game.seats}`);
  check(last.final_carry[humanSeat] === shown.you && last.final_carry[1 - humanSeat] === shown.agent,
    `${label}: page shows you ${shown.you} / agent ${shown.agent}, Python replays ${last.final_carry} (human seat ${humanSeat})`);
  check(JSON.stringify(last.round_scores) === JSON.stringify(game.round_scores), `${label}: round scores differ from the replay`);
  games.forEach((g, i) => check(JSON.stringify(replayed[i].final_carry) === JSON.stringify(g.final_carry), `${label}: game ${i + 1} replays differently`));
  check(game.opponent?.id === agentId && game.opponent?.name === chosenName, `${label}: the log names opponent ${JSON.stringify(game.opponent)}, chosen ${agentId} "${chosenName}"`);
  check(game.hints?.used === hintsSeen > 0, `${label}: hints.used ${game.hints?.used}, hints were shown ${hintsSeen} times`);
  check(game.hints.plies.length >= hintsSeen, `${label}: ${game.hints.plies.length} hinted plies logged, ${hintsSeen} shown`);
  const latencies = await page.evaluate(() => window.lostCities.latencies);
  return { shown, game, games, replayed: last, humanMoves, hintsSeen, latencies, widths, speed };
}

async function randomEnabled(page, selector, random) {
  const buttons = await page.locator(`${selector}:not([disabled])`).all();
  check(buttons.length > 0, `no enabled ${selector}`);
  return buttons[Math.floor(random() * buttons.length)];
}

async function main() {
  mkdirSync(OUTPUT, { recursive: true });
  const server = await serveDist();
  const url = `http://127.0.0.1:${server.address().port}${BASE_PATH}?seed=${args.seed}&ep=wasm&delay=0`;
  const origin = new URL(url).origin;
  const browser = await chromium.launch({
    executablePath: args.chromium,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const errors = [];
  try {
    // 1. Laptop, against the first (shipped) agent, no hints.
    const laptop = await browser.newContext({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
    await routeTwoAgents(laptop);
    const laptopPage = await laptop.newPage();
    watch(laptopPage, 'laptop', origin, errors);
    const firstId = JSON.parse(readFileSync(join(DIST, 'agents.json'), 'utf8')).agents[0].id;
    const a = await playMatch(laptopPage, {
      label: 'laptop 1280x720', agentId: firstId, url, seed: Number(args.seed), hintMoves: 0,
      screenshot: { name: 'laptop', probs: true, fullPage: true }, touch: false,
    });

    // 2. Phone, starting from the laptop's storage (the first match is in the log), against the test entry, hints on.
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, acceptDownloads: true,
      storageState: await laptop.storageState(),
    });
    await routeTwoAgents(phone);
    const phonePage = await phone.newPage();
    watch(phonePage, 'phone', origin, errors);
    const b = await playMatch(phonePage, {
      label: 'phone 390x844', agentId: SECOND_ID, url, seed: Number(args.seed) + 1, hintMoves: 6,
      screenshot: { name: 'phone', hints: true, fullPage: true }, touch: true,
    });
    check(b.games.length === 2 && b.games[0].opponent?.id === firstId, `phone: the log should hold the laptop match then this one (${b.games.length} games)`);
    check(b.games[0].hints?.used === false, 'the laptop match used no hints');
    for (const ply of b.game.hints.plies) {
      check(Number.isInteger(ply) && ply >= 0 && ply < b.game.actions.length, `hinted ply ${ply} out of range`);
    }
    const record = {};
    for (const id of [firstId, SECOND_ID]) {
      const row = phonePage.getByTestId(`record-${id}`);
      record[id] = { played: Number(await row.getAttribute('data-played')), wins: Number(await row.getAttribute('data-wins')), losses: Number(await row.getAttribute('data-losses')) };
    }
    const won = (r) => (r.shown.you > r.shown.agent ? 1 : 0);
    const lost = (r) => (r.shown.you < r.shown.agent ? 1 : 0);
    check(record[firstId].played === 1 && record[firstId].wins === won(a) && record[firstId].losses === lost(a), `record vs ${firstId}: ${JSON.stringify(record[firstId])}`);
    check(record[SECOND_ID].played === 1 && record[SECOND_ID].wins === won(b) && record[SECOND_ID].losses === lost(b), `record vs ${SECOND_ID}: ${JSON.stringify(record[SECOND_ID])}`);

    // 3. An af1 model (manifest features "af1": the page computes the action feature rows for the
    // agent's moves and for the hints). The test-only model plays heuristic_expert's moves when its
    // rows are right, so the Python check of the log compares every agent move with the expert's.
    let af1 = null;
    if (args['af1-model']) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
      await routeAf1Agent(context, args['af1-model']);
      const page = await context.newPage();
      watch(page, 'af1', origin, errors);
      const c = await playMatch(page, {
        label: 'af1 1280x720', agentId: AF1_ID, url, seed: Number(args.seed) + 2, hintMoves: 4,
        screenshot: { name: 'af1', hints: true, fullPage: true }, touch: false,
      });
      check((await page.evaluate(() => window.lostCities.policy.manifest.features)) === 'af1', 'the af1 agent has no features in its manifest');
      const checked = execFileSync('python', ['tools/action_fixture.py', '--check-log', join(OUTPUT, 'games-af1.jsonl')], { cwd: REPO, encoding: 'utf8' }).trim();
      af1 = { match: c, checked };
      await context.close();
    }

    // 4. The shipped search agent (an index entry with `search`: the search on top of its net, worlds
    // dealt by the net's belief): a whole match, its log replayed, its median move under about 1 s.
    const searchId = JSON.parse(readFileSync(join(DIST, 'agents.json'), 'utf8')).agents.find((agent) => agent.search)?.id;
    check(searchId !== undefined, 'agents.json lists no search agent');
    const searchContext = await browser.newContext({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
    const searchPage = await searchContext.newPage();
    watch(searchPage, 'search', origin, errors);
    const s = await playMatch(searchPage, {
      label: 'search 1280x720', agentId: searchId, url, seed: Number(args.seed) + 3, hintMoves: 2,
      screenshot: { name: 'search', probs: true, hints: true, fullPage: true }, touch: false,
    });
    check(/\+ search, \d+ worlds × \d+ moves, learned belief$/.test(s.game.opponent.name), `the search agent is named "${s.game.opponent.name}"`);
    const searched = await searchPage.evaluate(() => window.lostCities.lastAgentMove?.decision.search);
    check(searched?.candidates.length === 4 && searched.candidates[0] === searched.base && searched.gains[0] === 0,
      `the search agent's last move should carry its 4 candidates, the net's move first: ${JSON.stringify(searched)}`);
    await searchContext.close();

    // The default start-up (WebGPU if the browser offers an adapter, else WASM) must be clean too; on a
    // deal where the human starts, the agent panel must say it has not moved yet (it once said "median NaN").
    let humanSeed = 1;
    while (!humanStarts(humanSeed)) humanSeed += 1;
    const plain = await laptop.newPage();
    watch(plain, 'default backend', origin, errors);
    await plain.goto(`${origin}${BASE_PATH}?seed=${humanSeed}`);
    await plain.getByTestId('start-match').click({ timeout: 60000 });
    await plain.waitForFunction(() => window.lostCities?.policy || window.lostCities?.error, null, { timeout: 60000 });
    const defaultBackend = await plain.evaluate(() => window.lostCities.policy?.backend ?? window.lostCities.error);
    await plain.getByTestId('prompt').waitFor({ timeout: 10000 });
    const freshSpeed = await plain.getByTestId('agent-speed').textContent();
    check(/ · no move yet$/.test(freshSpeed), `before the agent's first move the panel says "${freshSpeed}"`);
    await checkLayout(plain, 'default backend start', []);

    // A model whose observation version the page does not implement is refused with a clear message.
    const refusing = await browser.newContext();
    const refused = await refusing.newPage();
    await refused.route(/\/(?!agents\.json)[^/]+\.json$/, async (route) => { // every manifest, the default's too
      const manifest = await (await route.fetch()).json();
      await route.fulfill({ json: { ...manifest, obs_version: 'v999' } });
    });
    await refused.goto(url);
    await refused.waitForFunction(() => window.lostCities?.error, null, { timeout: 60000 });
    const refusal = await refused.getByTestId('error').textContent();
    check(/expects observation "v999".*implements/.test(refusal), `unexpected refusal message: ${refusal}`);

    const latencies = [...a.latencies];
    const median = percentile(latencies, 0.5);
    const p95 = percentile(latencies, 0.95);
    check(errors.length === 0, `browser errors:\n${errors.join('\n')}`);
    for (const [label, r] of [['1280x720', a], ['390x844', b]]) {
      console.log(`e2e ${label}: played a full match vs ${r.game.opponent.id} (${r.humanMoves} human moves, ${r.game.actions.length} plies, hints shown on ${r.hintsSeen} moves, logged hinted plies ${JSON.stringify(r.game.hints.plies)})`);
      console.log(`e2e ${label}: final you ${r.shown.you} : agent ${r.shown.agent}; Python replay ${JSON.stringify(r.replayed.final_carry)} (seats ${r.game.seats}) - match`);
      console.log(`e2e ${label}: scrollWidth <= clientWidth at every check (max scrollWidth ${Math.max(...r.widths)}); at the start the agent panel said "${r.speed}"`);
    }
    if (af1) {
      console.log(`e2e af1: played a full match vs ${AF1_ID} (${af1.match.humanMoves} human moves, hints shown on ${af1.match.hintsSeen}); final you ${af1.match.shown.you} : agent ${af1.match.shown.agent}, replay matches`);
      console.log(`e2e af1: ${af1.checked}; agent move latency on WASM (features included): median ${percentile(af1.match.latencies, 0.5).toFixed(2)} ms`);
    } else {
      console.log('e2e af1: skipped (no --af1-model)');
    }
    const searchMedian = percentile(s.latencies, 0.5);
    console.log(`e2e search: played a full match vs ${searchId} (${s.humanMoves} human moves, hints shown on ${s.hintsSeen}); final you ${s.shown.you} : agent ${s.shown.agent}, replay matches`);
    console.log(`e2e search: agent move latency on WASM: median ${searchMedian.toFixed(0)} ms, p95 ${percentile(s.latencies, 0.95).toFixed(0)} ms, max ${Math.max(...s.latencies).toFixed(0)} ms over ${s.latencies.length} moves (bar: median < ${SEARCH_LATENCY_BAR_MS} ms)`);
    check(searchMedian < SEARCH_LATENCY_BAR_MS, `median search latency ${searchMedian} ms exceeds ${SEARCH_LATENCY_BAR_MS} ms`);
    console.log(`e2e: your record after both: ${JSON.stringify(record)}; the log (2 games) replays with lost_cities.replay`);
    console.log(`e2e: agent move latency on WASM: median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms (bar: median < ${LATENCY_BAR_MS} ms)`);
    check(median < LATENCY_BAR_MS, `median agent latency ${median} ms exceeds ${LATENCY_BAR_MS} ms`);
    console.log(`e2e: default start-up picked ${defaultBackend}; before the agent's first move (seed ${humanSeed}, you start) the panel says "${freshSpeed}"`);
    console.log(`e2e: an unknown observation version is refused: "${refusal}"`);
    console.log(`e2e: no console errors, no requests outside the site; screenshots in ${OUTPUT}/ (laptop.png, phone.png, *-final.png)`);
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
