/**
 * Action features `af1`, a transcription of lost_cities/networks/features.py (its layout tables
 * hold the meaning of every column; the columns' offsets, what they read of the observation and
 * the expert's style come from the generated contract, contract.ts), including what they read: the mover's view of the
 * round rebuilt from the observation (`viewState`), the engine's legal mask on it, and
 * `heuristic_expert`'s scoring (lost_cities/bots/heuristic.py `action_values` with the
 * EXPERT style, shifted by lost_cities/bots/expert.py `expert_values`).
 *
 * Every float is float32, as in JAX: `f` rounds each operation's result, in the order
 * the Python code evaluates it, and divisions by constants are products with the
 * float32 reciprocal (`scaled`, `over`), as XLA compiles them under jit. The rows are
 * checked against a Python-generated fixture (tests/actionFeatures.test.ts).
 */
import { DECK_DRAWS, HAND_SIZE, MAX_STEPS, N_ACTIONS, N_CARDS, N_COLOURS, N_DRAW_SOURCES, N_HANDSHAKE_SLOTS, N_PLACE_TYPES, N_SLOTS } from './cards';
import { CONTRACT, layoutOffsets } from './contract';
import { CHANNEL, N_CHANNELS, V1_AT, scaled } from './observation';
import { OBS_V2_DIM, V2_AT } from './matchObservation';
import { N_ROUNDS } from './match';

const AF1 = CONTRACT.features.af1;
export const AF_VERSION = 'af1';
export const N_PLACEMENTS = AF1.placement.rows; // 16: row hand slot * N_PLACE_TYPES + place type
export const N_PLACEMENT_FEATURES = AF1.placement.width; // 28
export const N_DRAW_FEATURES = AF1.draw.width; // 10
const REACHABLE_PLACES = CONTRACT.observations.v2.reachable_places; // 3 per seat
const N_REACHABLE = 2 * REACHABLE_PLACES; // both seats'
/** Where each column of a placement row lies (the contract's, lost_cities/networks/features.py PLACEMENT_COLUMNS). */
export const PLACEMENT_AT = layoutOffsets('af1 placement rows', AF1.placement.columns, {
  colour: N_COLOURS,
  handshake: 1,
  rank: 1,
  my_expedition: 4,
  opponent_expedition: 3,
  live_me: 1,
  live_opponent: 1,
  rank_above_mine: 1,
  hand_of_colour: 1,
  reachable: N_REACHABLE,
  place_type: N_PLACE_TYPES,
  expert_placement: 1,
  legal: 1,
});
/** Where each column of a draw row lies (DRAW_COLUMNS). */
export const DRAW_AT = layoutOffsets('af1 draw rows', AF1.draw.columns, {
  deck: 1,
  same_colour: 1,
  top_rank: 1,
  top_handshake: 1,
  top_live_me: 1,
  top_live_opponent: 1,
  deck_left: 1,
  expert_draw: 1,
  expert_total: 1,
  legal: 1,
});
export const EXPERT_TOTAL = DRAW_AT.expert_total; // draw row index of the expert's score of the whole action

const f = Math.fround;
const over = (x: number, divisor: number): number => f(x * f(1 / divisor)); // XLA's x / c under jit
const CARRY_SCALE = CONTRACT.observations.v2.scales.margin;
const LAST_ROUND = AF1.last_round;
const EXPERT_FLOOR = AF1.expert_floor;
const EXPERT_SCALE = f(AF1.expert_scale);

/** A style of heuristic.py's scoring (its `Style`), in float32 as Python holds it. */
export interface Style {
  openThreshold: number;
  handshakeThreshold: number;
  unseenShare: number;
  playBonus: number;
  keepFloor: number;
  dangerWeight: number;
  pileDrawCost: number;
  extendDrawsOnly: boolean;
}

