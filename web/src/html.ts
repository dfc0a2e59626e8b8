/** The page's small HTML pieces (plain strings; the table is re-rendered whole): cards, buttons, escaping. */
import { cardColour } from './cards';
import { COLOUR_KEYS, cardFace, cardName } from './describe';

export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export const card = (id: number, extra = '', style = ''): string =>
  `<div class="card c-${COLOUR_KEYS[cardColour(id)]} ${extra}" ${style ? `style="${style}"` : ''} title="${cardName(id)}"><span class="corner">${cardFace(id)}</span><span class="face">${cardFace(id)}</span></div>`;

export const back = (extra = ''): string => `<div class="card back ${extra}"></div>`;

export const button = (label: string, action: string, enabled = true, extra = ''): string =>
  `<button data-do="${action}" data-testid="${action}" ${enabled ? '' : 'disabled'} ${extra}>${label}</button>`;
