/**
 * Observation v1 (SPEC §4), a transcription of lost_cities/obs/v1.py, bit-exact; its blocks'
 * offsets, card channels and scales come from the generated contract (contract.ts).
 *
 * XLA compiles `x / constant` as `x * float32(1 / constant)`, which can differ from the
 * true quotient in the last bit; `scaled` reproduces that product. Both factors are
 * float32, so their double product is exact and one rounding gives XLA's result.
 */
import { N_CARDS, N_COLOURS } from './cards';
import { CONTRACT, layoutOffsets } from './contract';
import { LOC_EXPEDITION, LOC_HAND, LOC_KNOWN, LOC_PILE, type RoundState, boardScore } from './engine';

const V1 = CONTRACT.observations.v1;
export const OBS_V1_VERSION = 'v1';
export const N_CHANNELS = V1.channels.length; // 7
export const N_CARD_FEATURES = N_CARDS * N_CHANNELS; // 420: card * N_CHANNELS + channel
export const OBS_V1_DIM = V1.dim; // 454
export const SCORE_SCALE = V1.scales.board_margin; // 780
const EXPEDITION_SCALES = V1.scales.expeditions;
const N_EXPEDITION_FEATURES = Object.keys(EXPEDITION_SCALES).length * N_COLOURS; // 15 per seat
/** Where each block of observation v1 lies (the contract's layout, lost_cities/obs/v1.py OBS_V1_LAYOUT). */
export const V1_AT = layoutOffsets('observation v1', V1.blocks, {
  cards: N_CARD_FEATURES,
  deck_left: 1,
  opponent_unknown: 1,
  plies: 1,
  my_expeditions: N_EXPEDITION_FEATURES,
  opponent_expeditions: N_EXPEDITION_FEATURES,
  board_margin: 1,
});

function channelIndex(name: string): number {
  const index = V1.channels.indexOf(name);
  if (index < 0) throw new Error(`observation v1: the contract has no card channel ${name} (it has ${V1.channels.join(', ')})`);
  return index;
}

/** A card's channel in observation v1 (lost_cities/obs/v1.py CHANNELS), by name. */
export const CHANNEL = {
  myHand: channelIndex('my_hand'),
  myExpedition: channelIndex('my_expedition'),
  opponentExpedition: channelIndex('opponent_expedition'),
  pileTop: channelIndex('pile_top'),
  pileBelow: channelIndex('pile_below'),
  opponentKnown: channelIndex('opponent_known'),
  unseen: channelIndex('unseen'),
};
if (new Set(Object.values(CHANNEL)).size !== N_CHANNELS) throw new Error('observation v1: the contract has card channels this client does not compute');

export const scaled = (x: number, divisor: number): number => Math.fround(x * Math.fround(1 / divisor));

/** Each card's channel (a `CHANNEL` index) from `player`'s point of view. */
export function cardChannels(state: RoundState, player: number): number[] {
  const opponent = 1 - player;
  const tops = new Set(state.piles.filter((pile) => pile.length > 0).map((pile) => pile[pile.length - 1]));
  return state.loc.map((loc, card) => {
    if (loc === LOC_HAND + player || loc === LOC_KNOWN + player) return CHANNEL.myHand;
    if (loc === LOC_EXPEDITION + player) return CHANNEL.myExpedition;
    if (loc === LOC_EXPEDITION + opponent) return CHANNEL.opponentExpedition;
    if (loc === LOC_PILE) return tops.has(card) ? CHANNEL.pileTop : CHANNEL.pileBelow;
    if (loc === LOC_KNOWN + opponent) return CHANNEL.opponentKnown;
    return CHANNEL.unseen;
  });
}

/** Per colour: highest number, handshakes, cards, each scaled (v1.py `expedition_features`). */
export function expeditionFeatures(state: RoundState, seat: number): number[] {
  const values = {
    highest: state.expTop[seat].map((top) => (top > 0 ? top - 1 : 0)),
    handshakes: state.expHandshakes[seat],
    cards: state.expCount[seat],
  };
  return (Object.keys(EXPEDITION_SCALES) as (keyof typeof values)[]).flatMap((name) =>
    values[name].map((x) => scaled(x, EXPEDITION_SCALES[name])),
  );
}

export function observationV1(state: RoundState, player: number): Float32Array {
  const obs = new Float32Array(OBS_V1_DIM);
  cardChannels(state, player).forEach((channel, card) => {
    obs[V1_AT.cards + card * N_CHANNELS + channel] = 1;
  });
  const opponent = 1 - player;
  const unknownOpponentCards = state.loc.filter((loc) => loc === LOC_HAND + opponent).length;
  const boards = boardScore(state);
  const scales = V1.scales;
  obs[V1_AT.deck_left] = scaled(N_CARDS - state.deckPtr, scales.deck_left);
  obs[V1_AT.opponent_unknown] = scaled(unknownOpponentCards, scales.opponent_unknown);
  obs[V1_AT.plies] = scaled(state.plies, scales.plies);
  obs.set(expeditionFeatures(state, player), V1_AT.my_expeditions);
  obs.set(expeditionFeatures(state, opponent), V1_AT.opponent_expeditions);
  obs[V1_AT.board_margin] = scaled(boards[player] - boards[opponent], SCORE_SCALE);
  return obs;
}
