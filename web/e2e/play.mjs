/**
 * End-to-end test of the built site (dist/): serves it under a sub-path on localhost,
 * plays a whole 3-round match in headless Chromium by clicking random legal moves,
 * downloads the game log and checks the final scores against the Python engine
 * (`python -m lost_cities.replay`), asserts no console errors, reports the agent's move
 * latency on WebAssembly (bar: median < 50 ms) and saves web/screenshot.png.
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
const OUTPUT = join(WEB, 'test-results'); // git-ignored: the final table and the downloaded log
const LATENCY_BAR_MS = 50;
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.onnx': 'application/octet-stream', '.png': 'image/png' };

const { values: args } = parseArgs({
  options: { seed: { type: 'string', default: '2024' }, chromium: { type: 'string', default: '/usr/bin/chromium' } },
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

const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};

function check(condition, message) {
  if (!condition) throw new Error(`e2e check failed: ${message}`);
}

async function clickRandomEnabled(page, selector, random) {
  const buttons = await page.locator(`${selector}:not([disabled])`).all();
  check(buttons.length > 0, `no enabled ${selector}`);
  await buttons[Math.floor(random() * buttons.length)].click();
}

async function main() {
  mkdirSync(OUTPUT, { recursive: true });
  const server = await serveDist();
  const url = `http://127.0.0.1:${server.address().port}${BASE_PATH}?seed=${args.seed}&ep=wasm&delay=0`;
  const browser = await chromium.launch({
    executablePath: args.chromium,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const errors = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1420, height: 940 }, acceptDownloads: true });
    const page = await context.newPage();
    page.on('console', (message) => message.type() === 'error' && errors.push(`console: ${message.text()}`));
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
    const origin = new URL(url).origin;
    page.on('request', (request) => {
      const target = request.url();
      if (!target.startsWith(origin) && !/^(data|blob):/.test(target)) errors.push(`request leaves the site (not offline): ${target}`);
    });
    await page.goto(url);
    await page.waitForFunction(() => window.lostCities?.policy || window.lostCities?.error, null, { timeout: 60000 });
    check(!(await page.evaluate(() => window.lostCities.error)), await page.evaluate(() => window.lostCities.error));
    check((await page.evaluate(() => window.lostCities.policy.backend)) === 'wasm', 'the agent should run on WASM here');

    const random = seededRandom(Number(args.seed));
    let humanMoves = 0;
    let screenshotTaken = false;
    for (let guard = 0; guard < 5000; guard++) {
      if (await page.getByTestId('match-summary').isVisible()) break;
      if (await page.getByTestId('round-summary').isVisible()) {
        await page.getByTestId('next-round').click();
        continue;
      }
      if (!(await page.getByTestId('prompt').isVisible())) {
        await page.waitForTimeout(5);
        continue;
      }
      await clickRandomEnabled(page, '[data-testid^="hand-"]', random);
      await clickRandomEnabled(page, '[data-testid^="place-"]', random);
      const state = await page.evaluate(() => ({ round: window.lostCities.ms.roundIdx, deck: 60 - window.lostCities.ms.round.deckPtr }));
      if (!screenshotTaken && state.round === 1 && state.deck <= 22) {
        await page.getByTestId('toggle-probs').check();
        await page.screenshot({ path: join(WEB, 'screenshot.png') });
        screenshotTaken = true;
      }
      // Mostly the deck (a shorter match), sometimes a random legal source, pile draws included.
      const deck = page.getByTestId('draw-0');
      if (random() < 0.75 && (await deck.isEnabled())) await deck.click();
      else await clickRandomEnabled(page, '[data-testid^="draw-"]', random);
      humanMoves += 1;
    }
    check(await page.getByTestId('match-summary').isVisible(), 'the match did not finish');
    check(screenshotTaken, 'no screenshot was taken');
    const final = page.getByTestId('final-score');
    const shown = { you: Number(await final.getAttribute('data-you')), agent: Number(await final.getAttribute('data-agent')) };
    await page.screenshot({ path: join(OUTPUT, 'final.png') });

    const downloading = page.waitForEvent('download');
    await page.getByTestId('match-summary').getByTestId('download-log').click();
    const logPath = join(OUTPUT, 'games.jsonl');
    await (await downloading).saveAs(logPath);
    const game = JSON.parse(readFileSync(logPath, 'utf8').trim().split('\n').pop());
    const replayed = JSON.parse(
      execFileSync('python', ['-m', 'lost_cities.replay', logPath, '--json'], { cwd: REPO, encoding: 'utf8' }).trim().split('\n').pop(),
    );
    const humanSeat = game.seats.indexOf('human');
    check(humanSeat >= 0 && game.seats[1 - humanSeat] === 'agent', `seats ${game.seats}`);
    check(replayed.final_carry[humanSeat] === shown.you && replayed.final_carry[1 - humanSeat] === shown.agent,
      `page shows you ${shown.you} / agent ${shown.agent}, Python replays ${replayed.final_carry} (human seat ${humanSeat})`);
    check(JSON.stringify(replayed.round_scores) === JSON.stringify(game.round_scores), 'round scores differ from the replay');

    const latencies = await page.evaluate(() => window.lostCities.latencies);

    // The default start-up (WebGPU if the browser offers an adapter, else WASM) must be clean too.
    const plain = await context.newPage();
    plain.on('console', (message) => message.type() === 'error' && errors.push(`console (default backend): ${message.text()}`));
    plain.on('pageerror', (error) => errors.push(`page error (default backend): ${error.message}`));
    await plain.goto(url.replace('&ep=wasm', ''));
    await plain.waitForFunction(() => window.lostCities?.policy || window.lostCities?.error, null, { timeout: 60000 });
    const defaultBackend = await plain.evaluate(() => window.lostCities.policy?.backend ?? window.lostCities.error);

    // A model whose observation version the page does not implement is refused with a clear message.
    const refused = await context.newPage();
    await refused.route('**/policy.json', async (route) => {
      const manifest = await (await route.fetch()).json();
      await route.fulfill({ json: { ...manifest, obs_version: 'v999' } });
    });
    await refused.goto(url);
    await refused.waitForFunction(() => window.lostCities?.error, null, { timeout: 60000 });
    const refusal = await refused.locator('.actionbar.error').textContent();
    check(/expects observation "v999".*implements/.test(refusal), `unexpected refusal message: ${refusal}`);
    const median = percentile(latencies, 0.5);
    const p95 = percentile(latencies, 0.95);
    check(errors.length === 0, `browser errors:\n${errors.join('\n')}`);
    console.log(`e2e: played a full match (${humanMoves} human moves, ${latencies.length} agent moves, ${game.actions.length} plies)`);
    console.log(`e2e: final you ${shown.you} : agent ${shown.agent}; Python replay ${JSON.stringify(replayed.final_carry)} (seats ${game.seats}) - match`);
    console.log(`e2e: agent move latency on WASM: median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms (bar: median < ${LATENCY_BAR_MS} ms)`);
    check(median < LATENCY_BAR_MS, `median agent latency ${median} ms exceeds ${LATENCY_BAR_MS} ms`);
    console.log(`e2e: default start-up picked ${defaultBackend}; an unknown observation version is refused: "${refusal}"`);
    console.log('e2e: no console errors, no requests outside the site; screenshot saved to web/screenshot.png');
  } finally {
    await browser.close();
    server.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
