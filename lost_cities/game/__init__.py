"""The rules (docs/rules.md, docs/encodings.md, docs/api.md): pure JAX functions over immutable
pytrees, jit/vmap-able.

| module        | contract                                                                      |
| ------------- | ----------------------------------------------------------------------------- |
| ``cards``     | card and action encodings (fixed: the web client and the tests depend on them) |
| ``engine``    | one round: ``State``, ``reset``, ``step``, ``legal_action_mask``, scores,       |
|               | legal-action enumeration; ``batched_*`` = ``jax.jit(jax.vmap(...))`` of them   |
| ``match``     | the 3-round match: ``MatchState``, ``match_reset(_from)``, ``match_step``,      |
|               | ``match_legal_action_mask``; ``batched_match_*`` beside them                   |
| ``sampling``  | uniformly random legal actions (scripted bots, the benchmark)                  |

Nothing here knows about observations, training or the CLIs; the public API of docs/api.md
is re-exported from :mod:`lost_cities`.
"""