type ContractStyle = typeof AF1.expert.style;
const styleOf = (style: ContractStyle): Style => ({
  openThreshold: f(style.open_threshold),
  handshakeThreshold: f(style.handshake_threshold),
  unseenShare: f(style.unseen_share),
  playBonus: f(style.play_bonus),
  keepFloor: f(style.keep_floor),
  dangerWeight: f(style.danger_weight),
  pileDrawCost: f(style.pile_draw_cost),
  extendDrawsOnly: style.extend_draws_only,
});
// The expert's style (bots/expert.py EXPERT: bots/heuristic.py BALANCED with its overrides), from the contract.
const EXPERT = styleOf(AF1.expert.style);
/** heuristic_cautious's style (bots/heuristic.py CAUTIOUS), from the contract. */
export const CAUTIOUS = styleOf(CONTRACT.bots.heuristic_cautious.style);
const EXPEDITION_COST = AF1.expert.expedition_cost;
const GIFT_TO_EMPTY_EXPEDITION = f(AF1.expert.gift_to_empty_expedition);
const HANDSHAKE_WORTH = AF1.expert.handshake_worth;
const TURNS_FOR_FULL_HAND = AF1.expert.turns_for_full_hand;
const LEAD_SHIFT_PER_ROUND = AF1.expert.lead_shift_per_round.map(f);

/** Face value of a slot (0 for a handshake slot), cards.py `slot_rank`. */
const slotRank = (slot: number): number => (slot >= N_HANDSHAKE_SLOTS ? slot - 1 : 0);
/** Python's (and jnp's) integer modulo: the sign of the divisor. */
const mod = (a: number, b: number): number => ((a % b) + b) % b;
/** jnp.round: half to even. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** The mover's view of the round (lost_cities/networks/features.py `view_state`): seat 0 is the mover. */
export interface ViewState {
  hand: number[]; // sorted card ids; as in Python, card 0 fills the slots of a hand of fewer than 8
  unseen: boolean[]; // per card: in the deck or the opponent's unknown hand
  pileTop: number[]; // per colour, the top card id or -1
  expTop: [number[], number[]]; // highest number slot per colour, 0 if none (me, opponent)
  expSum: [number[], number[]];
  expHandshakes: [number[], number[]];
  expCount: [number[], number[]];
  deckPtr: number;
  plies: number;
}

export function viewState(obs: ArrayLike<number>): ViewState {
  const channel = (card: number, k: number) => obs[V1_AT.cards + card * N_CHANNELS + k] > 0.5;
  const hand: number[] = [];
  const unseen: boolean[] = [];
  const pileTop = new Array<number>(N_COLOURS).fill(-1);
  const sides = () => Array.from({ length: 4 }, () => new Array<number>(N_COLOURS).fill(0));
  const [myTop, mySum, myHs, myCount] = sides();
  const [oppTop, oppSum, oppHs, oppCount] = sides();
  for (let card = 0; card < N_CARDS; card++) {
    const colour = Math.floor(card / N_SLOTS);
    const slot = card % N_SLOTS;
    if (channel(card, CHANNEL.myHand) && hand.length < HAND_SIZE) hand.push(card);
    unseen.push(channel(card, CHANNEL.unseen));
    if (channel(card, CHANNEL.pileTop)) pileTop[colour] = card; // one top per colour: the sum of ids + 1, minus 1
    for (const [k, top, sum, hs, count] of [
      [CHANNEL.myExpedition, myTop, mySum, myHs, myCount],
      [CHANNEL.opponentExpedition, oppTop, oppSum, oppHs, oppCount],
    ] as const) {
      if (!channel(card, k)) continue;
      count[colour] += 1;
      if (slot >= N_HANDSHAKE_SLOTS) {
        top[colour] = Math.max(top[colour], slot);
        sum[colour] += slotRank(slot);
      } else {
        hs[colour] += 1;
      }
    }
  }
  while (hand.length < HAND_SIZE) hand.push(0);
  const deckLeft = roundHalfEven(f(obs[V1_AT.deck_left] * DECK_DRAWS));
  return {
    hand,
    unseen,
    pileTop,
    expTop: [myTop, oppTop],
    expSum: [mySum, oppSum],
    expHandshakes: [myHs, oppHs],
    expCount: [myCount, oppCount],
    deckPtr: N_CARDS - deckLeft,
    plies: roundHalfEven(f(obs[V1_AT.plies] * MAX_STEPS)),
  };
}

