"""Fitting a learned belief (:mod:`lost_cities.search.belief`) on a policy's self-play:
what the mover has seen mapped to each unseen card's chance of lying in the opponent's
unknown hand, trained by cross-entropy against the true hands of self-play positions.

    python -m lost_cities.belief belief=BELIEF.msgpack base=SPEC [moves=8 ...]
    python -m lost_cities.belief action=check belief=BELIEF.msgpack base=SPEC
"""

import math
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax

from lost_cities.evaluation.positions import positions as self_play_positions
from lost_cities.game.engine import LOC_HAND, MOVE_HISTORY
from lost_cities.game.views import current_round
from lost_cities.search.belief import BeliefNet, LearnedBelief, conditional_bernoulli, features, uniform_logit
from lost_cities.search.determinize import unseen_cards

EVERY = 5  # every 5th ply of a game: consecutive plies share most of a hand


def targets(env_state):
    """``(in_hand, unseen)``: bool[60] each, for the seat to move."""
    state = current_round(env_state)
    opponent = 1 - state.to_move.astype(jnp.int32)
    return state.loc == LOC_HAND + opponent, unseen_cards(state, state.to_move)


def dataset(env, policy, count, seed, moves):
    """``(features, uniform logit, in_hand, unseen)`` of ``count`` live positions of
    ``policy``-vs-itself play, every :data:`EVERY`-th ply (numpy: the training loop samples
    batches on the host)."""
    states = self_play_positions(env, count, seed=seed, every=EVERY, policy=policy)
    x, prior = jax.jit(jax.vmap(lambda s: (features(env, s, moves), uniform_logit(s))))(states)
    in_hand, unseen = jax.jit(jax.vmap(targets))(states)
    return tuple(np.asarray(a, np.float32) for a in (x, prior, in_hand, unseen))


def loss_per_card(logits, in_hand, unseen):
    """Sigmoid cross-entropy per unseen card (the cards the mover has seen carry none)."""
    losses = optax.sigmoid_binary_cross_entropy(logits, in_hand) * unseen
    return losses.sum() / unseen.sum()


def uniform_loss_per_card(prior, in_hand, unseen):
    """:func:`loss_per_card` of the uniform worlds' belief (every unseen card at ``prior``)."""
    return loss_per_card(np.broadcast_to(prior[:, None], unseen.shape), in_hand, unseen)


def train(env, policy, base, positions, steps, moves, seed, hidden, held_out, batch, lr, log=print):
    """A :class:`LearnedBelief` fitted on ``policy``-vs-itself play (``base`` names it in the
    report), with its held-out loss per unseen card against the uniform belief's; the knobs
    are ``python -m lost_cities.belief``'s (conf/cli/belief.yaml)."""
    if not 0 <= moves <= MOVE_HISTORY // 2:
        raise ValueError(
            f"belief moves must be 0 to {MOVE_HISTORY // 2} (the opponent's moves a State keeps)"
        )
    start = time.perf_counter()
    data = dataset(env, policy, positions, 100 + seed, moves)
    test = dataset(env, policy, held_out, 900 + seed, moves)
    x = data[0]
    log(f"{len(x)} training and {len(test[0])} held-out positions, {time.perf_counter() - start:.0f} s")
    net = BeliefNet(tuple(hidden))
    params = net.init(jax.random.key(seed), jnp.zeros((1, x.shape[1])), jnp.zeros(1))
    optimiser = optax.adam(lr)
    opt_state = optimiser.init(params)

    @jax.jit
    def update(params, opt_state, batch):
        loss, grads = jax.value_and_grad(lambda p: loss_per_card(net.apply(p, *batch[:2]), *batch[2:]))(
            params
        )
        updates, opt_state = optimiser.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state, loss

    test_loss = jax.jit(lambda p: loss_per_card(net.apply(p, *test[:2]), *test[2:]))
    rng = np.random.default_rng(seed)
    for i in range(steps):
        rows = rng.integers(0, len(x), batch)
        params, opt_state, loss = update(params, opt_state, tuple(a[rows] for a in data))
        if i % 1000 == 0 or i == steps - 1:
            log(f"step {i}: train {float(loss):.4f}, held-out {float(test_loss(params)):.4f} per unseen card")
    report = {
        "base": str(base),
        "positions": len(x),
        "steps": steps,
        "seed": seed,
        "held_out_loss": float(test_loss(params)),
        "uniform_loss": float(uniform_loss_per_card(*test[1:])),
        "seconds": time.perf_counter() - start,
    }
    return LearnedBelief(jax.tree.map(np.asarray, params), env.name, moves, tuple(hidden), report)


def calibration(belief, env, policy, positions=4000, draws=32, seed=700):
    """``(rows, summary)``: by decile of the belief's probability on fresh positions, its
    mean, how often the card truly is in the opponent's hand, and how often the worlds deal
    it there; and the nats of the hand's uncertainty the belief removes (its loss below the
    uniform belief's, summed over the unseen cards) against the hand's entropy."""
    x, prior, in_hand, unseen = dataset(env, policy, positions, seed, belief.moves)
    logits = BeliefNet(belief.hidden).apply(belief.params, x, prior)
    members, size = unseen > 0, in_hand.sum(-1).astype(np.int32)
    deal = jax.jit(jax.vmap(conditional_bernoulli))
    keys = jax.random.split(jax.random.key(1), draws)
    dealt = np.mean([deal(jax.random.split(key, len(x)), logits, members, size) for key in keys], axis=0)
    p = np.asarray(jax.nn.sigmoid(logits))[members]
    truth, dealt = in_hand[members], dealt[members]
    edges = np.quantile(p, np.linspace(0, 1, 11))
    rows = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        decile = (p >= lo) & (p <= hi)
        rows.append(
            (
                float(lo),
                float(hi),
                float(p[decile].mean()),
                float(truth[decile].mean()),
                float(dealt[decile].mean()),
            )
        )
    count = unseen.sum(-1)
    learned = float(loss_per_card(logits, in_hand, unseen))
    uniform = float(uniform_loss_per_card(prior, in_hand, unseen))
    summary = {
        "positions": len(x),
        "unseen": float(count.mean()),
        "hand": float(size.mean()),
        "loss": learned,
        "uniform_loss": uniform,
        "nats_removed": (uniform - learned) * float(count.mean()),
        "hand_entropy": float(
            np.mean([math.log(math.comb(int(u), int(k))) for u, k in zip(count, size, strict=True)])
        ),
    }
    return rows, summary
