/**
 * The search's worlds (search.ts): full states consistent with what the seat to move has
 * seen, mirroring lost_cities/search/determinize.py and belief.py.
 *
 * Hidden from the mover are the deck and the opponent's *unknown* hand cards (those it drew
 * from the deck); the opponent's known cards (taken from a discard pile) stay where they
 * are. A uniform world deals the unseen cards afresh over the same places; a belief's world
 * deals the opponent's unknown hand by the learned belief's per-card log-odds (a model
 * exported by `python -m lost_cities.search.belief export`) and the rest to the deck in
 * uniform order. Every loop runs over card ids, never over the true state's placement of
 * the hidden cards, so a world depends only on what the mover has seen and the random
 * stream (tests/search.test.ts permutes the true hidden cards to check it).
 *
 * What the belief reads (beliefFeatures), all of it the mover's:
 *
 *   [ the mover's observation v2                                          : 512 ]
 *   [ the opponent's latest move: its card one-hot as a play (60), as a discard (60) ]
 *   [ ... its `moves`-th latest move, the same 120 (zeros before the round had it)   ]
 */
import { DISCARD, HAND_SIZE, N_CARDS, decodeAction } from './cards';
import { type Random, shuffled } from './deal';
import { LOC_HAND, NO_MOVE, type RoundState } from './engine';
import type { MatchState } from './match';
import { OBS_V2_DIM, matchObservation } from './matchObservation';

export const BELIEF_FORMAT = 'lost-cities-belief';
export const BELIEF_VERSION = 1;

/** What the page needs of a belief's manifest (lost_cities/search/belief.py export). */
export interface BeliefManifest {
  format: string;
  version: number;
  obs_version: string;
  moves: number;
  features_dim: number;
  [key: string]: unknown;
}

export const beliefFeaturesDim = (moves: number): number => OBS_V2_DIM + 2 * N_CARDS * moves;

/** A clear error unless the manifest describes a belief this page can feed. */
export function checkBeliefManifest(manifest: BeliefManifest): void {
  if (manifest?.format !== BELIEF_FORMAT || manifest.version !== BELIEF_VERSION) {
    throw new Error(
      `not a belief model manifest (format ${JSON.stringify(manifest?.format)}, version ${JSON.stringify(manifest?.version)}; ` +
        `this page reads ${BELIEF_FORMAT} version ${BELIEF_VERSION})`,
    );
  }
  if (manifest.obs_version !== 'v2' || manifest.features_dim !== beliefFeaturesDim(manifest.moves)) {
    throw new Error(
      `the belief reads observation ${manifest.obs_version} and ${manifest.features_dim} features; this page computes ` +
        `v2 and ${beliefFeaturesDim(manifest.moves)} for ${manifest.moves} moves`,
    );
  }
}

/** float32[512 + 120 * moves]: what the belief reads for the seat to move (see the module doc). */
export function beliefFeatures(ms: MatchState, moves: number): Float32Array {
  const round = ms.round;
  const x = new Float32Array(beliefFeaturesDim(moves));
  x.set(matchObservation(ms, round.toMove));
  for (let k = 0; k < moves; k++) {
    const ply = 2 * k; // the latest move is the opponent's: the seats alternate within a round
    const card = round.recentCards[ply];
    if (card === NO_MOVE || card === undefined) continue;
    const placeType = decodeAction(round.recentActions[ply]).placeType;
    x[OBS_V2_DIM + k * 2 * N_CARDS + (placeType === DISCARD ? N_CARDS : 0) + card] = 1;
  }
  return x;
}

/** bool[60]: the cards `player` has not seen (the deck, or the opponent's unknown hand). */
export function unseenCards(round: RoundState, player: number): boolean[] {
  const opponentHand = LOC_HAND + 1 - player;
  return round.loc.map((loc) => loc < LOC_HAND || loc === opponentHand);
}

/** The number of the opponent's unknown hand cards (the hand the worlds deal). */
const unknownHandSize = (round: RoundState): number => round.loc.filter((loc) => loc === LOC_HAND + 1 - round.toMove).length;

