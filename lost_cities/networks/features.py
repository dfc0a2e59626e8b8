"""Action features ``af1``: what each of the 96 actions does, read off the observation.

An action is (hand slot, place type, draw source) (docs/encodings.md), but observations v1/v2
encode cards by id, so an MLP over them must first learn which card sits in which hand
slot. This block gives each action its facts directly: the slot's card, its colour's
state on both sides of the table, the placement, the draw, and ``heuristic_expert``'s
scores of the action. It is computed from the observation alone, so it never knows
more than the mover: the observation is turned back into a round
:class:`~lost_cities.game.engine.State` seen from the mover (seat 0 in it; the cards it
has not seen in the deck; each pile as its top over the rest), on which the engine's
legal mask and the expert's scoring run unchanged. Tests check both equal their values
on the true state. ``lost_cities.networks.nets.ActionNet`` scores the actions from these
rows with weights shared across hand slots and draw sources; the web client computes
the same rows (web/src/actionFeatures.ts) and feeds them to the exported network.

Two blocks, so that a network scores the 16 placements once and their 6 draws cheaply.

Placement rows ``[16, 28]`` (row ``slot * 2 + place``):

| index  | content                                                                       |
| ------ | ----------------------------------------------------------------------------- |
| 0..4   | the slot card's colour one-hot                                                |
| 5      | the card is a handshake                                                       |
| 6      | its rank / 10 (0 for a handshake)                                             |
| 7..10  | my expedition of that colour: highest number / 10, started, handshakes / 3,  |
|        | cards / 12                                                                    |
| 11..13 | the opponent's expedition of that colour: highest number / 10, started,      |
|        | handshakes / 3                                                                |
| 14     | the card can still go on my expedition (above my top; a handshake: no number) |
| 15     | the card can still go on the opponent's expedition                            |
| 16     | its rank minus my highest number of the colour, / 10 (numbers only)           |
| 17     | my hand cards of the colour / 8                                               |
| 18..23 | observation v2's reachable ranks of the colour / 54 (me: hand, piles, unseen; |
|        | the opponent: known hand, piles, unseen); 0 for observation v1                |
| 24, 25 | place type one-hot (play, discard)                                            |
| 26     | ``heuristic_expert``'s score of the placement / 10                            |
| 27     | the placement is legal (with some draw)                                       |

Draw rows ``[96, 10]`` (row = action id ``slot * 12 + place * 6 + draw``):

| index | content                                                                        |
| ----- | ------------------------------------------------------------------------------ |
| 0     | draw from the deck                                                             |
| 1     | the drawn pile top's colour is the placed card's colour                        |
| 2     | the drawn pile top's rank / 10 (0 for a handshake or the deck)                 |
| 3     | the drawn pile top is a handshake                                              |
| 4     | the drawn pile top can go on my expedition after this placement                |
| 5     | the drawn pile top can go on the opponent's expedition                         |
| 6     | deck cards left / 44                                                           |
| 7     | ``heuristic_expert``'s score of the draw / 10 (its ``-inf`` clipped to -10)    |
| 8     | ``heuristic_expert``'s score of the whole action / 10 (the same clip)          |
| 9     | the action is legal                                                            |

The same columns as data: :data:`PLACEMENT_COLUMNS` and :data:`DRAW_COLUMNS` (name, offset,
size of each column block, in order), which :func:`action_features` assembles its rows by
and ``python tools/web_contract.py`` writes for the web client; what the rows read of the
observation is named by the observations' layouts (``OBS_V1_LAYOUT``, ``OBS_V2_LAYOUT``).
"""

import jax
import jax.numpy as jnp
import numpy as np

