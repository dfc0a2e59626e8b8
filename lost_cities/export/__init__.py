"""Export a trained policy for the web client: ``export(checkpoint, out)`` writes ONNX + manifest.

| module   | contract                                                                        |
| -------- | ------------------------------------------------------------------------------- |
| ``onnx`` | ``policy_graph`` (the MLP or ActionNet policy as a hand-built opset-17 graph;    |
|          | ActionNet's model also takes the af1 rows), ``manifest`` (with ``features`` and  |
|          | ``strength``), ``export``; the model/manifest contract is in the module docstring |
| ``belief`` | a learned belief as ONNX + manifest, for the page's search                    |
| ``ship``   | an agent onto the page: export, claims, ladder, agents.json, docs/results.md |
| ``results_table`` | docs/results.md from the claims' results files and the lineage  |
| ``ladder`` | the page's ladder steps: each level against the one below, from pair files |

``python -m lost_cities.export checkpoint=... out=...`` is :mod:`lost_cities.cli.export`.
"""

from lost_cities.export.onnx import ACTION_ENCODING, OPSET, config_digest, export, manifest, policy_graph

__all__ = ["ACTION_ENCODING", "OPSET", "config_digest", "export", "manifest", "policy_graph"]
