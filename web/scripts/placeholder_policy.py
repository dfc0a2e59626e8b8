"""Write a random-weight placeholder policy to web/public/ (policy.onnx + policy.json).

It has the exported policy's contract (lost_cities/export.py), so the page can be built
and tested before a trained policy exists; the manifest marks it as a placeholder and
the page says so. The trained export replaces both files at the same paths.

Contract: inputs ``obs`` float32[N, obs_dim] and ``mask`` float32[N, 96] (1 legal, 0
illegal); outputs ``probs`` float32[N, 96] (softmax over the legal actions) and
``logits`` float32[N, 96] (the network's raw logits); opset 17; dynamic batch N.

    python web/scripts/placeholder_policy.py [--obs-version v1] [--out-dir web/public]
"""

import argparse
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from lost_cities.cards import N_ACTIONS

OPSET = 17
HIDDEN = 64
ILLEGAL_LOGIT = -1e9


def observation_dims():
    """The observation versions the Python package implements, with their sizes."""
    from lost_cities.observation import OBS_DIM, OBS_VERSION

    dims = {OBS_VERSION: (OBS_DIM, "single_round")}
    try:
        from lost_cities.match_observation import OBS_V2_DIM, OBS_V2_VERSION
    except ImportError:
        return dims
    dims[OBS_V2_VERSION] = (OBS_V2_DIM, "match3")
    return dims


def build_model(obs_dim, seed):
    """A two-layer ReLU MLP and the masked softmax, hand-built with onnx.helper: no trained
    network exists to convert, and the graph is five nodes."""
    rng = np.random.default_rng(seed)
    weights = {
        "w1": rng.normal(0, 1 / np.sqrt(obs_dim), (obs_dim, HIDDEN)),
        "b1": np.zeros(HIDDEN),
        "w2": rng.normal(0, 1 / np.sqrt(HIDDEN), (HIDDEN, N_ACTIONS)),
        "b2": np.zeros(N_ACTIONS),
        "illegal": np.full((1, N_ACTIONS), ILLEGAL_LOGIT),
        "half": np.array(0.5),
    }
    initializers = [numpy_helper.from_array(v.astype(np.float32), name) for name, v in weights.items()]
    nodes = [
        helper.make_node("Gemm", ["obs", "w1", "b1"], ["hidden_pre"]),
        helper.make_node("Relu", ["hidden_pre"], ["hidden"]),
        helper.make_node("Gemm", ["hidden", "w2", "b2"], ["logits"]),
        helper.make_node("Greater", ["mask", "half"], ["legal"]),
        helper.make_node("Where", ["legal", "logits", "illegal"], ["masked_logits"]),
        helper.make_node("Softmax", ["masked_logits"], ["probs"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes,
        "lost_cities_placeholder_policy",
        inputs=[
            helper.make_tensor_value_info("obs", TensorProto.FLOAT, ["N", obs_dim]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["N", N_ACTIONS]),
        ],
        outputs=[
            helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", N_ACTIONS]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", N_ACTIONS]),
        ],
        initializer=initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # readable by every onnxruntime(-web) that supports opset 17
    onnx.checker.check_model(model, full_check=True)
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    dims = observation_dims()
    parser.add_argument("--obs-version", default=max(dims), choices=sorted(dims))
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parents[1] / "public")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    obs_dim, env = dims[args.obs_version]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    onnx.save(build_model(obs_dim, args.seed), args.out_dir / "policy.onnx")
    manifest = {
        "name": "placeholder (random weights, untrained)",
        "placeholder": True,
        "obs_version": args.obs_version,
        "obs_dim": obs_dim,
        "n_actions": N_ACTIONS,
        "action_encoding": "hand_slot * 12 + place_type * 6 + draw_source (SPEC §4)",
        "env": env,
        "opset": OPSET,
        "inputs": {"obs": ["N", obs_dim], "mask": ["N", N_ACTIONS]},
        "outputs": {"probs": ["N", N_ACTIONS], "logits": ["N", N_ACTIONS]},
    }
    (args.out_dir / "policy.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"wrote {args.out_dir / 'policy.onnx'} and policy.json ({args.obs_version}, obs_dim {obs_dim})")


if __name__ == "__main__":
    main()
