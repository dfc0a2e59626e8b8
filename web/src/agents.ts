/**
 * The shipped opponents: one index, `agents.json` beside index.html, lists them in the
 * order the page shows them (the first, or the one named by `default`, is preselected):
 *
 *   { "format": "lost-cities-agents", "version": 1, "default": "ppo-match3-3m",
 *     "agents": [ { "id": "ppo-match3-3m", "model": "policy.onnx", "manifest": "policy.json" } ] }
 *
 * `id` is the stable key the game log and "your record" use; `model` and `manifest` are
 * URLs relative to the index. The name and the measured strength come from the manifest
 * (`python -m lost_cities.export` writes it): `name`, and `strength` or else `gates`.
 */
import { type BotName, isBotName } from './bots';
import { signedRound } from './format';
import { type Manifest, inputsFor } from './policyContract';
import { BELIEF_PRESET, type SearchKnobs } from './search';

export const INDEX_FORMAT = 'lost-cities-agents';
export const INDEX_VERSION = 1;
export const INDEX_FILE = 'agents.json';

/** An entry's `search`: the agent moves by the search on top of its net (search.ts), with the
 * preset `belief`'s knobs unless `worlds` / `candidates` say otherwise, its worlds dealt by the belief
 * model `belief` (its manifest: the same name with .json) or uniformly without one; `strength` is the
 * search's own measurement (the net's manifest measures the net alone, so it is not shown for it). */
export interface SearchEntry {
  beliefUrl: string | null;
  beliefManifestUrl: string | null;
  knobs: SearchKnobs;
  strength: unknown;
}

/** An entry's `level`: its place on the ladder a player chooses from, in a player's words.
 * `rated_as` names the player in the ratings table (ratings.json) whose rating it shows. */
export interface LevelEntry {
  name: string;
  about: string;
  ratedAs: string;
}

export interface AgentEntry {
  id: string;
  modelUrl: string;
  manifestUrl: string;
  search?: SearchEntry;
  /** A scripted bot (bots.ts) makes the moves; the net (model) gives the player's hints only. */
  bot?: BotName;
  level?: LevelEntry;
}

function parseLevel(raw: unknown, at: string): LevelEntry {
  const level = raw as { name?: unknown; about?: unknown; rated_as?: unknown };
  for (const key of ['name', 'about', 'rated_as'] as const) {
    if (typeof level?.[key] !== 'string' || (level[key] as string).trim() === '') throw new Error(`${at}: "level.${key}" must be a non-empty string`);
  }
  return { name: level.name as string, about: level.about as string, ratedAs: level.rated_as as string };
}

function parseSearch(raw: unknown, at: string, indexUrl: string): SearchEntry {
  const search = raw as { belief?: unknown; worlds?: unknown; candidates?: unknown; strength?: unknown };
  if (!search || typeof search !== 'object') throw new Error(`${at}: "search" must be an object`);
  const knobs = { ...BELIEF_PRESET };
  for (const key of ['worlds', 'candidates'] as const) {
    if (search[key] === undefined) continue;
    const value = search[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 256) {
      throw new Error(`${at}: "search.${key}" must be a whole number from 1 to 256 (got ${JSON.stringify(value)})`);
    }
    knobs[key] = value;
  }
  let beliefUrl: string | null = null;
  if (search.belief !== undefined) {
    if (typeof search.belief !== 'string' || !search.belief.endsWith('.onnx')) {
      throw new Error(`${at}: "search.belief" must name a belief model (.onnx), got ${JSON.stringify(search.belief)}`);
    }
    beliefUrl = new URL(search.belief, indexUrl).href;
  }
  const beliefManifestUrl = beliefUrl === null ? null : beliefUrl.replace(/\.onnx$/, '.json');
  return { beliefUrl, beliefManifestUrl, knobs, strength: search.strength ?? null };
}

export interface AgentIndex {
  defaultId: string;
  entries: AgentEntry[];
}

/** A measured result of the agent against one opponent (a subset of an evaluation gate's keys). */
export interface Strength {
  opponent: string;
  games: number;
  win_rate: number;
  win_rate_lower?: number;
  win_rate_upper?: number;
  margin_mean?: number;
  draws?: number;
}

