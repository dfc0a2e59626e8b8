"""A learned belief over the opponent's unknown hand, and the search's worlds dealt from it.

A uniform world (:mod:`lost_cities.search.determinize`) deals the opponent any hand of the
cards the mover has not seen, though the opponent chose its moves with its real hand. A
belief learned from self-play maps what the mover knows to each unseen card's chance of
lying in the opponent's unknown hand; the search knob ``belief: <file>`` deals the worlds'
opponent hands from it, everything else as in a uniform world. Told the opponent's true
hand, the search on the page's search net realizes about +3 points a round more than with
uniform worlds; a belief trained on 1.2M positions, about +1 (experiments/search-belief/).

Fitting a belief on a policy's self-play is :mod:`lost_cities.imitation.belief`
(``python -m lost_cities.belief``); its ONNX export for the page, :mod:`lost_cities.export.belief`.

What the belief reads, all of it the mover's (:func:`features`)::

    [ env.observe(state, mover) : obs_dim                                   ]
    [ the opponent's latest move: its card one-hot as a play (60), as a discard (60) ]
    [ ... its ``moves``-th latest move, the same 120 (zeros before the round had it) ]
"""

import dataclasses
import functools
import json
from pathlib import Path

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization
from jax.tree_util import Partial

from lost_cities import envs
from lost_cities.game.cards import CARD_IDS, HAND_SIZE, N_CARDS, decode_action
from lost_cities.game.engine import LOC_HAND, LOC_KNOWN
from lost_cities.game.views import current_round, with_round
from lost_cities.search.determinize import deck_dealt_afresh, determinize, sorted_hand, unseen_cards

FORMAT = "lost_cities.belief/1"


@dataclasses.dataclass(frozen=True)
class LearnedBelief:
    """A trained belief: ``params`` of :class:`BeliefNet` with ``hidden`` widths, reading
    ``env_name``'s observation and the opponent's latest ``moves`` moves; ``report`` says
    how it was trained (base, positions, held-out losses)."""

    params: dict
    env_name: str
    moves: int
    hidden: tuple
    report: dict


class BeliefNet(nn.Module):
    """What the mover knows -> a logit per card of lying in the opponent's unknown hand: the
    uniform worlds' log-odds (:func:`uniform_logit`) plus a learned correction, whose last
    layer starts at zero, so an untrained belief deals exactly the uniform worlds' hands and
    a little data cannot make it worse than them by much."""

    hidden: tuple = (256, 256)

    @nn.compact
    def __call__(self, x, prior):
        for width in self.hidden:
            x = nn.relu(nn.Dense(width)(x))
        return prior[..., None] + nn.Dense(N_CARDS, kernel_init=nn.initializers.zeros)(x)


def features(env, env_state, moves):
    """float32[obs_dim + 120 * moves]: the mover's observation, then for each of the
    opponent's latest ``moves`` moves of the round the card it placed, one-hot, once as a
    play and once as a discard (see the module doc)."""
    state = current_round(env_state)
    obs = env.observe(env_state, state.to_move)
    if moves == 0:
        return obs
    opponents = jnp.arange(moves) * 2  # recent_*[0] is the latest move: the opponent's
    cards = state.recent_cards[opponents].astype(jnp.int32)
    place_type = decode_action(state.recent_actions[opponents].astype(jnp.int32))[1]
    placed = (cards[:, None] == CARD_IDS[None, :]) & (cards[:, None] >= 0)
    per_type = placed[:, None, :] & (place_type[:, None, None] == jnp.arange(2)[None, :, None])
    return jnp.concatenate([obs, per_type.reshape(-1).astype(obs.dtype)])


def uniform_logit(env_state):
    """float32: the log-odds of each unseen card lying in the opponent's unknown hand in a
    uniform world: that hand's size over the other unseen cards."""
    state = current_round(env_state)
    held = jnp.sum(state.loc == LOC_HAND + 1 - state.to_move.astype(jnp.int32))
    unseen = jnp.sum(unseen_cards(state, state.to_move))
    share = jnp.clip(held / jnp.maximum(unseen, 1), 1e-4, 1 - 1e-4)
    return jnp.log(share) - jnp.log1p(-share)


def conditional_bernoulli(rng, logits, members, size):
    """bool[60]: ``size`` of the ``members``, the set ``S`` drawn with probability
    proportional to ``prod_{i in S} exp(logits[i])``: independent Bernoullis with these
    log-odds, conditioned on their sum. Each card's inclusion then matches the belief's
    marginal when those sum to ``size``, as a trained belief's do; Gumbel top-k (drawing
    without replacement by the odds) over-deals the likeliest cards (0.73 against 0.67 in
    the top decile).

    Sequential: card ``i`` joins with ``w_i e_{r-1}(w_{i+1:}) / e_r(w_{i:})`` while ``r``
    remain to draw, ``e_j`` the elementary symmetric sums, kept as logs from the back."""
    low = -1e9  # the log of a zero weight, finite so that sums of it stay finite
    log_w = jnp.where(members, logits, low)
    nothing = jnp.full(HAND_SIZE + 1, low).at[0].set(0.0)  # log e_j of no cards

    def from_back(log_e, log_wi):
        log_e = jnp.logaddexp(log_e, log_wi + jnp.concatenate([jnp.array([low]), log_e[:-1]]))
        return log_e, log_e

    _, log_e = jax.lax.scan(from_back, nothing, log_w, reverse=True)  # [i]: log e_j(w_{i:})
    log_e_after = jnp.concatenate([log_e[1:], nothing[None]])  # [i]: log e_j(w_{i+1:})

    def forward(left, inputs):
        log_wi, log_e_here, log_e_next, u = inputs
        join = log_wi + log_e_next[jnp.maximum(left - 1, 0)] - log_e_here[left]
        take = (left > 0) & (jnp.log(u) < join)
        return left - take, take

    uniforms = jax.random.uniform(rng, (N_CARDS,), minval=1e-12)
    _, taken = jax.lax.scan(forward, size.astype(jnp.int32), (log_w, log_e, log_e_after, uniforms))
    return taken & members


