"""A learned belief over the opponent's unknown hand, for the search's worlds (session 21).

    python experiments/search/belief.py train OUT.msgpack BASE [positions=300000] [steps=2000] [moves=0]
    python experiments/search/belief.py use BELIEF.msgpack SCRIPT.py ARGS ...

``train`` plays ``BASE``-vs-``BASE`` matches (a bot, a checkpoint dir or an ``.onnx`` file,
as in realized.py), takes every live position, and fits a small MLP from the mover's
observation (what its policy sees) to, per card, whether that card is in the opponent's
unknown hand (a sigmoid cross-entropy over the cards the mover has not seen; the cards it
has seen carry no loss). It prints the held-out loss per unseen card against the uniform
belief's (every unseen card ``h / unseen``, the honest search's worlds).

``use`` runs ``experiments/search/SCRIPT.py ARGS`` (``realized.py`` or ``run.py``) with the
search's worlds dealt from that belief: the opponent's unknown hand is drawn from the
unseen cards without replacement in proportion to the belief's odds (Gumbel top-k over its
logits), the rest go to the deck in uniform order; everything else is as in an honest
world (:func:`lost_cities.search.determinize.determinize`). The belief reads the mover's
observation only, so the worlds reveal nothing the mover has not seen.

Why it exists: oracle.py measured that a search told the opponent's true hand realizes
+1.7 to +3.8 points a round more than the honest one (16 to 64 worlds, 800 positions on
the page's net), where the uniform belief's worlds gain nothing from more of them. This
asks how much of that a belief learned from the net's own play recovers.
"""

import json
import sys
import time
from pathlib import Path

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
import yaml
from flax import serialization
from oracle import deck_dealt_afresh, run_with_worlds  # this folder's, on the path when run as a script

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.game.cards import CARD_IDS, N_CARDS, decode_action
from lost_cities.game.engine import LOC_HAND, LOC_KNOWN
from lost_cities.search import bench
from lost_cities.search.determinize import (
    determinize,
    rank_within,
    round_of,
    sorted_hand,
    unseen_cards,
    with_round,
)
from lost_cities.search.spec import network_of

HIDDEN = (256, 256)
BATCH = 1024
LEARNING_RATE = 1e-3
HELD_OUT = 20_000
EVERY = 5


def features(env, env_state, moves):
    """What the belief reads, all of it the mover's: its observation, and for each of the
    opponent's latest ``moves`` moves of the round the card it placed, one-hot, once as a
    play and once as a discard (zeros where the round has had fewer moves)."""
    state = round_of(env_state)
    obs = env.observe(env_state, state.to_move)
    if moves == 0:
        return obs
    opponents = jnp.arange(moves) * 2  # recent_*[0] is the latest move, the opponent's
    cards = state.recent_cards[opponents].astype(jnp.int32)
    place_type = decode_action(state.recent_actions[opponents].astype(jnp.int32))[1]
    placed = (cards[:, None] == CARD_IDS[None, :]) & (cards[:, None] >= 0)
    per_type = placed[:, None, :] & (place_type[:, None, None] == jnp.arange(2)[None, :, None])
    return jnp.concatenate([obs, per_type.reshape(-1).astype(obs.dtype)])


class Belief(nn.Module):
    """What the mover knows -> a logit per card of lying in the opponent's unknown hand."""

    @nn.compact
    def __call__(self, obs):
        x = obs
        for width in HIDDEN:
            x = nn.relu(nn.Dense(width)(x))
        return nn.Dense(N_CARDS)(x)


def targets(env_state):
    """``(in_hand, unseen)``: bool[60] each, for the seat to move."""
    state = round_of(env_state)
    opponent = 1 - state.to_move.astype(jnp.int32)
    return state.loc == LOC_HAND + opponent, unseen_cards(state, state.to_move)


def dataset(env, policy, count, seed, moves, every=EVERY):
    """``(obs, in_hand, unseen)`` of ``count`` live positions of ``policy``-vs-itself play,
    every ``every``-th ply (consecutive plies share a hand: fewer per game, more games)."""
    states = bench.positions(env, count, seed=seed, every=every, policy=policy)
    obs = jax.vmap(lambda s: features(env, s, moves))(states)
    in_hand, unseen = jax.vmap(targets)(states)
    return np.asarray(obs), np.asarray(in_hand, np.float32), np.asarray(unseen, np.float32)


def loss_per_card(logits, in_hand, unseen):
    losses = optax.sigmoid_binary_cross_entropy(logits, in_hand) * unseen
    return losses.sum() / unseen.sum()


def uniform_logits(unseen, in_hand):
    """The honest worlds' belief: every unseen card ``h / unseen`` (as a logit)."""
    share = in_hand.sum(-1, keepdims=True) / unseen.sum(-1, keepdims=True)
    share = np.clip(share, 1e-6, 1 - 1e-6)
    return np.broadcast_to(np.log(share) - np.log1p(-share), unseen.shape)


