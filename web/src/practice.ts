/**
 * The opponents off the ladder (agents.json entries without a `level`: earlier nets, still playable) in a player's
 * words: one line on what each is and how strong it is, from its manifest and ratings.json. Their ids and manifest
 * names are training jargon; the chooser keeps them for its technical details and the option's tooltip.
 */
import { type Agent, quickOf } from './agents';
import { capitalized } from './reviewWords';
import { type Ratings, ratingText } from './ratings';

/** An off-ladder net's name in the ratings table, if the tournament played it: it names a net by its file
 * (`web/public/<model>.onnx`); a level's name there is the index's `rated_as`. */
export function ratedAs(agent: Agent, ratings: Ratings): string | null {
  if (agent.level) return agent.level.ratedAs;
  if (agent.bot || agent.search) return null; // rated under another name than its net's file, if at all
  const file = new URL(agent.modelUrl).pathname.split('/').pop();
  return [...ratings.players.keys()].find((player) => !player.includes(':') && player.split('/').pop() === file) ?? null;
}

/** Where a rating sits on the ladder: "between the Club player and the Expert", "above the Master". */
function placeOnLadder(rating: number, agents: Agent[], ratings: Ratings): string {
  const levels = agents
    .filter((a) => a.level && ratings.players.has(a.level.ratedAs))
    .map((a) => ({ name: a.level!.name, rating: ratings.players.get(a.level!.ratedAs)!.rating }))
    .sort((a, b) => a.rating - b.rating);
  const below = levels.filter((l) => l.rating <= rating).at(-1);
  const above = levels.find((l) => l.rating > rating);
  if (below && above) return `between the ${below.name} and the ${above.name}`;
  return below ? `above the ${below.name}` : above ? `below the ${above.name}` : '';
}

/** What the agent is, from its entry and manifest: a net is placed in training by its manifest's date against the
 * ladder's newest net. */
function kind(agent: Agent, agents: Agent[]): string {
  const quick = quickOf(agent, agents);
  if (quick) return `The ${quick.level!.name} without its look-ahead: the same network, answering at once.`;
  if (agent.bot) {
    const same = agents.find((a) => a.level && a.bot === agent.bot);
    return same ? `Plays as the ${same.level!.name} does.` : 'A hand-written player.';
  }
  if (agent.search) return 'A network thinking ahead before each move.';
  if (agent.manifest?.placeholder) return 'An untrained network (random weights), for testing the page.';
  const created = (a: Agent) => (typeof a.manifest?.created === 'string' ? Date.parse(a.manifest.created) : NaN);
  const newest = Math.max(...agents.filter((a) => a.level && !a.bot).map(created).filter(Number.isFinite));
  const own = created(agent);
  if (!Number.isFinite(own) || !Number.isFinite(newest)) return 'A network not on the ladder.';
  return own < newest ? 'A network from an earlier stage of training.' : 'A newer network, not yet on the ladder.';
}

/** How strong it is, in the ladder's terms: its rating if the tournament played it, else its measured share of
 * matches against a level (the Club player, for the nets' measurements). */
function strength(agent: Agent, agents: Agent[], ratings: Ratings | null): string {
  const player = ratings && ratedAs(agent, ratings);
  const rating = player ? ratings!.players.get(player) : undefined;
  if (rating) {
    const finite = rating.score_rate === undefined || (rating.score_rate > 0 && rating.score_rate < 1);
    const place = finite ? placeOnLadder(rating.rating, agents, ratings!) : '';
    return `${capitalized(ratingText(ratings!, player!))}${place ? `, ${place}` : ''}.`;
  }
  // the share itself, not the ladder's "7 of 10": practice opponents measured alike would read alike
  const measured = agent.strength;
  const level = measured && agents.find((a) => a.level?.ratedAs === measured.opponent);
  if (measured && level) return `Wins ${Math.round(measured.win_rate * 100)}% of its matches against the ${level.level!.name}.`;
  return measured ? 'Not measured against the ladder.' : 'Strength not measured.';
}

/** The line a player reads under an off-ladder opponent's name: what it is and how strong. */
export const practiceLine = (agent: Agent, agents: Agent[], ratings: Ratings | null): string =>
  `${kind(agent, agents)} ${strength(agent, agents, ratings)}`;
