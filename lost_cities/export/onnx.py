"""A checkpoint's policy as an ONNX model (``python -m lost_cities.export``, :mod:`lost_cities.cli.export`).

Writes the trained policy as an ONNX model plus a manifest JSON beside it (same stem,
``.json``), the contract the web client reads (web/README.md "The opponents"):

- inputs ``obs`` float32[N, obs_dim] and ``mask`` float32[N, 96] (1 legal, 0 illegal);
  a network that reads input features beside the observation takes them too, and the
  manifest's ``features`` names them (absent for the MLP):

  | network      | ``features`` | extra inputs                                                   |
  | ------------ | ------------ | -------------------------------------------------------------- |
  | ActorCritic  | (absent)     | none                                                           |
  | ActionNet    | ``"af1"``    | ``placement`` float32[N, 16, 28], ``draw`` float32[N, 96, 10]: |
  |              |              | :func:`lost_cities.networks.features.action_features` of ``obs``     |

- outputs ``probs`` float32[N, 96] (softmax over the legal actions, illegal exactly 0)
  and ``logits`` float32[N, 96] (the masked logits exactly as
  :func:`lost_cities.networks.nets.masked_logits` computes them); opset 17, dynamic N.
- the manifest's ``inputs`` maps every input name, in the model's order, to its shape;
  ``strength`` (optional) is one evaluation result the page shows (web/README.md).

The graph is built by hand with ``onnx.helper`` rather than by a converter: jax2onnx
(the maintained JAX -> ONNX converter) is not in this project's dependencies, and the
jax2tf + tf2onnx route would pull in TensorFlow; the policy is an MLP of a few Gemm
and activation nodes, so writing them out keeps the dependency set as it is and keeps
every node's numerics (e.g. the tanh form of gelu) explicit; ActionNet adds a few
MatMul, Reshape and broadcast Add nodes. Only the policy is exported; the critic is not
needed to act.
"""

import datetime
import hashlib
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from lost_cities.game.cards import N_ACTIONS, N_DRAW_SOURCES
from lost_cities.improvement.run_dir import run_config_of
from lost_cities.models import load_checkpoint
from lost_cities.models.checkpoint import checkpoint_dir
from lost_cities.models.exported import layer_name
from lost_cities.networks import current_target
from lost_cities.networks.features import AF_VERSION, N_DRAW_FEATURES, N_PLACEMENT_FEATURES, N_PLACEMENTS
from lost_cities.networks.nets import ILLEGAL_LOGIT
from lost_cities.training.run_dir import GATES_FILE, GATES_HISTORY_FILE, gates_at, read_metrics

MLP_TARGET = "lost_cities.networks.nets.ActorCritic"
ACTION_TARGET = "lost_cities.networks.nets.ActionNet"
# Per network: the input features its model takes beside obs and mask (None: none), and
# their shapes after the batch axis.
FEATURES = {MLP_TARGET: None, ACTION_TARGET: AF_VERSION}
FEATURE_INPUTS = {
    AF_VERSION: {"placement": [N_PLACEMENTS, N_PLACEMENT_FEATURES], "draw": [N_ACTIONS, N_DRAW_FEATURES]}
}
OPSET = 17
IR_VERSION = 8  # readable by every onnxruntime(-web) release that supports opset 17
ACTION_ENCODING = (
    "action = hand_slot * 12 + place_type * 6 + draw_source (docs/encodings.md): hand_slot 0..7 indexes "
    "the sorted hand, place_type 0 play / 1 discard, draw_source 0 deck / 1..5 the colour's discard pile"
)
SQRT_2_OVER_PI = np.sqrt(2 / np.pi).astype(np.float32)  # as jax.nn.gelu(approximate=True) computes it


class Graph:
    """Nodes and initializers collected while the network is written out."""

    def __init__(self):
        self.nodes, self.initializers = [], []

    def constant(self, name, value):
        self.initializers.append(numpy_helper.from_array(np.asarray(value, np.float32), name))
        return name

    def node(self, op, inputs, output, **attributes):
        self.nodes.append(helper.make_node(op, inputs, [output], **attributes))
        return output


def _relu(graph, x, name):
    return graph.node("Relu", [x], name)


def _tanh(graph, x, name):
    return graph.node("Tanh", [x], name)


def _gelu(graph, x, name):
    """flax's ``nn.gelu`` (= ``jax.nn.gelu``, approximate=True by default), op for op:
    ``x * 0.5 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))``. Opset 17 has no Gelu op."""

    def op(kind, a, b, step):
        return graph.node(kind, [a, b], f"{name}_{step}")

    def const(value, step):
        return graph.constant(f"{name}_{step}_c", value)

    cube = op("Mul", op("Mul", x, x, "x2"), x, "x3")
    inner = op("Add", x, op("Mul", const(0.044715, "k"), cube, "kx3"), "inner")
    t = graph.node("Tanh", [op("Mul", const(SQRT_2_OVER_PI, "s"), inner, "arg")], f"{name}_tanh")
    cdf = op("Mul", const(0.5, "half"), op("Add", const(1.0, "one"), t, "onet"), "cdf")
    return graph.node("Mul", [x, cdf], name)