/** ``(roundIdx, carry lead)`` from observation v2; a v1 observation is a lone last round. */
export function matchContext(obs: ArrayLike<number>): [number, number] {
  if (obs.length < OBS_V2_DIM) return [LAST_ROUND, 0];
  let roundIdx = 0;
  for (let r = 0; r < N_ROUNDS; r++) roundIdx = f(roundIdx + f(obs[V2_AT.round + r] * r));
  return [Math.trunc(roundIdx), roundHalfEven(f(obs[V2_AT.carry_margin] * CARRY_SCALE))];
}

const actionId = (slot: number, place: number, draw: number) => (slot * N_PLACE_TYPES + place) * N_DRAW_SOURCES + draw;

/** The engine's legal mask (engine.py `legal_action_mask`) on the view: the mover is seat 0. */
export function viewLegalMask(view: ViewState): boolean[] {
  const mask = new Array<boolean>(N_ACTIONS).fill(false);
  view.hand.forEach((card, i) => {
    const colour = Math.floor(card / N_SLOTS);
    const slot = card % N_SLOTS;
    const key = slot >= N_HANDSHAKE_SLOTS ? slot : 1;
    const playOk = key > view.expTop[0][colour];
    for (let d = 0; d < N_DRAW_SOURCES; d++) {
      const drawOk = d === 0 || view.pileTop[d - 1] >= 0;
      mask[actionId(i, 0, d)] = playOk && drawOk;
      mask[actionId(i, 1, d)] = drawOk && !(d > 0 && colour === d - 1);
    }
  });
  return mask;
}

/** `max(0, projection - threshold)` unless started (heuristic.py `_colour_value`). */
const colourValue = (projection: number, started: boolean, threshold: number): number =>
  started ? projection : Math.max(0, f(projection - threshold));

/** float32[96]: `heuristic_expert`'s score of every action for the mover (bots/expert.py `expert_values`). */
export function expertValues(view: ViewState, roundIdx: number, lead: number): Float32Array {
  const deckLeft = f(N_CARDS - view.deckPtr);
  const turnsLeft = Math.ceil(f(deckLeft * 0.5));
  const handWeight = Math.min(Math.max(over(turnsLeft, TURNS_FOR_FULL_HAND), f(0.2)), 1);
  const perPoint = roundIdx >= 0 && roundIdx < 3 ? LEAD_SHIFT_PER_ROUND[roundIdx] : 0;
  const openShift = f(perPoint * Math.min(Math.max(lead, -60), 60));
  return actionValues(view, openShift, handWeight);
}