/** The log-odds of each unseen card lying in the opponent's unknown hand in a uniform world. */
export function uniformLogit(round: RoundState): number {
  const unseen = unseenCards(round, round.toMove).filter(Boolean).length;
  const share = Math.min(Math.max(unknownHandSize(round) / Math.max(unseen, 1), 1e-4), 1 - 1e-4);
  return Math.log(share) - Math.log1p(-share);
}

const LOW = -1e9; // the log of a zero weight, finite so that sums of it stay finite

function logAddExp(a: number, b: number): number {
  const top = Math.max(a, b);
  return top + Math.log1p(Math.exp(-Math.abs(a - b)));
}

/**
 * bool[60]: `size` of the `members`, the set S drawn with probability proportional to
 * prod_{i in S} exp(logits[i]) (independent Bernoullis conditioned on their sum), so each
 * card's inclusion matches the belief's marginal; belief.py's conditional_bernoulli.
 * Card i joins with w_i e_{r-1}(w_{i+1:}) / e_r(w_{i:}) while r remain to draw, e_j the
 * elementary symmetric sums, kept as logs from the back.
 */
export function conditionalBernoulli(random: Random, logits: ArrayLike<number>, members: boolean[], size: number): boolean[] {
  const logW = members.map((member, card) => (member ? logits[card] : LOW));
  const logE: number[][] = new Array(N_CARDS + 1); // [i][j]: log e_j(w_{i:})
  logE[N_CARDS] = Array.from({ length: HAND_SIZE + 1 }, (_, j) => (j === 0 ? 0 : LOW));
  for (let i = N_CARDS - 1; i >= 0; i--) {
    const after = logE[i + 1];
    logE[i] = after.map((e, j) => (j === 0 ? e : logAddExp(e, logW[i] + after[j - 1])));
  }
  const taken = new Array<boolean>(N_CARDS).fill(false);
  let left = size;
  for (let i = 0; i < N_CARDS && left > 0; i++) {
    const u = Math.max(random(), 1e-12);
    if (!members[i]) continue;
    const join = logW[i] + logE[i + 1][left - 1] - logE[i][left];
    if (Math.log(u) < join) {
      taken[i] = true;
      left -= 1;
    }
  }
  return taken;
}

/** The round with the opponent's unknown hand made of `toHand` and the other unseen cards dealt to the deck in uniform order. */
function dealt(round: RoundState, toHand: boolean[], random: Random): RoundState {
  const opponent = 1 - round.toMove;
  const unseen = unseenCards(round, round.toMove);
  const loc = [...round.loc];
  const deckOrder = [...round.deckOrder];
  const deckCards: number[] = [];
  for (let card = 0; card < N_CARDS; card++) {
    if (!unseen[card]) continue;
    if (toHand[card]) loc[card] = LOC_HAND + opponent;
    else deckCards.push(card);
  }
  shuffled(deckCards, random).forEach((card, i) => {
    deckOrder[round.deckPtr + i] = card;
    loc[card] = round.deckPtr + i;
  });
  const hands: [number[], number[]] = [[...round.hands[0]], [...round.hands[1]]];
  hands[opponent] = round.hands[opponent].filter((card) => !unseen[card]); // its known cards
  for (let card = 0; card < N_CARDS; card++) if (toHand[card]) hands[opponent].push(card);
  hands[opponent].sort((a, b) => a - b);
  return { ...round, loc, deckOrder, hands };
}

/** A uniform world: the unseen cards dealt afresh, uniformly, over the same places. */
export function uniformRound(round: RoundState, random: Random): RoundState {
  const isUnseen = unseenCards(round, round.toMove);
  const unseen: number[] = [];
  for (let card = 0; card < N_CARDS; card++) if (isUnseen[card]) unseen.push(card);
  const toHand = new Array<boolean>(N_CARDS).fill(false);
  for (const card of shuffled(unseen, random).slice(0, unknownHandSize(round))) toHand[card] = true;
  return dealt(round, toHand, random);
}

/** A belief's world: the opponent's unknown hand drawn by the belief's `logits` (float32[60]). */
export function believedRound(round: RoundState, logits: ArrayLike<number>, random: Random): RoundState {
  const toHand = conditionalBernoulli(random, logits, unseenCards(round, round.toMove), unknownHandSize(round));
  return dealt(round, toHand, random);
}
