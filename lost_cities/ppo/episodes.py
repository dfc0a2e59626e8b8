"""Episode-level statistics, accumulated per env and emitted at done boundaries.

A rollout row carries the finished episode's totals only where that episode ended, so
averages are over finished episodes (never sums over a whole rollout, which would mix
partial episodes and weight long ones).
"""

import jax.numpy as jnp
from flax import struct


@struct.dataclass
class EpisodeStats:
    """Running totals of one env's current episode, from the learner seat's side."""

    ret: jnp.ndarray  # float32, the learner seat's summed training reward
    plies: jnp.ndarray  # int32, all moves of both seats
    decisions: jnp.ndarray  # int32, the learner seat's decisions
    plays: jnp.ndarray  # int32, of which placed on an expedition
    discards: jnp.ndarray  # int32, of which discarded
    pile_draws: jnp.ndarray  # int32, of which drew from a discard pile
    max_steps: jnp.ndarray  # bool, some round hit MAX_STEPS

    @classmethod
    def zeros(cls, shape=()):
        i = jnp.zeros(shape, jnp.int32)
        return cls(jnp.zeros(shape, jnp.float32), i, i, i, i, i, jnp.zeros(shape, bool))


@struct.dataclass
class FinishedEpisode:
    """Per rollout row: ``done`` marks rows where an episode ended; the rest is that episode's."""

    done: jnp.ndarray
    opponent: jnp.ndarray
    stats: EpisodeStats
    margin: jnp.ndarray  # the learner seat's final margin in points


def summarize(finished: FinishedEpisode, opponent_names, is_self):
    """Means over the finished episodes, overall and per opponent (NaN where none finished).

    ``win_vs_fixed`` leaves out self-play episodes, whose win rate is 0.5 by symmetry
    (league episodes count: a past snapshot does not learn from them).
    """
    weight = finished.done.astype(jnp.float32)
    s = finished.stats
    decisions = jnp.maximum(s.decisions, 1).astype(jnp.float32)
    per_episode = {
        "return": s.ret,
        "length": s.plies.astype(jnp.float32),
        "win": (finished.margin > 0).astype(jnp.float32),
        "draw": (finished.margin == 0).astype(jnp.float32),
        "margin": finished.margin,
        "max_steps_rate": s.max_steps.astype(jnp.float32),
        "play_rate": s.plays / decisions,
        "discard_rate": s.discards / decisions,
        "discard_draw_rate": s.pile_draws / decisions,
    }

    def mean(x, w):
        count = jnp.sum(w)
        return jnp.where(count > 0, jnp.sum(x * w) / jnp.maximum(count, 1.0), jnp.nan)

    out = {"episode/count": jnp.sum(weight)}
    out.update({f"episode/{key}": mean(x, weight) for key, x in per_episode.items()})
    fixed = weight * ~jnp.asarray(is_self)[finished.opponent]
    out["episode/win_vs_fixed"] = mean(per_episode["win"], fixed)
    for k, name in enumerate(opponent_names):
        w = weight * (finished.opponent == k)
        out[f"episode/{name}/count"] = jnp.sum(w)
        for key in ("win", "margin"):
            out[f"episode/{name}/{key}"] = mean(per_episode[key], w)
    return out
