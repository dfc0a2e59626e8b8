"""A learned belief over the opponent's unknown hand, and the search's worlds dealt from it.

A uniform world (:mod:`lost_cities.search.determinize`) deals the opponent any hand of the
cards the mover has not seen, though the opponent chose its moves with its real hand. A
belief learned from self-play maps what the mover knows to each unseen card's chance of
lying in the opponent's unknown hand; the search knob ``belief: <file>`` deals the worlds'
opponent hands from it, everything else as in a uniform world. Told the opponent's true
hand, the search on the page's net realizes about +3 points a round more than with
uniform worlds; a belief trained here on 1.2M positions, about +1
(experiments/search/README.md, sessions 21-22).

    python -m lost_cities.search.belief train BELIEF.msgpack --base SPEC [--moves 8] ...
    python -m lost_cities.search.belief check BELIEF.msgpack --base SPEC
    python -m lost_cities.search.belief export BELIEF.msgpack OUT.onnx

What the belief reads, all of it the mover's (:func:`features`)::

    [ env.observe(state, mover) : obs_dim                                   ]
    [ the opponent's latest move: its card one-hot as a play (60), as a discard (60) ]
    [ ... its ``moves``-th latest move, the same 120 (zeros before the round had it) ]
"""

import argparse
import dataclasses
import functools
import json
import math
import time
from pathlib import Path

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import serialization
from jax.tree_util import Partial

from lost_cities.game.cards import CARD_IDS, HAND_SIZE, N_CARDS, decode_action
from lost_cities.game.engine import LOC_HAND, LOC_KNOWN, MOVE_HISTORY
from lost_cities.search.determinize import (
    deck_dealt_afresh,
    determinize,
    round_of,
    sorted_hand,
    unseen_cards,
    with_round,
)

FORMAT = "lost_cities.belief/1"
# Training defaults (the CLI's too). On the page's net, 1.2M positions (7 GB of features)
# reach a held-out loss per unseen card of 0.4824 where 300k reached 0.4904 (uniform: 0.5281).
POSITIONS = 1_200_000
STEPS = 8000
MOVES = 8
HIDDEN = (256, 256)
BATCH = 1024
LEARNING_RATE = 1e-3
HELD_OUT = 20_000
EVERY = 5  # every 5th ply of a game: consecutive plies share most of a hand


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

    hidden: tuple = HIDDEN

    @nn.compact
    def __call__(self, x, prior):
        for width in self.hidden:
            x = nn.relu(nn.Dense(width)(x))
        return prior[..., None] + nn.Dense(N_CARDS, kernel_init=nn.initializers.zeros)(x)


