/** The board's rows, shared by the table (view.ts) and the review (reviewView.ts): the expeditions and the piles. */
import { N_COLOURS } from './cards';
import { COLOUR_KEYS, COLOUR_NAMES } from './describe';
import { type RoundState, boardScore, deckLeft, expeditionCards, expeditionScore } from './engine';
import { signed } from './format';
import { back, card } from './html';

export const COLOURS = [...Array(N_COLOURS).keys()];
/** Cards in a row of a fanned expedition (style.css fans them out): two rows hold the longest, 12 cards. */
const FAN = 6;

/** One seat's five expeditions and its board score; a stack's cards squeeze together as it grows, so the row keeps its height. */
export function expeditionRow(round: RoundState, seat: number, side: 'agent' | 'me'): string {
  const columns = COLOURS.map((colour) => {
    const cards = expeditionCards(round, seat, colour);
    const score = cards.length ? expeditionScore(round, seat, colour) : null;
    const scoreLabel = `<div class="exp-score ${score !== null && score < 0 ? 'neg' : ''}">${score === null ? '' : signed(score)}</div>`;
    const fanned = cards.map((id, i) => card(id, '', `--col:${i % FAN};--row:${Math.floor(i / FAN)}`));
    const stack = `<div class="stack" style="--rows:${Math.ceil(cards.length / FAN)}">${fanned.join('')}</div>`;
    return `<div class="exp c-${COLOUR_KEYS[colour]}-zone">${side === 'agent' ? stack + scoreLabel : scoreLabel + stack}</div>`;
  });
  return `<div class="expeditions ${side}" data-testid="expeditions-${side}">${columns.join('')}<div class="exp-total">${signed(boardScore(round)[seat])}<small>this round</small></div></div>`;
}

/** A pile's or the deck's class and attribute as a draw target (`draw`: its data-do), or none. */
const target = (draw: string | null): [string, string] => (draw ? ['drawable', `data-do="${draw}"`] : ['', '']);

/** A discard pile: its top card (or its empty place) and how many cards it holds; `draw` (a data-do) makes it a draw target. */
export function pileView(round: RoundState, colour: number, draw: string | null = null): string {
  const pile = round.piles[colour];
  const top = pile.length ? card(pile[pile.length - 1]) : `<div class="card empty c-${COLOUR_KEYS[colour]}-empty"></div>`;
  const [cls, attr] = target(draw);
  return `<div class="pile ${cls}" ${attr} title="${COLOUR_NAMES[colour]} discard pile">${top}<div class="count">${pile.length ? `${pile.length} card${pile.length > 1 ? 's' : ''}` : 'empty'}</div></div>`;
}

/** The deck: its back (or its empty place) and the cards left; `draw` (a data-do) makes it a draw target. */
export function deckView(round: RoundState, draw: string | null = null): string {
  const left = deckLeft(round);
  const [cls, attr] = target(draw);
  return `<div class="pile deck ${cls}" ${attr} data-testid="deck">${left ? back() : '<div class="card empty"></div>'}<div class="count"><b>${left}</b><span class="long"> in deck</span><span class="short"> left</span></div></div>`;
}