from lost_cities.bots.expert import expert_values
from lost_cities.game.cards import (
    DECK_DRAWS,
    HAND_SIZE,
    MAX_STEPS,
    N_ACTIONS,
    N_CARDS,
    N_COLOURS,
    N_DRAW_SOURCES,
    N_HANDSHAKE_SLOTS,
    N_PLACE_TYPES,
    N_SLOTS,
    slot_rank,
)
from lost_cities.game.engine import (
    LOC_EXPEDITION,
    LOC_HAND,
    LOC_KNOWN,
    LOC_PILE,
    State,
    legal_action_mask,
    seat_view,
)
from lost_cities.obs.v1 import (
    CHANNELS,
    DECK_LEFT_INDEX,
    N_CARD_FEATURES,
    N_CHANNELS,
    PLIES_INDEX,
    assemble,
    block,
    layout,
    layout_size,
    pile_tops,
    scaled,
)
from lost_cities.obs.v2 import MARGIN_SCALE, OBS_V2_DIM, OBS_V2_LAYOUT, ROUND_BLOCK

AF_VERSION = "af1"
N_PLACEMENTS = HAND_SIZE * N_PLACE_TYPES
# What observation v2's reachable ranks give a placement row: both seats' 3 places.
N_REACHABLE = 2 * block(OBS_V2_LAYOUT, "my_reachable").size // N_COLOURS
# Placement row ``slot * 2 + place`` (the layout table above, one block per row group).
PLACEMENT_COLUMNS = layout(
    (
        ("colour", N_COLOURS),  # one-hot
        ("handshake", 1),
        ("rank", 1),
        ("my_expedition", 4),  # highest number / 10, started, handshakes / 3, cards / 12
        ("opponent_expedition", 3),  # highest number / 10, started, handshakes / 3
        ("live_me", 1),
        ("live_opponent", 1),
        ("rank_above_mine", 1),
        ("hand_of_colour", 1),
        ("reachable", N_REACHABLE),  # place-major, as observation v2 (0 for v1)
        ("place_type", N_PLACE_TYPES),  # one-hot
        ("expert_placement", 1),
        ("legal", 1),
    )
)
# Draw row ``action id`` (the layout table above).
DRAW_COLUMNS = layout(
    (
        ("deck", 1),
        ("same_colour", 1),
        ("top_rank", 1),
        ("top_handshake", 1),
        ("top_live_me", 1),
        ("top_live_opponent", 1),
        ("deck_left", 1),
        ("expert_draw", 1),
        ("expert_total", 1),
        ("legal", 1),
    )
)
N_PLACEMENT_FEATURES = layout_size(PLACEMENT_COLUMNS)
N_DRAW_FEATURES = layout_size(DRAW_COLUMNS)
EXPERT_TOTAL = block(DRAW_COLUMNS, "expert_total").offset  # the expert's score of the whole action
EXPERT_FLOOR = -100.0  # points; the expert scores pile draws it never makes -inf
EXPERT_SCALE = np.float32(0.1)

_SLOTS = np.arange(N_SLOTS)
_IS_NUMBER = _SLOTS >= N_HANDSHAKE_SLOTS
_RANKS = np.where(_IS_NUMBER, slot_rank(_SLOTS), 0).astype(np.float32)
_CARD_IDS = np.arange(N_CARDS)
# The draw row's columns of its draw source (one value each: the deck's in _DECK_SOURCE), then
# those of the whole action.
_SOURCE_COLUMNS = tuple(b.name for b in DRAW_COLUMNS if b.stop <= block(DRAW_COLUMNS, "deck_left").offset)
_ACTION_COLUMNS = tuple(b.name for b in DRAW_COLUMNS[len(_SOURCE_COLUMNS) :])
assert all(b.size == 1 for b in DRAW_COLUMNS)
_DECK_SOURCE = np.array([name == "deck" for name in _SOURCE_COLUMNS], np.float32)
# Where observation v2 keeps what the features read (its layout, lost_cities/obs/v2.py).
_CARRY_V2, _CARRY_SCALE = block(OBS_V2_LAYOUT, "carry_margin").offset, float(MARGIN_SCALE)
_ROUND_V2 = ROUND_BLOCK.offset
# N_REACHABLE * 5 values: me (hand, piles, unseen), then the opponent (known hand, piles, unseen).
_REACHABLE_V2 = block(OBS_V2_LAYOUT, "my_reachable").offset
assert block(OBS_V2_LAYOUT, "their_reachable").offset == block(OBS_V2_LAYOUT, "my_reachable").stop
_DECK_LEFT, _PLIES = DECK_LEFT_INDEX, PLIES_INDEX  # observation v1's scalars
LAST_ROUND = 2  # a lone round is played as the last round of a level match (bots/context.py)
_BELOW_T = (_CARD_IDS[:, None] < _CARD_IDS[None, :]).astype(np.float32)  # [c', c]: c' has a lower id than c


