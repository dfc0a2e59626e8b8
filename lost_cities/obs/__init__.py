"""Observations: what a policy (or, privileged, only a critic) sees of a game state.

| module         | contract                                                                  |
| -------------- | ------------------------------------------------------------------------- |
| ``v1``         | ``observation(state, player)``: the single-round encoding of docs/encodings.md,     |
|                | ``OBS_DIM = 454`` floats, bit-exact; ``batched_obs`` beside it             |
| ``v2``         | ``match_observation(ms, player)``: the match encoding, ``OBS_V2_DIM = 512``;|
|                | ``privileged_match_observation`` (critic only); layout table in the module |
| ``privileged`` | ``hidden_information(state, player)``: the opponent's hand and the deck's  |
|                | composition (120 floats), appended for the omniscient critic              |

Each module's docstring holds its index layout; the web client transcribes v1 and v2
bit for bit (web/src/observation.ts, web/src/matchObservation.ts).
"""
