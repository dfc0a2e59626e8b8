"""A learned belief (:mod:`lost_cities.search.belief`) as ONNX plus manifest, for the web
client's search mode: ``python -m lost_cities.export belief=BELIEF out=OUT.onnx``."""

import json
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from lost_cities import envs
from lost_cities.export.onnx import ACTIVATIONS, IR_VERSION, OPSET, Graph, dense, shape_constant
from lost_cities.game.cards import N_CARDS

ONNX_FORMAT = "lost-cities-belief"  # the exported model's manifest (:func:`export_onnx`)
ONNX_VERSION = 1
ONNX_ENV = "match3"  # the page plays the match


def export_onnx(belief, out, source):
    """Write ``belief`` as an ONNX model ``out`` (.onnx) and its manifest (the same stem,
    .json); returns both paths. It exists for the web client's search mode, which deals its
    worlds' opponent hands from the belief in onnxruntime-web: inputs ``features``
    float32[N, F] (:func:`~lost_cities.search.belief.features`) and ``prior`` float32[N]
    (:func:`~lost_cities.search.belief.uniform_logit`), output ``logits`` float32[N, 60],
    what :class:`~lost_cities.search.belief.BeliefNet` computes (Gemm and Relu nodes, then
    the prior added to every card). ``source`` names the belief's file in the manifest."""
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