def _expedition(on, colour_axis_sum):
    """Per colour (from a bool[5, 12] of cards on one expedition): top slot, rank sum,
    handshakes, cards."""
    top = jnp.max(jnp.where(on & _IS_NUMBER, _SLOTS, 0), axis=1)
    ranks = jnp.sum(jnp.where(on, _RANKS, 0.0), axis=1)
    handshakes = jnp.sum(on & ~_IS_NUMBER, axis=1)
    return top, ranks, handshakes, colour_axis_sum(on)


def view_state(obs):
    """The round seen from the observer, as a :class:`State` with the observer in seat 0.

    Unseen cards (deck or the opponent's unknown hand) are put in the deck; every pile
    holds at most its top (depth 1) and the cards below it (depth 0), which is all that
    pile tops need. Valid for what the scripted scoring reads: hands, expeditions, pile
    tops, the unseen set and the deck pointer.
    """
    channels = obs[:N_CARD_FEATURES].reshape(N_CARDS, N_CHANNELS) > 0.5
    channel = {name: channels[:, k] for k, name in enumerate(CHANNELS)}
    mine, my_exp, opp_exp, top = (channel[name] for name in CHANNELS[:4])
    # Every card is in exactly one channel: its loc code is the sum over channels.
    code_of = {
        "my_hand": LOC_HAND,
        "my_expedition": LOC_EXPEDITION,
        "opponent_expedition": LOC_EXPEDITION + 1,
        "pile_top": LOC_PILE + 1,
        "pile_below": LOC_PILE,
        "opponent_known": LOC_KNOWN + 1,
        "unseen": 0,
    }
    codes = np.array([code_of[name] for name in CHANNELS])
    loc = jnp.sum(jnp.where(channels, codes[None, :], 0), axis=1).astype(jnp.int8)
    # Sorted hand: card c is slot (number of hand cards below c).
    # A matrix product, not a cumsum or a masked sum: both are quadratic loops on XLA:CPU,
    # and were half of a network rollout ply's cost; exact (0/1 operands, at most 60 ones).
    position = jnp.dot(mine.astype(jnp.float32), _BELOW_T).astype(jnp.int32)
    in_slot = mine[:, None] & (position[:, None] == np.arange(HAND_SIZE)[None, :])  # [60, 8]
    hand = jnp.sum(jnp.where(in_slot, _CARD_IDS[:, None], 0), axis=0)
    by_colour = lambda x: x.reshape(N_COLOURS, N_SLOTS)  # noqa: E731
    count = lambda on: jnp.sum(on, axis=1)  # noqa: E731
    tops, sums, handshakes, counts = zip(
        _expedition(by_colour(my_exp), count), _expedition(by_colour(opp_exp), count), strict=True
    )
    pile_size = jnp.where(jnp.any(by_colour(top), axis=1), 2, 0)
    deck_left = jnp.round(obs[_DECK_LEFT] * DECK_DRAWS).astype(jnp.int32)
    as_int8 = lambda pair: jnp.stack(pair).astype(jnp.int8)  # noqa: E731
    return State(
        loc=loc,
        hands=jnp.stack([hand, jnp.zeros_like(hand)]).astype(jnp.int8),
        pile_size=pile_size.astype(jnp.int8),
        exp_top=as_int8(tops),
        exp_sum=as_int8(sums),
        exp_handshakes=as_int8(handshakes),
        exp_count=as_int8(counts),
        deck_ptr=(N_CARDS - deck_left).astype(jnp.int8),
        plies=jnp.round(obs[_PLIES] * MAX_STEPS).astype(jnp.int32),
        to_move=jnp.int32(0),
        done=jnp.bool_(False),
    )


