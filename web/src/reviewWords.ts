/**
 * The review and the match's result in a player's words: the verdict on each decision, the reason a
 * better move is better (from review.ts's `Reason`, only where the rollouts show it), what the
 * summary's numbers mean, and one wording of a match's result for every place that states it.
 */
import { DECK, DISCARD, PLAY, cardColour, decodeAction } from './cards';
import { COLOUR_NAMES, adviceInSentence, cardName } from './describe';
import { type RoundState, deckLeft } from './engine';
import { points, whole } from './format';
import { type DecisionReview, type Reason, clearlyBetter } from './review';

/** A match's result from the player's side: "you won by 309 (317 to 8)", "the Master won by 40 (60 to 100)", "a draw (50 to 50)". */
export function resultWords(you: number, them: number, opponent: string): string {
  const score = `(${whole(you)} to ${whole(them)})`;
  if (you === them) return `a draw ${score}`;
  return you > them ? `you won by ${you - them} ${score}` : `the ${opponent} won by ${them - you} ${score}`;
}

export const capitalized = (text: string): string => text[0].toUpperCase() + text.slice(1);

/** "+8.4 ± 3.1": an estimate and its standard error, as the review shows them. */
export const estimate = (mean: number, se: number): string => `${points(mean)} ± ${se.toFixed(1)}`;

/** Why the better move is better, in a short phrase: what it does with the expedition the rollouts single out. */
export function reasonPhrase(round: RoundState, best: number, played: number, reason: Reason): string {
  const me = round.toMove;
  const hand = round.hands[me];
  const better = decodeAction(best);
  const mine = decodeAction(played);
  const [betterCard, myCard] = [hand[better.handSlot], hand[mine.handSlot]];
  const colour = COLOUR_NAMES[reason.colour];
  const ofColour = (card: number) => cardColour(card) === reason.colour;
  const takesFromPile = better.drawSource !== DECK && better.drawSource - 1 === reason.colour;
  const pileTop = () => cardName(round.piles[reason.colour][round.piles[reason.colour].length - 1]);
  const deck = deckLeft(round);
  if (reason.seat === 'you') {
    const open = round.expCount[me][reason.colour] > 0;
    if (better.placeType === PLAY && ofColour(betterCard)) return open ? `it builds your ${colour} expedition` : `it opens ${colour}, with ${deck} cards left in the deck to build it`;
    if (takesFromPile) return `it takes ${pileTop()} for your ${colour} expedition`;
    if (mine.placeType === DISCARD && ofColour(myCard)) return `it keeps ${cardName(myCard)} for your ${colour} expedition`;
    if (mine.placeType === PLAY && ofColour(myCard)) return open ? `it holds ${cardName(myCard)} back for now` : `opening ${colour} now loses points, with ${deck} cards left in the deck`;
    return `your ${colour} expedition ends the round stronger`;
  }
  if (mine.placeType === DISCARD && ofColour(myCard)) return `it keeps ${cardName(myCard)} from the opponent`;
  if (takesFromPile) return `it takes ${pileTop()} before the opponent can`;
  return `the opponent's ${colour} expedition ends the round weaker`;
}

/** The evidence behind a reason: "your Blue expedition: +6.5 ± 2.0 points". */
export function reasonEvidence(reason: Reason): string {
  const whose = reason.seat === 'you' ? 'your' : "the opponent's";
  const sign = reason.seat === 'you' ? 1 : -1;
  return `${whose} ${COLOUR_NAMES[reason.colour]} expedition: ${estimate(sign * reason.points, reason.se)} points at the round's end`;
}

/** The verdict on one decision (`round`: the position the player decided in). */
export function verdict(d: DecisionReview, round: RoundState, reviewer: string): string {
  if (d.forced) return 'Only one legal move.';
  if (d.best === d.played) return `The ${reviewer} would have made the same move.`;
  if (!clearlyBetter(d)) return `Your move was as good as any the ${reviewer} found.`;
  const why = d.reason ? `: ${reasonPhrase(round, d.best, d.played, d.reason)}` : '';
  return `Better: ${adviceInSentence(round, d.best)}${why}.`;
}

/** What the review's numbers mean, once, under its summary. */
export const HOW_TO_READ =
  'Each estimate replays the rest of the round from your decision twice, once with your move and once with the better one, ' +
  'over many guesses at the cards you could not see. ± is its uncertainty (one standard error): the true value is within it about 2 times in 3. ' +
  'A move is called better only when its gain is larger than its ±. Pink numbers are points lost at that decision.';