def train(out, base, positions=300_000, steps=2000, seed=0, moves=0):
    env = envs.make("match3")
    network = network_of(base, env)
    policy = make(base) if network is None else network.policy
    start = time.perf_counter()
    obs, in_hand, unseen = dataset(env, policy, positions, 100 + seed, moves)
    test = dataset(env, policy, HELD_OUT, 900 + seed, moves)
    print(f"{len(obs)} training and {len(test[0])} held-out positions, {time.perf_counter() - start:.0f} s")
    model = Belief()
    params = model.init(jax.random.key(seed), jnp.zeros((1, obs.shape[1])))
    optimiser = optax.adam(LEARNING_RATE)
    opt_state = optimiser.init(params)

    @jax.jit
    def update(params, opt_state, batch):
        def loss_fn(p):
            return loss_per_card(model.apply(p, batch[0]), batch[1], batch[2])

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = optimiser.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state, loss

    rng = np.random.default_rng(seed)
    for i in range(steps):
        rows = rng.integers(0, len(obs), BATCH)
        params, opt_state, loss = update(params, opt_state, (obs[rows], in_hand[rows], unseen[rows]))
        if i % 1000 == 0 or i == steps - 1:
            held = float(loss_per_card(model.apply(params, test[0]), test[1], test[2]))
            print(f"step {i}: train {float(loss):.4f}, held-out {held:.4f} per unseen card")
    uniform = float(loss_per_card(uniform_logits(test[2], test[1]), test[1], test[2]))
    learned = float(loss_per_card(model.apply(params, test[0]), test[1], test[2]))
    Path(out).write_bytes(serialization.to_bytes(params))
    report = {
        "base": str(base),
        "moves": moves,
        "positions": len(obs),
        "steps": steps,
        "held_out_loss": learned,
        "uniform_loss": uniform,
        "seconds": time.perf_counter() - start,
    }
    Path(out).with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"held-out loss per unseen card: learned {learned:.4f}, uniform {uniform:.4f}; wrote {out}")


def believed_round(rng, state, logits):
    """The round with the opponent's unknown hand drawn by the belief (Gumbel top-k over
    the unseen cards) and the other unseen cards dealt to the deck in uniform order."""
    opponent = 1 - state.to_move.astype(jnp.int32)
    hidden = unseen_cards(state, state.to_move)
    hand_size = jnp.sum(state.loc == LOC_HAND + opponent)
    hand_key, deck_key = jax.random.split(rng)
    draw = logits + jax.random.gumbel(hand_key, (N_CARDS,))
    to_hand = hidden & (rank_within(-draw, hidden) < hand_size)
    in_deck = jnp.where(hidden, 0, state.loc)  # any deck position: dealt afresh below
    loc = jnp.where(to_hand, LOC_HAND + opponent, in_deck).astype(jnp.int8)
    hand = sorted_hand((loc == LOC_HAND + opponent) | (loc == LOC_KNOWN + opponent))
    hands = jnp.where((jnp.arange(2) == opponent)[:, None], hand[None], state.hands)
    return deck_dealt_afresh(deck_key, state.replace(loc=loc, hands=hands))


def believed_worlds(params, env, moves):
    model = Belief()

    def world(rng, env_state):
        """An honest world but for the opponent's hand, drawn by the belief."""
        state = round_of(env_state)
        logits = model.apply(params, features(env, env_state, moves))
        world_key, hand_key = jax.random.split(rng)
        return with_round(determinize(world_key, env_state), believed_round(hand_key, state, logits))

    return world


def use(path, script, args):
    env = envs.make("match3")
    moves = json.loads(Path(path).with_suffix(".json").read_text())["moves"]  # train's report
    dim = features(env, env.init(jax.random.key(0)), moves).shape[0]
    template = Belief().init(jax.random.key(0), jnp.zeros((1, dim)))
    params = serialization.from_bytes(template, Path(path).read_bytes())
    run_with_worlds(believed_worlds(params, env, moves), script, args, {"belief": str(path)})


def main():
    command, *rest = sys.argv[1:]
    if command == "train":
        out, base, *knobs = rest
        options = {k: int(yaml.safe_load(v)) for k, v in (knob.split("=", 1) for knob in knobs)}
        unknown = set(options) - {"positions", "steps", "seed", "moves"}
        if unknown:
            raise SystemExit(f"belief.py train: unknown knobs {sorted(unknown)}")
        train(out, base, **options)
    elif command == "use":
        path, script, *args = rest
        use(path, script, args)
    else:
        raise SystemExit(
            "usage: belief.py train OUT.msgpack BASE [knob=v ...] | use BELIEF.msgpack SCRIPT.py ARGS ..."
        )


if __name__ == "__main__":
    main()