def observer_view(round_state, player):
    """:func:`view_state` of ``player``'s observation, built from the round state itself.

    Whoever holds the state (a search rollout, the learner's rollout, an agent acting)
    skips decoding the observation's 420 card channels (8x the cost): the view's fields are
    the state's own, seen from ``player`` (tested equal to ``view_state(observation(...))``).
    """
    me = jnp.asarray(player, jnp.int32)
    opp = 1 - me
    loc = round_state.loc.astype(jnp.int32)
    card_pile_size = jnp.repeat(round_state.pile_size.astype(jnp.int32), N_SLOTS)
    in_pile = loc >= LOC_PILE
    codes = jnp.where(
        (loc == LOC_HAND + me) | (loc == LOC_KNOWN + me),
        LOC_HAND,
        jnp.where(
            loc == LOC_EXPEDITION + me,
            LOC_EXPEDITION,
            jnp.where(
                loc == LOC_EXPEDITION + opp,
                LOC_EXPEDITION + 1,
                jnp.where(
                    in_pile,
                    jnp.where(loc == LOC_PILE - 1 + card_pile_size, LOC_PILE + 1, LOC_PILE),
                    jnp.where(loc == LOC_KNOWN + opp, LOC_KNOWN + 1, 0),
                ),
            ),
        ),
    )
    seats = lambda x: jnp.stack([seat_view(x, me), seat_view(x, opp)])  # noqa: E731
    hand = seat_view(round_state.hands, me)
    return State(
        loc=codes.astype(jnp.int8),
        hands=jnp.stack([hand, jnp.zeros_like(hand)]),
        pile_size=jnp.where(round_state.pile_size > 0, 2, 0).astype(jnp.int8),
        exp_top=seats(round_state.exp_top),
        exp_sum=seats(round_state.exp_sum),
        exp_handshakes=seats(round_state.exp_handshakes),
        exp_count=seats(round_state.exp_count),
        deck_ptr=round_state.deck_ptr,
        plies=round_state.plies,
        to_move=jnp.int32(0),
        done=jnp.bool_(False),
    )


def match_context(obs):
    """``(round_idx, carry lead)`` from observation v2; a v1 observation is a lone last round."""
    if obs.shape[-1] < OBS_V2_DIM:
        return jnp.int32(LAST_ROUND), jnp.float32(0.0)
    round_idx = jnp.sum(obs[_ROUND_V2 : ROUND_BLOCK.stop] * np.arange(ROUND_BLOCK.size)).astype(jnp.int32)
    return round_idx, jnp.round(obs[_CARRY_V2] * _CARRY_SCALE)