/** heuristic.py `action_values` with a style (the expert's unless given), for seat 0 of the view. */
export function actionValues(view: ViewState, openShift: number, handWeight: number, s: Style = EXPERT): Float32Array {
  const hand = view.hand;
  const colour = hand.map((card) => Math.floor(card / N_SLOTS));
  const slot = hand.map((card) => card % N_SLOTS);
  const isNumber = slot.map((x) => x >= N_HANDSHAKE_SLOTS);
  const rank = slot.map(slotRank);
  const [myTop, oppTop] = view.expTop;
  const mySum = view.expSum[0];
  const myHandshakes = view.expHandshakes[0];
  const started = view.expCount[0].map((n) => n > 0);
  const oppMult = view.expHandshakes[1].map((h) => 1 + h);
  const oppStarted = view.expCount[1].map((n) => n > 0);
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  const H = range(HAND_SIZE);
  const C = range(N_COLOURS);

  const topOfCard = H.map((i) => myTop[colour[i]]);
  const live = H.map((i) => (isNumber[i] ? slot[i] > topOfCard[i] : topOfCard[i] === 0));
  const liveNumber = H.map((i) => live[i] && isNumber[i]);
  const liveHandshake = H.map((i) => live[i] && !isNumber[i]);
  const handNumbers = C.map((c) => H.reduce((t, i) => (colour[i] === c && liveNumber[i] ? t + rank[i] : t), 0));
  const handHandshakes = C.map((c) => H.filter((i) => colour[i] === c && liveHandshake[i]).length);

  const unseenLive = C.map((c) =>
    range(N_SLOTS).map((x) => view.unseen[c * N_SLOTS + x] && x >= N_HANDSHAKE_SLOTS && x > myTop[c]),
  );
  const deckShare = over(f(N_CARDS - view.deckPtr), DECK_DRAWS);
  const unseenWeight = f(s.unseenShare * deckShare);
  const unseenNumbers = C.map((c) => unseenLive[c].reduce((t, on, x) => (on ? t + slotRank(x) : t), 0));

  const numbers = C.map((c) => f(f(mySum[c] + f(handWeight * handNumbers[c])) + f(unseenWeight * unseenNumbers[c])));
  const handshakes = C.map((c) => f(myHandshakes[c] + f(handWeight * handHandshakes[c])));
  const projection = C.map((c) => f(f(1 + handshakes[c]) * f(numbers[c] - EXPEDITION_COST)));
  const openBar = f(s.openThreshold + openShift);
  const handshakeBar = f(s.handshakeThreshold + openShift);
  const value = C.map((c) => colourValue(projection[c], started[c], openBar));

  const cardNumbers = H.map((i) => numbers[colour[i]]);
  const cardHandshakes = H.map((i) => handshakes[colour[i]]);
  const cardValue = H.map((i) => value[colour[i]]);
  const cardStarted = H.map((i) => started[colour[i]]);
  const cardProjection = H.map((i) => projection[colour[i]]);

  const keep = H.map((i) => {
    const withoutNumbers = f(cardNumbers[i] - (liveNumber[i] ? f(handWeight * rank[i]) : 0));
    const withoutHandshakes = f(cardHandshakes[i] - (liveHandshake[i] ? handWeight : 0));
    const without = f(f(1 + withoutHandshakes) * f(withoutNumbers - EXPEDITION_COST));
    const k = f(cardValue[i] - colourValue(without, cardStarted[i], openBar));
    return live[i] ? f(k + f(s.keepFloor * rank[i])) : 0;
  });

  const play = H.map((i) => {
    let skippedHand = 0;
    for (const j of H) if (colour[j] === colour[i] && liveNumber[j] && slot[j] < slot[i]) skippedHand += rank[j];
    let skippedUnseen = 0;
    for (let x = 0; x < N_SLOTS; x++) if (unseenLive[colour[i]][x] && x < slot[i]) skippedUnseen += slotRank(x);
    const stranded =
      isNumber[i] && topOfCard[i] === 0
        ? f(handHandshakes[colour[i]] * Math.max(0, f(cardNumbers[i] - EXPEDITION_COST)))
        : 0;
    const mult = f(1 + cardHandshakes[i]);
    const skipCost = f(f(mult * f(f(handWeight * skippedHand) + f(unseenWeight * skippedUnseen))) + stranded);
    const extend = f(s.playBonus - skipCost);
    const openNumber = f(f(f(s.playBonus + cardProjection[i]) - openBar) - skipCost);
    const openHandshake = f(f(s.playBonus + cardProjection[i]) - handshakeBar);
    const handshakeMore = f(f(s.playBonus + f(cardNumbers[i] - EXPEDITION_COST)) - handshakeBar);
    if (isNumber[i]) return cardStarted[i] ? extend : openNumber;
    return cardStarted[i] ? handshakeMore : openHandshake;
  });

  const discard = H.map((i) => {
    const oppTopOfCard = oppTop[colour[i]];
    const oppLive = isNumber[i] ? slot[i] > oppTopOfCard : oppTopOfCard === 0;
    const oppWorth = isNumber[i] ? rank[i] : HANDSHAKE_WORTH;
    const danger = oppLive
      ? oppStarted[colour[i]]
        ? f(oppMult[colour[i]] * oppWorth)
        : f(GIFT_TO_EMPTY_EXPEDITION * oppWorth)
      : 0;
    return f(-keep[i] - f(s.dangerWeight * danger));
  });

  // Pile draws (heuristic.py `_pile_draw_values`; with extend_draws_only, only those that extend an expedition), after each placement.
  const values = new Float32Array(N_ACTIONS);
  for (const i of H) {
    for (let p = 0; p < N_PLACE_TYPES; p++) {
      const placement = p === 0 ? play[i] : discard[i];
      values[actionId(i, p, 0)] = f(placement + 0);
      for (const c of C) {
        const top = view.pileTop[c];
        const topSlot = mod(top, N_SLOTS);
        const topIsNumber = topSlot >= N_HANDSHAKE_SLOTS;
        const topRank = slotRank(topSlot);
        const played = p === 0 && colour[i] === c;
        const afterTop = played && isNumber[i] ? Math.max(myTop[c], slot[i]) : myTop[c];
        const afterStarted = started[c] || played;
        const pileLive = top >= 0 && (topIsNumber ? topSlot > afterTop : afterTop === 0);
        const withNumbers = f(numbers[c] + (topIsNumber ? f(handWeight * topRank) : 0));
        const withHandshakes = f(handshakes[c] + (topIsNumber ? 0 : handWeight));
        const withTop = f(f(1 + withHandshakes) * f(withNumbers - EXPEDITION_COST));
        const gain = f(colourValue(withTop, afterStarted, openBar) - value[c]);
        let draw = f((pileLive ? f(gain + f(s.keepFloor * topRank)) : 0) - s.pileDrawCost);
        const blocked = H.some(
          (j) => j !== i && colour[j] === c && isNumber[j] && slot[j] > afterTop && slot[j] < topSlot,
        );
        const extends_ = pileLive && topIsNumber && afterStarted && !blocked;
        if (s.extendDrawsOnly && !extends_) draw = -Infinity;
        values[actionId(i, p, c + 1)] = f(placement + draw);
      }
    }
  }
  return values;
}

