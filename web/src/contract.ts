/**
 * The Python package's contract with this client: src/generated/contract.json, written by
 * `python tools/web_contract.py` (lost_cities/export/web_contract.py) from the Python modules
 * that own each number: the card and action encodings, the engine's loc codes, the observation
 * layouts (v1, v2), the af1 feature columns and the expert's style they score by, and the
 * page's search preset. Never edit the JSON (tests/export/test_web_contract.py holds it to the
 * Python side); this module types it, and `layoutOffsets` checks at load that a layout holds
 * exactly the blocks this client writes or reads, at whatever offsets the Python side put them.
 */
import generated from './generated/contract.json';

/** One block of a flat layout: `size` values from index `offset`. */
export interface Block {
  name: string;
  offset: number;
  size: number;
}

export interface Contract {
  generated_by: string;
  format_version: number;
  cards: {
    n_colours: number;
    n_slots: number;
    n_cards: number;
    n_handshake_slots: number;
    hand_size: number;
    dealt: number;
    deck_draws: number;
    max_steps: number;
  };
  actions: { n_place_types: number; n_draw_sources: number; n_actions: number; play: number; discard: number; deck: number };
  engine: { loc_hand: number; loc_known: number; loc_expedition: number; loc_pile: number; move_history: number; no_move: number };
  match: { n_rounds: number };
  observations: {
    v1: {
      dim: number;
      blocks: Block[];
      channels: string[];
      scales: {
        deck_left: number;
        opponent_unknown: number;
        plies: number;
        expeditions: { highest: number; handshakes: number; cards: number };
        board_margin: number;
      };
    };
    v2: {
      dim: number;
      blocks: Block[];
      reachable_places: number;
      margin_thresholds: number[];
      scales: { margin: number; board_margin: number; colour_ranks: number; rounds_left: number };
    };
  };
  features: {
    af1: {
      placement: { rows: number; width: number; columns: Block[] };
      draw: { rows: number; width: number; columns: Block[] };
      expert_floor: number;
      expert_scale: number;
      last_round: number;
      expert: {
        style: {
          open_threshold: number;
          handshake_threshold: number;
          unseen_share: number;
          play_bonus: number;
          keep_floor: number;
          danger_weight: number;
          pile_draw_cost: number;
          extend_draws_only: boolean;
        };
        expedition_cost: number;
        gift_to_empty_expedition: number;
        handshake_worth: number;
        turns_for_full_hand: number;
        lead_shift_per_round: number[];
      };
    };
  };
  bots: {
    heuristic_cautious: {
      style: {
        open_threshold: number;
        handshake_threshold: number;
        unseen_share: number;
        play_bonus: number;
        keep_floor: number;
        danger_weight: number;
        pile_draw_cost: number;
        extend_draws_only: boolean;
      };
    };
  };
  search: { preset: string; knobs: Record<string, unknown> & { worlds: number; candidates: number; gate_points: number; gate_z: number } };
}

export const CONTRACT: Contract = generated;

/** The number of values a layout spans (its last block's end). */
export const layoutSize = (blocks: readonly Block[]): number => Math.max(...blocks.map((b) => b.offset + b.size));

/**
 * Each block's offset by name, after checking that `blocks` (a layout of the contract) holds
 * exactly the blocks of `sizes`, with those sizes, in any order: what this client computes.
 * A Python change this client has not followed fails here, at load, naming the difference.
 */
export function layoutOffsets<K extends string>(what: string, blocks: readonly Block[], sizes: Record<K, number>): Record<K, number> {
  const expected = Object.entries(sizes) as [K, number][];
  const problems = [
    ...expected.flatMap(([name, size]) => {
      const block = blocks.find((b) => b.name === name);
      if (!block) return [`no block ${name}`];
      return block.size === size ? [] : [`${name} holds ${block.size} values, this client writes ${size}`];
    }),
    ...blocks.filter((b) => !(b.name in sizes)).map((b) => `an unknown block ${b.name} (${b.size} values)`),
    ...[...blocks]
      .sort((a, b) => a.offset - b.offset)
      .flatMap((b, i, sorted) => {
        const end = i === 0 ? 0 : sorted[i - 1].offset + sorted[i - 1].size;
        return b.offset === end ? [] : [`${b.name} starts at ${b.offset}, not at ${end}`];
      }),
  ];
  if (problems.length > 0) {
    throw new Error(`${what}: the Python side's layout (src/generated/contract.json) differs from this client's: ${problems.join('; ')}`);
  }
  return Object.fromEntries(expected.map(([name]) => [name, (blocks.find((b) => b.name === name) as Block).offset])) as Record<K, number>;
}
