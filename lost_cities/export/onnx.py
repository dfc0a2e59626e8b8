"""A checkpoint's policy as an ONNX model (``python -m lost_cities.export``, :mod:`lost_cities.cli.export`).

Writes the trained policy as an ONNX model plus a manifest JSON beside it (same stem,
``.json``), the contract the web client reads (web/README.md "The policy"):

- inputs ``obs`` float32[N, obs_dim] and ``mask`` float32[N, 96] (1 legal, 0 illegal);
- outputs ``probs`` float32[N, 96] (softmax over the legal actions, illegal exactly 0)
  and ``logits`` float32[N, 96] (the masked logits exactly as
  :func:`lost_cities.ppo.network.masked_logits` computes them); opset 17, dynamic N.

The graph is built by hand with ``onnx.helper`` rather than by a converter: jax2onnx
(the maintained JAX -> ONNX converter) is not in this project's dependencies, and the
jax2tf + tf2onnx route would pull in TensorFlow; the policy is an MLP of a few Gemm
and activation nodes, so writing them out keeps the dependency set as it is and keeps
every node's numerics (e.g. the tanh form of gelu) explicit. Only the policy is
exported; the critic is not needed to act.
"""

import datetime
import hashlib
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from lost_cities import agents
from lost_cities.game.cards import N_ACTIONS
from lost_cities.ppo.network import ILLEGAL_LOGIT
from lost_cities.ppo.run_dir import GATES_FILE

MLP_TARGET = "lost_cities.ppo.network.ActorCritic"
OPSET = 17
IR_VERSION = 8  # readable by every onnxruntime(-web) release that supports opset 17
ACTION_ENCODING = (
    "action = hand_slot * 12 + place_type * 6 + draw_source (SPEC §4): hand_slot 0..7 indexes "
    "the sorted hand, place_type 0 play / 1 discard, draw_source 0 deck / 1..5 the colour's discard pile"
)
SQRT_2_OVER_PI = np.sqrt(2 / np.pi).astype(np.float32)  # as jax.nn.gelu(approximate=True) computes it


class _Graph:
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


def _dense(graph, x, layer, name):
    kernel = graph.constant(f"{name}_kernel", layer["kernel"])
    bias = graph.constant(f"{name}_bias", layer["bias"])
    return graph.node("Gemm", [x, kernel, bias], name)


def policy_graph(params, network_cfg, obs_dim):
    """The ONNX model of the policy (trunk and head of :class:`ActorCritic`) with masking and softmax."""
    target = network_cfg.get("_target_", MLP_TARGET)
    if target != MLP_TARGET:
        raise ValueError(f"no ONNX export for network {target} yet; only {MLP_TARGET}")
    activation = network_cfg["activation"]
    if activation not in ACTIVATIONS:
        raise ValueError(
            f"network.activation={activation!r} has no ONNX export; supported: {sorted(ACTIVATIONS)}"
        )
    weights = params["params"]
    graph = _Graph()
    x = "obs"
    for i in range(len(network_cfg["hidden"])):
        pre = _dense(graph, x, weights["trunk"][f"Dense_{i}"], f"trunk{i}_linear")
        x = ACTIVATIONS[activation](graph, pre, f"trunk{i}")
    raw = _dense(graph, x, weights["head"], "head")
    legal = graph.node("Greater", ["mask", graph.constant("half", 0.5)], "legal")
    illegal = graph.constant("illegal_logit", np.full((1, N_ACTIONS), ILLEGAL_LOGIT))
    graph.node("Where", [legal, raw, illegal], "logits")
    graph.node("Softmax", ["logits"], "probs", axis=-1)
    model = helper.make_model(
        helper.make_graph(
            graph.nodes,
            "lost_cities_policy",
            inputs=[
                helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["N", obs_dim]),
                helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["N", N_ACTIONS]),
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
    """The run dir of a run dir or of its ``checkpoints/best|latest``; None for a bare checkpoint dir."""
    checkpoint = Path(checkpoint)
    if (checkpoint / "checkpoints").is_dir():
        return checkpoint
    if checkpoint.parent.name == "checkpoints":
        return checkpoint.parent.parent
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


def manifest(agent, checkpoint, name):
    meta = agent.meta
    if "config" not in meta:
        raise ValueError(
            f"{checkpoint}: the checkpoint metadata has no training config; re-save it with lost_cities.train"
        )
    run_dir = run_dir_of(checkpoint)
    gates = run_dir / GATES_FILE if run_dir else None
    return {
        "name": name or default_name(meta, checkpoint),
        "placeholder": False,
        "obs_version": meta["obs_version"],
        "obs_dim": meta["obs_dim"],
        "n_actions": N_ACTIONS,
        "action_encoding": ACTION_ENCODING,
        "env": meta["env"],
        "opset": OPSET,
        "inputs": {"obs": ["N", meta["obs_dim"]], "mask": ["N", N_ACTIONS]},
        "outputs": {"probs": ["N", N_ACTIONS], "logits": ["N", N_ACTIONS]},
        "illegal_logit": ILLEGAL_LOGIT,
        "network": meta["network"],
        "checkpoint": checkpoint_label(checkpoint),
        "update": meta["update"],
        "config_sha256": config_digest(meta["config"]),
        "gates": json.loads(gates.read_text()) if gates and gates.exists() else None,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }


def default_name(meta, checkpoint):
    """``<experiment> <run dir> update <n>``: enough to find the run the model came from."""
    run_dir = run_dir_of(checkpoint) or Path(checkpoint)
    return f"{meta['config']['experiment_name']} {run_dir.absolute().name} update {meta['update']}"


def export(checkpoint, out, name=None):
    """Write ``out`` (.onnx) and its manifest (.json); returns both paths."""
    out = Path(out)
    if out.suffix != ".onnx":
        raise ValueError(f"out={out} must end in .onnx (the manifest is written beside it as .json)")
    agent = agents.load(checkpoint)
    model = policy_graph(agent.params, agent.meta["network"], agent.meta["obs_dim"])
    info = manifest(agent, checkpoint, name)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, out)
    manifest_path = out.with_suffix(".json")
    manifest_path.write_text(json.dumps(info, indent=2, ensure_ascii=False) + "\n")
    return out, manifest_path