ACTIVATIONS = {"relu": _relu, "tanh": _tanh, "gelu": _gelu}


def dense(graph, x, layer, name):
    """A flax ``Dense`` (``layer``: its ``kernel`` and ``bias``) on a rank-2 input: one Gemm."""
    kernel = graph.constant(f"{name}_kernel", layer["kernel"])
    bias = graph.constant(f"{name}_bias", layer["bias"])
    return graph.node("Gemm", [x, kernel, bias], name)


def _dense_nd(graph, x, layer, name):
    """A flax ``Dense`` on the last axis of a rank > 2 input (MatMul, then the bias if any)."""
    product = graph.node("MatMul", [x, graph.constant(f"{name}_kernel", layer["kernel"])], f"{name}_matmul")
    if "bias" not in layer:
        return product
    return graph.node("Add", [product, graph.constant(f"{name}_bias", layer["bias"])], name)


def shape_constant(graph, name, dims):
    """An int64 initializer: a shape or axes input (Reshape, Unsqueeze)."""
    graph.initializers.append(numpy_helper.from_array(np.asarray(dims, np.int64), name))
    return name


def network_features(network_cfg):
    """The input features (``None`` or ``"af1"``) of a network config's exported model."""
    target = current_target(network_cfg.get("_target_", MLP_TARGET))
    if target not in FEATURES:
        raise ValueError(f"no ONNX export for network {target}; supported: {sorted(FEATURES)}")
    return FEATURES[target]


def input_shapes(network_cfg, obs_dim):
    """``{input name: shape}`` of the exported model, in its input order (``"N"``: the batch)."""
    shapes = {"obs": ["N", obs_dim], "mask": ["N", N_ACTIONS]}
    features = network_features(network_cfg)
    if features is not None:
        shapes.update({name: ["N", *dims] for name, dims in FEATURE_INPUTS[features].items()})
    return shapes


def _trunk(graph, weights, hidden, activation):
    """The observation MLP (``network.MLP``) on ``obs``: the name of its output."""
    x = "obs"
    for i in range(len(hidden)):
        pre = dense(graph, x, weights[f"Dense_{i}"], layer_name(("trunk", f"Dense_{i}")))
        x = ACTIVATIONS[activation](graph, pre, f"trunk{i}")
    return x


def _mlp_logits(graph, weights, network_cfg):
    trunk = _trunk(graph, weights["trunk"], network_cfg["hidden"], network_cfg["activation"])
    return dense(graph, trunk, weights["head"], "head")


def _action_logits(graph, weights, network_cfg):
    """:class:`ActionNet`'s ``_policy``: placement scores plus context-weighted draw terms."""
    act = ACTIVATIONS[network_cfg["activation"]]
    context = _trunk(graph, weights["trunk"], network_cfg["hidden"], network_cfg["activation"])
    axis1 = shape_constant(graph, "axis1", [1])
    context_in = graph.node(
        "Unsqueeze", [dense(graph, context, weights["context_in"], "context_in"), axis1], "context_in_1"
    )  # [N, 1, H]
    placement_in = _dense_nd(graph, "placement", weights["placement_in"], "placement_in")  # [N, 16, H]
    h = act(graph, graph.node("Add", [placement_in, context_in], "placement0_pre"), "placement0")
    for i in range(len(network_cfg["placement_hidden"]) - 1):
        module = f"placement_layers_{i}"
        pre = _dense_nd(graph, h, weights[module], layer_name((module,)))
        h = act(graph, pre, f"placement{i + 1}")
    score = _dense_nd(graph, h, weights["placement_score"], "placement_score")  # [N, 16, 1]
    draw_weights = dense(graph, context, weights["draw_weights"], "draw_weights")  # [N, 10]
    axis2 = shape_constant(graph, "axis2", [2])
    column = graph.node("Unsqueeze", [draw_weights, axis2], "draw_weights_column")
    draw_term = graph.node("MatMul", ["draw", column], "draw_term_flat")  # [N, 96, 1]
    by_placement = shape_constant(graph, "by_placement", [0, N_PLACEMENTS, N_DRAW_SOURCES])
    draw_term = graph.node("Reshape", [draw_term, by_placement], "draw_term")  # [N, 16, 6]
    logits = graph.node("Add", [score, draw_term], "raw_by_placement")
    return graph.node("Reshape", [logits, shape_constant(graph, "flat_actions", [0, N_ACTIONS])], "raw")