def believed_round(rng, state, logits):
    """The round ``State`` with the opponent's unknown hand drawn by ``logits``
    (:func:`conditional_bernoulli` over the mover's unseen cards) and the other unseen
    cards dealt to the deck in uniform order."""
    opponent = 1 - state.to_move.astype(jnp.int32)
    hidden = unseen_cards(state, state.to_move)
    hand_key, deck_key = jax.random.split(rng)
    to_hand = conditional_bernoulli(hand_key, logits, hidden, jnp.sum(state.loc == LOC_HAND + opponent))
    in_deck = jnp.where(hidden, 0, state.loc)  # any deck position: dealt afresh below
    loc = jnp.where(to_hand, LOC_HAND + opponent, in_deck).astype(jnp.int8)
    hand = sorted_hand((loc == LOC_HAND + opponent) | (loc == LOC_KNOWN + opponent))
    hands = jnp.where((jnp.arange(2) == opponent)[:, None], hand[None], state.hands)
    return deck_dealt_afresh(deck_key, state.replace(loc=loc, hands=hands))


@functools.lru_cache(maxsize=16)
def _world_fn(env_name, moves, hidden):
    env, net = envs.make(env_name), BeliefNet(hidden)

    def world(params, rng, env_state):
        """A uniform world (:func:`determinize`) but for the opponent's hand, drawn by the belief."""
        logits = net.apply(params, features(env, env_state, moves), uniform_logit(env_state))
        world_key, hand_key = jax.random.split(rng)
        return with_round(
            determinize(world_key, env_state), believed_round(hand_key, current_round(env_state), logits)
        )

    return world


def world_sampler(belief):
    """``deal(rng, env_state) -> world``, the belief's worlds; a ``Partial`` whose
    parameters are traced leaves (as a network policy's are)."""
    return Partial(_world_fn(belief.env_name, belief.moves, belief.hidden), belief.params)


# ---- files ------------------------------------------------------------------------------------------


def save(path, belief):
    """One msgpack file: the parameters and what reading them needs (:func:`load`)."""
    meta = {"format": FORMAT, "env": belief.env_name, "moves": belief.moves, "hidden": list(belief.hidden)}
    params = jax.tree.map(np.asarray, belief.params)
    payload = {"meta": json.dumps({**meta, "report": belief.report}), "params": params}
    Path(path).write_bytes(serialization.msgpack_serialize(payload))


SHIPPED = Path(__file__).parent / "beliefs"  # package data: beliefs the presets name


def shipped():
    """The names of the beliefs shipped with the package (``belief: <name>`` in a preset)."""
    return sorted(p.stem for p in SHIPPED.glob("*.msgpack"))


def locate(name_or_path):
    """The file of ``belief=``: an existing path, else a shipped belief's name."""
    path = Path(name_or_path).expanduser()
    if path.is_file():
        return path
    if (SHIPPED / f"{name_or_path}.msgpack").is_file():
        return SHIPPED / f"{name_or_path}.msgpack"
    raise FileNotFoundError(
        f"search.belief={str(name_or_path)!r}: neither a file (a relative path is read from "
        f"{Path.cwd()}) nor a shipped belief ({', '.join(shipped())}); train one with "
        f"python -m lost_cities.belief belief={path} base=<policy>"
    )


def load(path, env_name=None):
    """The :class:`LearnedBelief` of a file :func:`save` wrote, or of a shipped belief's name;
    ``env_name``: the env it must read (a belief of another env's observation is refused)."""
    path = locate(path)
    try:
        payload = serialization.msgpack_restore(path.read_bytes())
        meta = json.loads(payload["meta"])
    except Exception as error:
        raise ValueError(f"search.belief={str(path)!r}: not a belief file ({error})") from error
    if meta.get("format") != FORMAT:
        raise ValueError(f"search.belief={str(path)!r}: format {meta.get('format')!r}, expected {FORMAT!r}")
    if env_name is not None and meta["env"] != env_name:
        raise ValueError(
            f"search.belief={str(path)!r} reads {meta['env']} states; this search plays {env_name}"
        )
    return LearnedBelief(
        payload["params"], meta["env"], int(meta["moves"]), tuple(meta["hidden"]), meta["report"]
    )