def features(env, env_state, moves):
    """float32[obs_dim + 120 * moves]: the mover's observation, then for each of the
    opponent's latest ``moves`` moves of the round the card it placed, one-hot, once as a
    play and once as a discard (see the module doc)."""
    state = round_of(env_state)
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
    state = round_of(env_state)
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
    from lost_cities import envs

    env, net = envs.make(env_name), BeliefNet(hidden)

    def world(params, rng, env_state):
        """A uniform world (:func:`determinize`) but for the opponent's hand, drawn by the belief."""
        logits = net.apply(params, features(env, env_state, moves), uniform_logit(env_state))
        world_key, hand_key = jax.random.split(rng)
        return with_round(
            determinize(world_key, env_state), believed_round(hand_key, round_of(env_state), logits)
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
        f"python -m lost_cities.search.belief train {path} --base <policy>"
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


ONNX_FORMAT = "lost-cities-belief"  # the exported model's manifest (:func:`export_onnx`)
ONNX_VERSION = 1
ONNX_ENV = "match3"  # the page plays the match


def export_onnx(belief, out, source):
    """Write ``belief`` as an ONNX model ``out`` (.onnx) and its manifest (the same stem,
    .json); returns both paths. It exists for the web client's search mode, which deals its
    worlds' opponent hands from the belief in onnxruntime-web: inputs ``features``
    float32[N, F] (:func:`features`) and ``prior`` float32[N] (:func:`uniform_logit`),
    output ``logits`` float32[N, 60], what :class:`BeliefNet` computes (Gemm and Relu
    nodes, then the prior added to every card). ``source`` names the belief's file in the
    manifest."""
    import onnx
    from onnx import TensorProto, helper

    from lost_cities import envs
    from lost_cities.export.onnx import ACTIVATIONS, IR_VERSION, OPSET, Graph, dense, shape_constant

    if belief.env_name != ONNX_ENV:
        raise ValueError(
            f"{source}: the belief reads {belief.env_name} states; the web client plays {ONNX_ENV} "
            "(train one with --env match3)"
        )
    out = Path(out)
    if out.suffix != ".onnx":
        raise ValueError(f"out={out} must end in .onnx (the manifest is written beside it as .json)")
    env = envs.make(belief.env_name)
    features_dim = env.obs_dim + 2 * N_CARDS * belief.moves
    weights = belief.params["params"]
    if weights["Dense_0"]["kernel"].shape[0] != features_dim:
        raise ValueError(
            f"{source}: its first layer reads {weights['Dense_0']['kernel'].shape[0]} features, "
            f"{belief.env_name} with {belief.moves} moves gives {features_dim}"
        )
    graph = Graph()
    x = "features"
    for i in range(len(belief.hidden)):
        x = ACTIVATIONS["relu"](graph, dense(graph, x, weights[f"Dense_{i}"], f"Dense_{i}"), f"relu_{i}")
    correction = dense(graph, x, weights[f"Dense_{len(belief.hidden)}"], "correction")
    column = graph.node("Unsqueeze", ["prior", shape_constant(graph, "axis1", [1])], "prior_column")
    graph.node("Add", [column, correction], "logits")
    model = helper.make_model(
        helper.make_graph(
            graph.nodes,
            "lost_cities_belief",
            inputs=[
                helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", features_dim]),
                helper.make_tensor_value_info("prior", TensorProto.FLOAT, ["N"]),
            ],
            outputs=[helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", N_CARDS])],
            initializer=graph.initializers,
        ),
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="lost_cities.search.belief",
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    info = {
        "format": ONNX_FORMAT,
        "version": ONNX_VERSION,
        "env": belief.env_name,
        "obs_version": env.obs_version,
        "moves": belief.moves,
        "features_dim": features_dim,
        "hidden": list(belief.hidden),
        "inputs": {"features": ["N", features_dim], "prior": ["N"]},
        "outputs": {"logits": ["N", N_CARDS]},
        "report": belief.report,
        "source": str(source),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, out)
    manifest = out.with_suffix(".json")
    manifest.write_text(json.dumps(info, indent=2, ensure_ascii=False) + "\n")
    return out, manifest


# ---- training ---------------------------------------------------------------------------------------


def targets(env_state):
    """``(in_hand, unseen)``: bool[60] each, for the seat to move."""
    state = round_of(env_state)
    opponent = 1 - state.to_move.astype(jnp.int32)
    return state.loc == LOC_HAND + opponent, unseen_cards(state, state.to_move)


def dataset(env, policy, count, seed, moves):
    """``(features, uniform logit, in_hand, unseen)`` of ``count`` live positions of
    ``policy``-vs-itself play, every :data:`EVERY`-th ply (numpy: the training loop samples
    batches on the host)."""
    from lost_cities.search import bench

    states = bench.positions(env, count, seed=seed, every=EVERY, policy=policy)
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


def train(
    env,
    policy,
    base,
    positions=POSITIONS,
    steps=STEPS,
    moves=MOVES,
    seed=0,
    hidden=HIDDEN,
    held_out=HELD_OUT,
    log=print,
):
    """A :class:`LearnedBelief` fitted on ``policy``-vs-itself play (``base`` names it in the
    report), with its held-out loss per unseen card against the uniform belief's."""
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
    optimiser = optax.adam(LEARNING_RATE)
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
        rows = rng.integers(0, len(x), BATCH)
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


def main(argv=None):
    from lost_cities import envs
    from lost_cities.evaluation.policies import resolve_policy
    from lost_cities.search.spec import network_of

    parser = argparse.ArgumentParser(
        prog="python -m lost_cities.search.belief", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("train", help="fit a belief on a policy's self-play")
    fit.add_argument("out", type=Path, help="the belief file to write (.msgpack)")
    fit.add_argument("--positions", type=int, default=POSITIONS)
    fit.add_argument("--steps", type=int, default=STEPS)
    fit.add_argument("--moves", type=int, default=MOVES, help="the opponent's latest moves it reads")
    fit.add_argument("--seed", type=int, default=0)
    fit.add_argument("--held-out", type=int, default=HELD_OUT, help="positions of the held-out loss")
    fit.add_argument("--hidden", type=int, nargs="+", default=list(HIDDEN), help="the MLP's widths")
    check = commands.add_parser("check", help="a belief's calibration on fresh self-play positions")
    check.add_argument("belief", type=Path)
    check.add_argument("--positions", type=int, default=4000)
    to_onnx = commands.add_parser("export", help="a belief as ONNX + manifest, for the web client")
    to_onnx.add_argument("belief", type=Path)
    to_onnx.add_argument("out", type=Path, help="the model to write (.onnx; its manifest beside it, .json)")
    for command in (fit, check):
        command.add_argument(
            "--base", required=True, help="the self-play policy: a bot, checkpoint dir or .onnx"
        )
        command.add_argument("--env", default="match3", choices=["single_round", "match3"])
    args = parser.parse_args(argv)
    if args.command == "export":
        try:
            paths = export_onnx(load(args.belief), args.out, args.belief)
        except (FileNotFoundError, ValueError) as error:
            parser.error(str(error))
        print(f"wrote {paths[0]} ({paths[0].stat().st_size} bytes) and {paths[1]}")
        return

    env = envs.make(args.env)
    network = network_of(args.base, env)
    policy = resolve_policy(args.base, env) if network is None else network.policy
    if args.command == "train":
        if not args.out.parent.is_dir():
            parser.error(f"{args.out.parent}: no such directory")
        belief = train(
            env,
            policy,
            args.base,
            args.positions,
            args.steps,
            args.moves,
            args.seed,
            args.hidden,
            args.held_out,
        )
        save(args.out, belief)
        losses = f"{belief.report['held_out_loss']:.4f} (uniform {belief.report['uniform_loss']:.4f})"
        print(f"held-out loss per unseen card {losses}; wrote {args.out}")
        return
    rows, summary = calibration(load(args.belief, env.name), env, policy, args.positions)
    print("belief decile     belief  in hand  dealt by the worlds")
    for lo, hi, mean, truth, dealt in rows:
        print(f"[{lo:.3f}, {hi:.3f}]  {mean:.3f}   {truth:.3f}    {dealt:.3f}")
    s = summary
    print(
        f"{s['positions']} positions, {s['unseen']:.1f} unseen cards and {s['hand']:.2f} in the opponent's "
        f"unknown hand on average; loss per unseen card {s['loss']:.4f} (uniform {s['uniform_loss']:.4f}): "
        f"{s['nats_removed']:.2f} nats of the hand's {s['hand_entropy']:.2f} removed"
    )


if __name__ == "__main__":
    main()