export interface Agent extends AgentEntry {
  /** The manifest's name (a search's or a bot's with how it moves): the project's words, for the game log and the details. */
  name: string;
  /** The name a player reads: the level's, or one given off the ladder (`withLabels`). */
  label: string;
  manifest: Manifest | null;
  strength: Strength | null;
  /** Why this page cannot play the agent (manifest missing, an observation or features it lacks); null if playable. */
  problem: string | null;
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Validate the index and resolve its URLs against `indexUrl`; throws a message naming the problem. */
export function parseAgentIndex(json: unknown, indexUrl: string): AgentIndex {
  const index = json as { format?: unknown; version?: unknown; default?: unknown; agents?: unknown };
  const where = `the agent index ${INDEX_FILE}`;
  if (!index || typeof index !== 'object' || index.format !== INDEX_FORMAT) {
    throw new Error(`${where} is not a Lost Cities agent index (format ${JSON.stringify(index?.format)})`);
  }
  if (index.version !== INDEX_VERSION) {
    throw new Error(`${where} has version ${JSON.stringify(index.version)}; this page reads version ${INDEX_VERSION}`);
  }
  if (!Array.isArray(index.agents) || index.agents.length === 0) throw new Error(`${where} lists no agents`);
  const seen = new Set<string>();
  const entries = index.agents.map((raw: unknown, i: number): AgentEntry => {
    const entry = raw as { id?: unknown; model?: unknown; manifest?: unknown; search?: unknown; bot?: unknown; level?: unknown };
    const at = `${where}, agent ${i + 1}`;
    if (typeof entry?.id !== 'string' || !ID_PATTERN.test(entry.id)) {
      throw new Error(`${at}: "id" must be a short name of letters, digits, '.', '_' or '-' (got ${JSON.stringify(entry?.id)})`);
    }
    if (seen.has(entry.id)) throw new Error(`${at}: the id "${entry.id}" is listed twice`);
    seen.add(entry.id);
    for (const key of ['model', 'manifest'] as const) {
      if (typeof entry[key] !== 'string' || entry[key] === '') throw new Error(`${at} ("${entry.id}"): "${key}" must be a file name`);
    }
    const parsed: AgentEntry = {
      id: entry.id,
      modelUrl: new URL(entry.model as string, indexUrl).href,
      manifestUrl: new URL(entry.manifest as string, indexUrl).href,
    };
    if (entry.search !== undefined) parsed.search = parseSearch(entry.search, `${at} ("${entry.id}")`, indexUrl);
    if (entry.bot !== undefined) {
      if (!isBotName(entry.bot)) throw new Error(`${at} ("${entry.id}"): "bot" ${JSON.stringify(entry.bot)} is not a bot this page plays`);
      if (parsed.search) throw new Error(`${at} ("${entry.id}"): an entry moves by "bot" or by "search", not both`);
      parsed.bot = entry.bot;
    }
    if (entry.level !== undefined) parsed.level = parseLevel(entry.level, `${at} ("${entry.id}")`);
    return parsed;
  });
  const defaultId = index.default === undefined ? entries[0].id : index.default;
  if (typeof defaultId !== 'string' || !seen.has(defaultId)) {
    throw new Error(`${where}: "default" ${JSON.stringify(index.default)} is not one of the listed ids`);
  }
  return { defaultId, entries };
}

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** Anchors from strongest to weakest (SPEC §6): the fallback strength is the strongest one measured. */
export const ANCHORS = ['heuristic_expert', 'heuristic_cautious', 'heuristic_balanced', 'discard_only', 'random'];

function asStrength(raw: unknown, opponent?: string): Strength | null {
  const s = raw as Record<string, unknown> | null;
  if (!s || typeof s !== 'object') return null;
  const name = typeof s.opponent === 'string' ? s.opponent : opponent;
  if (!name || !isNumber(s.win_rate) || !isNumber(s.games) || s.games <= 0) return null;
  const strength: Strength = { opponent: name, games: s.games, win_rate: s.win_rate };
  for (const key of ['win_rate_lower', 'win_rate_upper', 'margin_mean', 'draws'] as const) {
    if (isNumber(s[key])) strength[key] = s[key];
  }
  return strength;
}

/** The manifest's `strength`, else its `gates` result against the strongest anchor; null if neither. */
export function strengthOf(manifest: Manifest): Strength | null {
  if (manifest.strength !== undefined && manifest.strength !== null) return asStrength(manifest.strength);
  const gates = manifest.gates as Record<string, unknown> | null | undefined;
  if (!gates || typeof gates !== 'object') return null;
  for (const anchor of ANCHORS) {
    const found = asStrength(gates[anchor], anchor);
    if (found) return found;
  }
  return null;
}

const percent = (x: number): string => `${(x * 100).toFixed(x >= 0.995 || x < 0.1 ? 1 : 0)}%`;

/** "wins 8.5% [6.1–11.6%] of 400 games vs heuristic_expert, margin −99" */
export function describeStrength(strength: Strength | null): string {
  if (!strength) return 'strength not measured';
  const ci =
    strength.win_rate_lower !== undefined && strength.win_rate_upper !== undefined
      ? ` [${percent(strength.win_rate_lower)}–${percent(strength.win_rate_upper)}]`
      : '';
  const margin = strength.margin_mean === undefined ? '' : `, mean margin ${signedRound(strength.margin_mean)}`;
  return `wins ${percent(strength.win_rate)}${ci} of ${strength.games} games vs ${strength.opponent}${margin}`;
}

/** The name of an agent off the ladder, numbered by withLabels. */
const PRACTICE = 'Practice opponent';

/** An index entry with its manifest read and checked; a bad manifest makes the agent unplayable, not the page. */
export function describeAgent(entry: AgentEntry, manifest: Manifest | null, loadProblem: string | null): Agent {
  const label = entry.level?.name ?? PRACTICE;
  if (!manifest) return { ...entry, name: entry.id, label, manifest: null, strength: null, problem: loadProblem ?? 'no manifest' };
  let problem: string | null = null;
  try {
    inputsFor(manifest);
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  const name = typeof manifest.name === 'string' && manifest.name.trim() ? manifest.name : entry.id;
  if (entry.bot) return { ...entry, name: `${entry.bot} (scripted; hints by ${name})`, label, manifest, strength: null, problem };
  if (!entry.search) return { ...entry, name, label, manifest, strength: strengthOf(manifest), problem };
  const { worlds, candidates } = entry.search.knobs;
  const how = `search, ${worlds} worlds × ${candidates} moves${entry.search.beliefUrl ? ', learned belief' : ''}`;
  return { ...entry, name: `${name} + ${how}`, label, manifest, strength: asStrength(entry.search.strength), problem };
}

/** The level that thinks ahead with `agent`'s net, if `agent` is that net alone (it plays the level's moves at a glance). */
export function quickOf(agent: Agent, agents: Agent[]): Agent | undefined {
  if (agent.level || agent.bot || agent.search) return undefined;
  return agents.find((a) => a.level && a.search && a.modelUrl === agent.modelUrl);
}

/** Player names for the agents off the ladder, whose ids and manifest names are training jargon: the net of a level
 * that thinks ahead, alone, is "Quick <level>"; any other "Practice opponent N", numbered in the index's order. */
export function withLabels(agents: Agent[]): Agent[] {
  let practice = 0;
  return agents.map((agent) => {
    if (agent.level) return agent;
    const quick = quickOf(agent, agents);
    return { ...agent, label: quick ? `Quick ${quick.level!.name}` : `${PRACTICE} ${++practice}` };
  });
}

/** Fetch the index and every manifest (small JSON files); the models are loaded only when chosen. */
export async function loadAgents(baseUrl: string): Promise<{ agents: Agent[]; defaultId: string }> {
  const indexUrl = new URL(INDEX_FILE, baseUrl).href;
  const response = await fetch(indexUrl);
  if (!response.ok) throw new Error(`could not load the agent index ${INDEX_FILE} (HTTP ${response.status})`);
  const index = parseAgentIndex(await response.json(), indexUrl);
  const agents = await Promise.all(
    index.entries.map(async (entry) => {
      try {
        const manifestResponse = await fetch(entry.manifestUrl);
        if (!manifestResponse.ok) return describeAgent(entry, null, `could not load its manifest (HTTP ${manifestResponse.status})`);
        return describeAgent(entry, (await manifestResponse.json()) as Manifest, null);
      } catch (error) {
        return describeAgent(entry, null, `could not read its manifest: ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
  );
  return { agents: withLabels(agents), defaultId: index.defaultId };
}

/** An agent as the page names it to a player: its ladder level, else the label it was given off the ladder. */
export const playerName = (agent: Agent | undefined): string => agent?.label ?? 'the agent';

/** An opponent's name where a table cell or a line has room for a few words: as playerName, else "Agent". */
export const seatName = (agent: Agent | undefined): string => agent?.label ?? 'Agent';
