/**
 * The chooser as the page renders it from the shipped files (public/agents.json, every manifest, ratings.json):
 * the opponents off the ladder (earlier nets, still playable) read in a player's words, each by a name of its own
 * and one line on what it is and how strong, never by its id or the training's jargon, which stay in its tooltip and
 * the technical details.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Agent, loadAgents } from '../src/agents';
import type { App } from '../src/app';
import { type Ratings, loadRatings } from '../src/ratings';
import { render } from '../src/view';

const BASE = 'https://example.org/some/path/';
// What a player must not read: the ids' and manifests' training terms (e2e/play.mjs checks the page for its own list).
const JARGON = /\bppo\b|\bbc\b|bc-ppo|\bxi\d|\baf1\b|\bbal\d|ActionNet|heuristic_|\bupdates?\b|match3|\bobs\b|\bnet\b|\bworlds\b|self-improvement|checkpoint|entropy|lambda|iteration|\bseed\b|experiment|\bimprove-|placeholder/i;

/** The page's files, served from public/ as the built site serves them. */
function servePublic(): void {
  vi.stubGlobal('fetch', async (url: string) => {
    const file = new URL(url).pathname.slice(new URL(BASE).pathname.length);
    const text = readFileSync(new URL(`../public/${file}`, import.meta.url), 'utf8');
    return { ok: true, status: 200, json: async () => JSON.parse(text) };
  });
}

/** The visible text of an HTML fragment: its tags (and so its attributes, the tooltips) dropped, entities read. */
const visible = (html: string): string =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e as string] as string)
    .replace(/\s+/g, ' ')
    .trim();

/** The chooser rendered with "More opponents" open (an off-ladder agent chosen), as the page's root holds it. */
function chooserHtml(agents: Agent[], ratings: Ratings, chosenId: string): string {
  const root = { innerHTML: '' };
  const app = {
    root, review: null, choosing: true, ms: undefined, agents, ratings, ratingsProblem: null, error: null, status: '', games: [],
    chosenId, loadingAgent: null, chosen: agents.find((a) => a.id === chosenId), reviewer: agents.find((a) => a.search),
  };
  render(app as unknown as App);
  return root.innerHTML;
}

/** The option `data-testid="opponent-<id>"` (a button of spans) and its visible text. */
function optionHtml(html: string, id: string): string {
  const match = html.match(new RegExp(`<button[^>]*data-testid="opponent-${id.replace(/[.]/g, '\\.')}"[^>]*>([\\s\\S]*?)</button>`));
  expect(match, `no option for ${id}`).not.toBeNull();
  return match![1];
}
const optionText = (html: string, id: string): string => visible(optionHtml(html, id));

describe('the opponents off the ladder', () => {
  let agents: Agent[];
  let ratings: Ratings;
  let others: Agent[];
  let html: string;
  beforeAll(async () => {
    servePublic();
    agents = (await loadAgents(BASE)).agents;
    ratings = await loadRatings(BASE);
    others = agents.filter((a) => !a.level);
    html = chooserHtml(agents, ratings, others[0].id);
  });
  afterAll(() => vi.unstubAllGlobals());

  it('are shipped, and read by a name of their own and a line, with neither their id nor training jargon', () => {
    expect(others.length).toBeGreaterThan(0);
    for (const agent of others) {
      const text = optionText(html, agent.id);
      expect(text.toLowerCase(), `${agent.id} reads "${text}"`).not.toContain(agent.id.toLowerCase());
      expect(text, `${agent.id} reads "${text}"`).not.toMatch(JARGON);
      expect(text, `${agent.id} reads "${text}"`).not.toMatch(/\d\.\d|%\]/); // no measurement's decimals or interval
    }
    const names = agents.map((a) => visible(optionHtml(html, a.id).match(/<span class="opponent-name">([\s\S]*?)<\/span>\s*<span/)![1]));
    expect(new Set(names).size, JSON.stringify(names)).toBe(names.length); // none alike, none a level's
  });

  it("say how strong each is in the ladder's terms: the rating the tournament measured, else the share of matches against a level", () => {
    const levels = agents.filter((a) => a.level).map((a) => a.level!.name);
    for (const agent of others) {
      const text = optionText(html, agent.id);
      const file = agent.modelUrl.split('/').pop();
      const rated = [...ratings.players.values()].find((r) => r.player === `web/public/${file}`);
      if (rated) expect(text, agent.id).toMatch(new RegExp(`Rating ${Math.round(rated.rating)} ± \\d+, (between|above|below) the `));
      else expect(text, agent.id).toMatch(new RegExp(`the (${levels.join('|')})\\b.*match|Strength not measured|Not measured against the ladder`));
    }
  });

  it('keep their id and what was measured in the tooltip and in the technical details', () => {
    for (const agent of others) {
      expect(html).toMatch(new RegExp(`data-testid="opponent-${agent.id}"[^>]*title="${agent.id}: `));
      const technical = html.slice(html.indexOf('data-testid="technical"'));
      expect(visible(technical)).toContain(`id ${agent.id};`);
    }
  });
});