export interface ActionFeatures {
  placement: Float32Array; // [16, 28], row slot * 2 + place, columns at PLACEMENT_AT
  draw: Float32Array; // [96, 10], row = action id, columns at DRAW_AT
  mask: boolean[]; // the legal mask of the view (the engine's, for the mover)
}

/** The `af1` rows of one observation (v1 or v2), lost_cities/networks/features.py `action_features`. */
export function actionFeatures(obs: ArrayLike<number>): ActionFeatures {
  const view = viewState(obs);
  const mask = viewLegalMask(view);
  const [roundIdx, lead] = matchContext(obs);
  const total = expertValues(view, roundIdx, lead);
  const v2 = obs.length >= OBS_V2_DIM;
  const placement = new Float32Array(N_PLACEMENTS * N_PLACEMENT_FEATURES);
  const draw = new Float32Array(N_ACTIONS * N_DRAW_FEATURES);
  const high = (top: number) => (top > 0 ? top - 1 : 0);
  const handPerColour = new Array<number>(N_COLOURS).fill(0);
  for (const card of view.hand) handPerColour[Math.floor(card / N_SLOTS)] += 1;
  const deckLeft = scaled(N_CARDS - view.deckPtr, DECK_DRAWS);
  const floor = (x: number) => f(Math.max(x, EXPERT_FLOOR) * EXPERT_SCALE);

  view.hand.forEach((card, i) => {
    const colour = Math.floor(card / N_SLOTS);
    const slot = card % N_SLOTS;
    const isNumber = slot >= N_HANDSHAKE_SLOTS;
    const rank = isNumber ? slotRank(slot) : 0;
    const myTop = view.expTop[0][colour];
    const oppTop = view.expTop[1][colour];
    const liveMe = isNumber ? slot > myTop : myTop === 0;
    const liveOpp = isNumber ? slot > oppTop : oppTop === 0;
    const mySide = [scaled(high(myTop), 10), view.expCount[0][colour] > 0 ? 1 : 0, scaled(view.expHandshakes[0][colour], 3), scaled(view.expCount[0][colour], 12)];
    const oppSide = [scaled(high(oppTop), 10), view.expCount[1][colour] > 0 ? 1 : 0, scaled(view.expHandshakes[1][colour], 3)];
    // observation v2's reachable ranks of the colour: me (hand, piles, unseen), then the opponent (known hand, piles, unseen)
    const places = REACHABLE_PLACES;
    const reach = Array.from({ length: 2 * places }, (_, k) =>
      v2 ? obs[(k < places ? V2_AT.my_reachable : V2_AT.their_reachable) + (k % places) * N_COLOURS + colour] : 0,
    );
    for (let p = 0; p < N_PLACE_TYPES; p++) {
      const at = (i * N_PLACE_TYPES + p) * N_PLACEMENT_FEATURES;
      const score = total[actionId(i, p, 0)];
      let anyLegal = false;
      for (let d = 0; d < N_DRAW_SOURCES; d++) anyLegal ||= mask[actionId(i, p, d)];
      placement[at + PLACEMENT_AT.colour + colour] = 1;
      placement[at + PLACEMENT_AT.handshake] = isNumber ? 0 : 1;
      placement[at + PLACEMENT_AT.rank] = scaled(rank, 10);
      placement.set(mySide, at + PLACEMENT_AT.my_expedition);
      placement.set(oppSide, at + PLACEMENT_AT.opponent_expedition);
      placement[at + PLACEMENT_AT.live_me] = liveMe ? 1 : 0;
      placement[at + PLACEMENT_AT.live_opponent] = liveOpp ? 1 : 0;
      placement[at + PLACEMENT_AT.rank_above_mine] = isNumber ? scaled(rank - high(myTop), 10) : 0;
      placement[at + PLACEMENT_AT.hand_of_colour] = scaled(handPerColour[colour], 8);
      placement.set(reach, at + PLACEMENT_AT.reachable);
      placement[at + PLACEMENT_AT.place_type + p] = 1;
      placement[at + PLACEMENT_AT.expert_placement] = f(score * EXPERT_SCALE);
      placement[at + PLACEMENT_AT.legal] = anyLegal ? 1 : 0;
      for (let d = 0; d < N_DRAW_SOURCES; d++) {
        const action = actionId(i, p, d);
        const row = action * N_DRAW_FEATURES;
        if (d === 0) {
          draw[row + DRAW_AT.deck] = 1;
        } else {
          const c = d - 1;
          const top = view.pileTop[c];
          const topSlot = mod(top, N_SLOTS);
          const topNumber = topSlot >= N_HANDSHAKE_SLOTS;
          const topRank = top >= 0 && topNumber ? slotRank(topSlot) : 0;
          const myTopC = view.expTop[0][c];
          const afterTop = p === 0 && colour === c && isNumber ? Math.max(myTopC, slot) : myTopC;
          const oppTopC = view.expTop[1][c];
          draw[row + DRAW_AT.same_colour] = colour === c ? 1 : 0;
          draw[row + DRAW_AT.top_rank] = scaled(topRank, 10);
          draw[row + DRAW_AT.top_handshake] = top >= 0 && !topNumber ? 1 : 0;
          draw[row + DRAW_AT.top_live_me] = top >= 0 && (topNumber ? topSlot > afterTop : afterTop === 0) ? 1 : 0;
          draw[row + DRAW_AT.top_live_opponent] = top >= 0 && (topNumber ? topSlot > oppTopC : oppTopC === 0) ? 1 : 0;
        }
        draw[row + DRAW_AT.deck_left] = deckLeft;
        draw[row + DRAW_AT.expert_draw] = floor(f(total[action] - score));
        draw[row + DRAW_AT.expert_total] = floor(total[action]);
        draw[row + DRAW_AT.legal] = mask[action] ? 1 : 0;
      }
    }
  });
  return { placement, draw, mask };
}
