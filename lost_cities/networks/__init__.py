"""Networks: what a trained policy is, apart from how it was trained.

| module      | contract                                                                        |
| ----------- | ------------------------------------------------------------------------------- |
| ``features``| the af1 action features (``batched_action_features``), read off an observation  |
| ``nets``    | ``ActorCritic`` (MLP), ``ActionNet``, ``masked_logits``, ``build_network``      |
| ``critic``  | the value heads (``shared``, ``omniscient``) a network is built with            |

Checkpoints and exported manifests name their classes by ``_target_``; those written
when the networks lived in ``lost_cities.ppo`` still load (:func:`current_target`).
"""

LEGACY_PREFIXES = {
    "lost_cities.ppo.network.": "lost_cities.networks.nets.",
    "lost_cities.ppo.critic.": "lost_cities.networks.critic.",
}


def current_target(target):
    """``target`` (a class path from a saved config) as the class is found today."""
    for old, new in LEGACY_PREFIXES.items():
        if target.startswith(old):
            return new + target[len(old) :]
    return target


def current_targets(node):
    """A saved config (nested dicts and lists) with every legacy ``_target_`` rewritten."""
    if isinstance(node, dict):
        return {
            k: current_target(v) if k == "_target_" and isinstance(v, str) else current_targets(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [current_targets(v) for v in node]
    return node