LOGITS = {MLP_TARGET: _mlp_logits, ACTION_TARGET: _action_logits}


def policy_graph(params, network_cfg, obs_dim):
    """The ONNX model of the policy (:class:`ActorCritic`'s trunk and head, or
    :class:`ActionNet`'s policy) with masking and softmax; the critic is left out."""
    network_features(network_cfg)  # refuses a network with no export
    activation = network_cfg["activation"]
    if activation not in ACTIVATIONS:
        raise ValueError(
            f"network.activation={activation!r} has no ONNX export; supported: {sorted(ACTIVATIONS)}"
        )
    graph = Graph()
    raw = LOGITS[current_target(network_cfg.get("_target_", MLP_TARGET))](
        graph, params["params"], network_cfg
    )
    legal = graph.node("Greater", ["mask", graph.constant("half", 0.5)], "legal")
    illegal = graph.constant("illegal_logit", np.full((1, N_ACTIONS), ILLEGAL_LOGIT))
    graph.node("Where", [legal, raw, illegal], "logits")
    graph.node("Softmax", ["logits"], "probs", axis=-1)
    model = helper.make_model(
        helper.make_graph(
            graph.nodes,
            "lost_cities_policy",
            inputs=[
                helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)
                for name, shape in input_shapes(network_cfg, obs_dim).items()
            ],
            outputs=[
                helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", N_ACTIONS]),
                helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", N_ACTIONS]),
            ],
            initializer=graph.initializers,
        ),
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="lost_cities.export",
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def run_dir_of(checkpoint):
    """The run dir of a run dir, of its ``checkpoints/best|latest`` or of one step of those;
    None for a bare checkpoint dir."""
    checkpoint = Path(checkpoint)
    if (checkpoint / "checkpoints").is_dir():
        return checkpoint
    for parent in (checkpoint.parent, checkpoint.parent.parent):
        if parent.name == "checkpoints":
            return parent.parent
    return None


def checkpoint_label(checkpoint):
    """Where the model came from, without the exporting machine's directories: the path
    from the run's experiment dir on (``<experiment>/<run>`` or
    ``<experiment>/<run>/checkpoints/best``, as in ``outputs/``), or a bare checkpoint
    dir's own name."""
    checkpoint = Path(checkpoint).absolute()
    run_dir = run_dir_of(checkpoint)
    base = run_dir.parent.parent if run_dir is not None else checkpoint.parent
    return checkpoint.relative_to(base).as_posix()


def config_digest(config):
    """sha256 of the resolved training config (canonical JSON), so a manifest names its run's settings."""
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


# Anchors from strongest to weakest (docs/design.md); the web client's fallback reads the same order.
ANCHORS = ("heuristic_expert", "heuristic_cautious", "heuristic_balanced", "discard_only", "random")
STRENGTH_REQUIRED = ("opponent", "games", "win_rate")
STRENGTH_SHOWN = ("win_rate_lower", "win_rate_upper", "margin_mean")


def _strength_entry(result, opponent=None):
    """A manifest ``strength`` (web/README.md) from one evaluation or gate result."""
    entry = {"opponent": result.get("opponent", opponent), **result}
    missing = [key for key in STRENGTH_REQUIRED if entry.get(key) is None]
    if missing:
        raise ValueError(f"an evaluation result needs {', '.join(missing)} to be a strength")
    return {key: entry[key] for key in STRENGTH_REQUIRED + STRENGTH_SHOWN if entry.get(key) is not None}


def strength_from_results(results):
    """The ``strength`` of a results JSON: one result (``python -m lost_cities.evaluate``'s
    ``results.json``), or a mapping of name -> result (``gates.json``, ``evaluation.json``),
    of which the strongest anchor present is taken (else the first entry)."""
    if "win_rate" in results:
        return _strength_entry(results)
    if not results:
        raise ValueError("the evaluation results are empty")
    by_opponent = {result.get("opponent", name): (name, result) for name, result in results.items()}
    chosen = next((anchor for anchor in ANCHORS if anchor in by_opponent), next(iter(by_opponent)))
    name, result = by_opponent[chosen]
    return _strength_entry(result, opponent=name)


