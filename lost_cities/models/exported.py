"""An exported model's weights: the names a policy layer's weights take in the ONNX file.

One mapping serves both directions, so that writing a model (``lost_cities.export``) and
reading its weights back into a JAX network (:func:`read_policy_params`: the shipped
agents run in JAX wherever a policy runs inside XLA) cannot disagree.
"""

import jax
import jax.numpy as jnp
import onnx
from onnx import numpy_helper


def layer_name(module_path):
    """The ONNX name of a policy layer's weights (``<name>_kernel``, ``<name>_bias``) from its
    flax module path: ``("trunk", "Dense_i")`` is ``trunk<i>_linear``, ``("placement_layers_i",)``
    ``placement<i+1>_linear``, any other layer its module's name. One mapping for writing the
    model and for reading its weights back (:func:`read_policy_params`)."""
    *outer, module = module_path
    if outer == ["trunk"]:
        return f"trunk{module.removeprefix('Dense_')}_linear"
    if not outer and module.startswith("placement_layers_"):
        return f"placement{int(module.removeprefix('placement_layers_')) + 1}_linear"
    if outer:
        raise ValueError(f"no ONNX name for the policy layer {'/'.join(module_path)}")
    return module


def read_initializers(path):
    """``{name: array}`` of the exported model's weights; a file that onnx cannot read (cut
    off, corrupt, not ONNX) is a ValueError naming it, not protobuf's ``DecodeError``."""
    try:
        return {init.name: numpy_helper.to_array(init) for init in onnx.load(str(path)).graph.initializer}
    except Exception as error:  # protobuf's DecodeError, numpy's reshape of a cut-off tensor, ...
        raise ValueError(
            f"{path}: not a readable ONNX model ({type(error).__name__}: {error}); {REMEDY}"
        ) from error


REMEDY = "the file is cut off or corrupt: copy it again, or export it again with python -m lost_cities.export"


def read_policy_params(path, template):
    """``template`` (a network's params, ``{"params": {...}}``) with every policy weight read from
    the exported model at ``path``: the model's initializers are its trained policy, named by
    :func:`layer_name`. The critic (``critic``, which the model leaves out) keeps the template's
    values. A weight the model lacks, or holds in another shape, is an error that names it: the
    template is not the network the model was exported from (each layer's input is the one
    before it, so a missing or extra layer shows as such a weight)."""
    initializers = read_initializers(path)

    def read(key_path, leaf):
        names = [key.key for key in key_path]
        if names[0] != "params" or names[1] == "critic":
            return leaf
        name = f"{layer_name(tuple(names[1:-1]))}_{names[-1]}"
        value = initializers.get(name)
        if value is None or value.shape != leaf.shape:
            found = "has no such weight" if value is None else f"has shape {value.shape}"
            raise ValueError(
                f"{path}: this network has {name} of shape {tuple(leaf.shape)}, the model {found}: it was "
                "exported from another network (its manifest's `network` says which)"
            )
        return jnp.asarray(value, leaf.dtype)

    return jax.tree_util.tree_map_with_path(read, template)