def action_features(obs, view=None):
    """``(placement float32[16, 28], draw float32[96, 10])``: the ``af1`` rows of one observation
    (``view``: its :func:`view_state`, when the caller has it from :func:`observer_view`)."""
    state = view_state(obs) if view is None else view
    mask = legal_action_mask(state)
    f32 = lambda x: jnp.asarray(x, jnp.float32)  # noqa: E731
    hand = state.hands[0].astype(jnp.int32)
    colour = hand // N_SLOTS
    slot = hand % N_SLOTS
    is_number = slot >= N_HANDSHAKE_SLOTS
    rank = jnp.where(is_number, slot_rank(slot), 0)
    onehot = colour[:, None] == np.arange(N_COLOURS)[None, :]  # [8, 5]
    per_card = lambda per_colour: jnp.sum(jnp.where(onehot, per_colour[None, :], 0), axis=1)  # noqa: E731

    def side(seat):
        top = state.exp_top[seat].astype(jnp.int32)
        return (
            top,
            jnp.where(top > 0, top - 1, 0),
            state.exp_count[seat] > 0,
            state.exp_handshakes[seat],
            state.exp_count[seat],
        )

    my_top, my_high, my_started, my_hs, my_count = side(0)
    opp_top, opp_high, opp_started, opp_hs, _ = side(1)
    card_my_top = per_card(my_top)
    card_opp_top = per_card(opp_top)
    live_me = jnp.where(is_number, slot > card_my_top, card_my_top == 0)
    live_opp = jnp.where(is_number, slot > card_opp_top, card_opp_top == 0)
    hand_per_colour = jnp.sum(onehot, axis=0)
    if obs.shape[-1] >= OBS_V2_DIM:
        reach = obs[_REACHABLE_V2 : _REACHABLE_V2 + N_REACHABLE * N_COLOURS].reshape(N_REACHABLE, N_COLOURS)
        card_reach = jnp.sum(jnp.where(onehot[:, None, :], reach[None], 0.0), axis=2)  # [8, 6]
    else:
        card_reach = jnp.zeros((HAND_SIZE, N_REACHABLE))
    slot_columns = {  # the placement row's columns of the slot's card
        "colour": f32(onehot),
        "handshake": f32(~is_number)[:, None],
        "rank": scaled(rank, 10)[:, None],
        "my_expedition": jnp.stack(
            [
                scaled(per_card(my_high), 10),
                f32(per_card(my_started)),
                scaled(per_card(my_hs), 3),
                scaled(per_card(my_count), 12),
            ],
            axis=1,
        ),
        "opponent_expedition": jnp.stack(
            [scaled(per_card(opp_high), 10), f32(per_card(opp_started)), scaled(per_card(opp_hs), 3)], axis=1
        ),
        "live_me": f32(live_me)[:, None],
        "live_opponent": f32(live_opp)[:, None],
        "rank_above_mine": jnp.where(is_number, scaled(rank - per_card(my_high), 10), 0.0)[:, None],
        "hand_of_colour": scaled(per_card(hand_per_colour), 8)[:, None],
        "reachable": card_reach,
    }  # each [8, width]

    # Draw sources after each placement: the deck, then the pile tops of colours 0..4.
    pile_top = pile_tops(state).astype(jnp.int32)  # [5], -1 where empty
    top_slot = pile_top % N_SLOTS
    top_number = top_slot >= N_HANDSHAKE_SLOTS
    top_rank = jnp.where((pile_top >= 0) & top_number, slot_rank(top_slot), 0)
    # Materialized once: XLA:CPU would recompute these per-card and per-colour values inside
    # every element of the [8, 2, 5] draw rows (7% of a network search's time, same values).
    per_card_and_colour = (pile_top, top_slot, top_number, top_rank, slot, is_number, onehot, my_top, opp_top)
    pile_top, top_slot, top_number, top_rank, slot, is_number, onehot, my_top, opp_top = (
        jax.lax.optimization_barrier(per_card_and_colour)
    )
    played = onehot[:, None, :] & (np.arange(N_PLACE_TYPES) == 0)[None, :, None]  # [8, 2, 5]
    raised = jnp.maximum(my_top[None, None, :], slot[:, None, None])
    after_top = jnp.where(played & is_number[:, None, None], raised, my_top[None, None, :])
    top_live_me = (pile_top >= 0) & jnp.where(top_number, top_slot > after_top, after_top == 0)
    top_live_opp = (pile_top >= 0) & jnp.where(top_number, top_slot > opp_top, opp_top == 0)
    same_colour = onehot[:, None, :] & jnp.ones((1, N_PLACE_TYPES, 1), bool)
    per_pile = lambda x: jnp.broadcast_to(x, (HAND_SIZE, N_PLACE_TYPES, N_COLOURS))  # noqa: E731
    pile_columns = {  # each [8, 2, 5]: the draw row's source columns for the pile of each colour
        "deck": jnp.zeros((HAND_SIZE, N_PLACE_TYPES, N_COLOURS)),
        "same_colour": f32(same_colour),
        "top_rank": per_pile(scaled(top_rank, 10)),
        "top_handshake": per_pile(f32((pile_top >= 0) & ~top_number)),
        "top_live_me": f32(top_live_me),
        "top_live_opponent": per_pile(f32(top_live_opp)),
    }
    pile_features = jnp.stack([pile_columns[name] for name in _SOURCE_COLUMNS], axis=-1)  # [8, 2, 5, 6]
    deck_features = jnp.broadcast_to(_DECK_SOURCE, (HAND_SIZE, N_PLACE_TYPES, 1, len(_SOURCE_COLUMNS)))
    draw_features = jnp.concatenate([deck_features, pile_features], axis=2)  # [8, 2, 6, 6]

    round_idx, lead = match_context(obs)
    total = expert_values(state, round_idx, lead).reshape(HAND_SIZE, N_PLACE_TYPES, N_DRAW_SOURCES)
    placement_score = total[:, :, 0]  # a deck draw adds nothing to the placement's score
    floor = lambda x: jnp.maximum(x, EXPERT_FLOOR) * EXPERT_SCALE  # noqa: E731
    legal = mask.reshape(HAND_SIZE, N_PLACE_TYPES, N_DRAW_SOURCES)
    per_place = lambda x: jnp.broadcast_to(x[:, None, :], (HAND_SIZE, N_PLACE_TYPES, x.shape[-1]))  # noqa: E731
    placement_columns = {name: per_place(part) for name, part in slot_columns.items()}
    placement_columns.update(
        place_type=jnp.broadcast_to(jnp.eye(N_PLACE_TYPES)[None], (HAND_SIZE, N_PLACE_TYPES, N_PLACE_TYPES)),
        expert_placement=(placement_score * EXPERT_SCALE)[..., None],
        legal=f32(jnp.any(legal, axis=-1))[..., None],
    )
    placement = assemble(PLACEMENT_COLUMNS, placement_columns, axis=-1)
    deck_left = scaled(N_CARDS - state.deck_ptr.astype(jnp.int32), DECK_DRAWS)
    shape = (HAND_SIZE, N_PLACE_TYPES, N_DRAW_SOURCES)
    action_columns = {  # each [8, 2, 6]
        "deck_left": jnp.broadcast_to(deck_left, shape),
        "expert_draw": floor(total - placement_score[..., None]),
        "expert_total": floor(total),
        "legal": f32(legal),
    }
    draw = jnp.concatenate(
        [draw_features] + [action_columns[name][..., None] for name in _ACTION_COLUMNS], axis=-1
    )
    return placement.reshape(N_PLACEMENTS, N_PLACEMENT_FEATURES), draw.reshape(N_ACTIONS, N_DRAW_FEATURES)


def batched_action_features(obs, views=None):
    """:func:`action_features` over any leading batch axes of ``obs`` (``views``: their
    :func:`observer_view`, with the same leading axes, or None)."""
    lead = obs.shape[:-1]
    flat = obs.reshape((-1, obs.shape[-1]))
    if views is None:
        placement, draw = jax.vmap(action_features)(flat)
    else:
        views = jax.tree.map(lambda x: x.reshape((flat.shape[0],) + x.shape[len(lead) :]), views)
        placement, draw = jax.vmap(action_features)(flat, views)
    return placement.reshape(lead + placement.shape[1:]), draw.reshape(lead + draw.shape[1:])