def strength_at_update(run_dir, config, update):
    """The strength of the exported update from the run's own gates: the metrics row of
    that update, if gates ran then (``gates/<gate>/<metric>``), its strongest anchor;
    None when no gate ran at that update."""
    rows = [
        r
        for r in read_metrics(run_dir)
        if r.get("update") == update and any(k.startswith("gates/") for k in r)
    ]
    row = rows[-1] if rows else None
    gates = (config.get("gates") or {}).get("gates") or {}
    if row is None or not gates:
        return None
    results = {}
    for gate, spec in gates.items():
        if f"gates/{gate}/win_rate" not in row:
            continue
        result = {key: row[f"gates/{gate}/{key}"] for key in STRENGTH_SHOWN if f"gates/{gate}/{key}" in row}
        result.update(
            opponent=spec["opponent"], games=2 * spec["deals"], win_rate=row[f"gates/{gate}/win_rate"]
        )
        results[gate] = result
    return strength_from_results(results) if results else None


def manifest(agent, checkpoint, name, evaluation=None):
    """The manifest of an exported checkpoint; ``evaluation`` (a results JSON path) sets
    ``strength``, else the run's gates at the exported update do (absent if neither)."""
    meta = agent.meta
    config = meta.get("config") or run_config_of(checkpoint)  # a loop's student: its run's config
    if config is None:
        raise ValueError(
            f"{checkpoint}: the checkpoint metadata has no training config and it is no student or "
            "champion of a lost_cities.improve run; re-save it with lost_cities.train"
        )
    run_dir = run_dir_of(checkpoint)
    if evaluation is not None:
        strength = strength_from_results(json.loads(Path(evaluation).read_text()))
    else:
        strength = strength_at_update(run_dir, config, meta["update"]) if run_dir else None
    features = network_features(meta["network"])
    info = {
        "name": name or default_name(config, meta["update"], checkpoint),
        "placeholder": False,
        "obs_version": meta["obs_version"],
        "obs_dim": meta["obs_dim"],
        "n_actions": N_ACTIONS,
        "action_encoding": ACTION_ENCODING,
        "env": meta["env"],
        "opset": OPSET,
        "inputs": input_shapes(meta["network"], meta["obs_dim"]),
        "outputs": {"probs": ["N", N_ACTIONS], "logits": ["N", N_ACTIONS]},
        "illegal_logit": ILLEGAL_LOGIT,
        "network": meta["network"],
        "checkpoint": checkpoint_label(checkpoint),
        "update": meta["update"],
        "config_sha256": config_digest(config),
        "gates": gates_of_update(run_dir, meta["update"]),
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    if features is not None:
        info["features"] = features
    if strength is not None:
        info["strength"] = strength
    return info


def gates_of_update(run_dir, update):
    """The gates of the exported update (``gates.jsonl``; None when no gate ran at it); a run
    from before that file knows only its latest gates (``gates.json``)."""
    if run_dir is None:
        return None
    if (run_dir / GATES_HISTORY_FILE).exists():
        return gates_at(run_dir, update)
    latest = run_dir / GATES_FILE
    return json.loads(latest.read_text()) if latest.exists() else None


def resolve_checkpoint(checkpoint, which="latest"):
    """A run dir's ``checkpoints/<which>``; a checkpoint or step dir as it is."""
    path = Path(checkpoint)
    if (path / "checkpoints").is_dir():
        return checkpoint_dir(path, which)
    return path


def default_name(config, update, checkpoint):
    """``<experiment> <run dir> update <n>``: enough to find the run the model came from."""
    run_dir = run_dir_of(checkpoint) or Path(checkpoint)
    return f"{config['experiment_name']} {run_dir.absolute().name} update {update}"


def export(checkpoint, out, name=None, evaluation=None, which="latest", overwrite=False):
    """Write ``out`` (.onnx) and its manifest (.json); returns both paths. ``checkpoint``: a
    run dir (its ``checkpoints/<which>``: ``latest`` or ``best``), a checkpoint dir or one
    step of those; ``evaluation``: a results JSON whose result becomes the manifest's
    ``strength`` (see :func:`manifest`). The manifest's ``gates`` are the exported update's.
    An existing model or manifest at ``out`` is refused, before anything is read, unless
    ``overwrite``: a shipped model is not replaced by a slip of the command line."""
    out = Path(out)
    if out.suffix != ".onnx":
        raise ValueError(f"out={out} must end in .onnx (the manifest is written beside it as .json)")
    for path in (out, out.with_suffix(".json")):
        if path.exists() and not overwrite:
            raise FileExistsError(
                f"out={out}: {path} exists; choose another path, or pass overwrite=true to replace "
                "the model and its manifest"
            )
    checkpoint = resolve_checkpoint(checkpoint, which)
    agent = load_checkpoint(checkpoint)
    model = policy_graph(agent.params, agent.meta["network"], agent.meta["obs_dim"])
    info = manifest(agent, checkpoint, name, evaluation)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, out)
    manifest_path = out.with_suffix(".json")
    manifest_path.write_text(json.dumps(info, indent=2, ensure_ascii=False) + "\n")
    return out, manifest_path
