"""``search:<base>`` and ``search/<preset>:<base>``: a search policy from a policy spec.

``<base>`` is anything the policy resolver accepts (a bot name, a checkpoint dir, an
``.onnx`` file); ``<preset>`` names ``conf/search/<preset>.yaml`` (default: ``default``).
Candidates are ranked by the base's own scores where it has them (the heuristic bots'
action values, a checkpoint's logits) and by the expert's action values otherwise.
"""

from pathlib import Path

from lost_cities.search.agent import search_policy
from lost_cities.search.candidates import BOT_SCORES, expert_scores, logit_scores
from lost_cities.search.config import load_preset

PREFIX = "search"


def is_search_spec(spec):
    return isinstance(spec, str) and spec.split(":", 1)[0].split("/", 1)[0] == PREFIX and ":" in spec


def parse(spec):
    """``(preset, base)`` of ``search[/<preset>]:<base>``."""
    head, base = spec.split(":", 1)
    preset = head.split("/", 1)[1] if "/" in head else "default"
    if not base:
        raise ValueError(f"{spec!r}: name the base policy, e.g. search:heuristic_expert")
    return preset, base


def _scores(base, env, proposer=None):
    if proposer is not None:
        if proposer not in BOT_SCORES:
            raise ValueError(f"unknown search proposer {proposer!r}; choose one of {sorted(BOT_SCORES)}")
        return BOT_SCORES[proposer]
    if base in BOT_SCORES:
        return BOT_SCORES[base]
    path = Path(base).expanduser()
    if path.exists() and path.suffix != ".onnx":
        from lost_cities import agents

        agent = agents.load(path)
        if agent.env.name == env.name:
            return logit_scores(env, agent.network, agent.params)
    return expert_scores


def resolve_search(spec, env, **overrides):
    """The search policy named by ``spec`` for ``env``; ``overrides`` replace preset knobs."""
    from lost_cities.evaluation.policies import resolve_policy

    preset, base = parse(spec)
    cfg = load_preset(preset, **overrides)
    return search_policy(resolve_policy(base, env), _scores(base, env, cfg.proposer), cfg)
