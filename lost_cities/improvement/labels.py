"""Labelled positions: self-play games of the champion, every decision labelled by the search.

One jitted call (:meth:`Labeller.chunk`) advances ``games`` games by ``plies`` plies. At
each ply, for the seat to move, the determinized search on the champion
(:func:`lost_cities.search.search_decision`) scores the champion's top candidates in
``worlds`` worlds from the mover's information set, and the decision is stored with:

- ``target``: the soft target over the candidates, ``softmax((gain + prior) / temperature)``
  with ``gain`` the candidate's mean paired gain over the champion's move in points and
  ``prior`` the search's ``prior_points`` per nat of the champion's own preference; with
  ``prior_points = temperature = 2`` it is ``pi(a) exp(gain / 2)``, the rule under which
  the search overrides the net only when its evidence beats its noise;
- ``label``: the search's own move (its gate applied): the hard target;
- ``base``: the champion's greedy move, and ``gain``: the points the search expects its
  move to gain over it (0 where it keeps it): the teacher's gain over its student.

The game then moves on by a sample of the soft target (``play=sample``), the search's move
(``teacher``) or the champion's own sample (``champion``); a finished game is redealt. The
games are a carry: a chunk continues where the previous one stopped, so positions of all
three rounds are labelled in proportion.

With an opponent mix (``generate.opponents``: a policy's share of the games), each game is
dealt its opponent with its deal: self-play, or one seat (drawn) played by a mix opponent.
The champion's side of those games is labelled as in self-play; the opponent's moves are its
own, and its decisions are searched (under ``vmap`` every game pays for its lane) but not kept
(:func:`own_decisions`): the student learns the champion's play against the mix.
"""

import jax
import jax.numpy as jnp
from flax import struct
from jax.tree_util import Partial

from lost_cities.game.views import round_index
from lost_cities.models import Agent
from lost_cities.ppo.rollout import select as select_tree
from lost_cities.search import search_decision
from lost_cities.search.agent import candidate_values, gate_closeness, select
from lost_cities.search.candidates import logit_scores
from lost_cities.search.rollout import point_utility

PLAY = ("sample", "teacher", "champion")
TARGETS = ("soft", "hard")


@struct.dataclass
class Games:
    """The games in progress and the key of their next ply; with an opponent mix, who plays
    each game (without one these are None: no leaves, so a self-play carry is as it was)."""

    states: object  # env states, leading axis the games
    key: jax.Array
    opponent: jax.Array | None = None  # int32[games]: 0 self-play, j the mix's j-th opponent
    seat: jax.Array | None = None  # int32[games]: the seat that opponent plays


class Labeller:
    """``init(key) -> Games`` and the jitted ``chunk(params, games) -> (games, labels)``.

    ``network`` is the champion's network (its ``params`` are an argument, so one compiled
    chunk serves every champion), ``search`` a :class:`~lost_cities.search.SearchConfig`,
    ``deal`` a world sampler (a learned belief's) or None, ``rollout`` a fixed rollout
    policy or None (the champion plays the rollouts), ``opponents`` the mix: ``(policy,
    share)`` pairs, the rest of the games self-play."""

    def __init__(
        self,
        env,
        network,
        search,
        games,
        plies,
        temperature,
        play,
        deal=None,
        rollout=None,
        opponents=(),
        escalate=(0.0, 0),
    ):
        if play not in PLAY:
            raise ValueError(f"generate.play={play!r}; choose one of {list(PLAY)}")
        if not temperature > 0:
            raise ValueError(f"teacher.temperature={temperature!r}: points per unit of a target's logit, > 0")
        shares = [share for _, share in opponents]
        if any(not share > 0 for share in shares) or sum(shares) > 1 + 1e-9:
            raise ValueError(f"generate.opponents: shares {shares} must be > 0 and sum to at most 1")
        share, worlds = escalate
        if not 0 <= share <= 1 or worlds < 0 or (share > 0) != (worlds > 0):
            raise ValueError(
                f"teacher.escalate: share={share!r} (0 to 1) and worlds={worlds!r} (>= 0): both set or both 0"
            )
        self.escalate_count, self.escalate_worlds = (round(share * games), worlds) if worlds else (0, 0)
        self.env, self.network, self.search = env, network, search
        self.games, self.plies, self.temperature, self.play = games, plies, temperature, play
        self.deal, self.rollout = deal, rollout
        self.opponents = tuple(policy for policy, _ in opponents)
        self.shares = jnp.log(jnp.asarray([max(1.0 - sum(shares), 0.0), *shares]))  # self-play first
        self.chunk = jax.jit(self._chunk)
        self.decide = jax.jit(self._decide)

    def init(self, key):
        k_games, key = jax.random.split(key)
        games = Games(jax.vmap(self.env.init)(jax.random.split(k_games, self.games)), key)
        if not self.opponents:
            return games
        opponent, seat = self._draw(jax.random.fold_in(k_games, 1))
        return games.replace(opponent=opponent, seat=seat)

    def _draw(self, key):
        """Each game's opponent (0: self-play) and the seat it plays."""
        k_opponent, k_seat = jax.random.split(key)
        opponent = jax.random.categorical(k_opponent, self.shares, shape=(self.games,)).astype(jnp.int32)
        return opponent, jax.random.randint(k_seat, (self.games,), 0, 2, jnp.int32)

    def _search(self, params, state, key):
        """The search's scores of one position: ``info`` of :func:`search_decision`."""
        agent = Agent(self.env, self.network, params, {})
        scores = logit_scores(agent)
        _, info = search_decision(
            self.search, agent.policy, scores, state, key, rollout_policy=self.rollout, deal=self.deal
        )
        return info

    def _decide(self, params, states, key):
        """The search's ``info`` for a ply's positions (``games`` of them), escalated."""
        k_search, k_more = jax.random.split(key)
        info = jax.vmap(Partial(self._search, params))(states, jax.random.split(k_search, self.games))
        info["mean_gain"] = jnp.mean(info["values"] - info["values"][:, :, :1], axis=1)
        return self._escalate(params, states, info, k_more) if self.escalate_count else info

    def _escalate(self, params, states, info, key):
        """The ``escalate_count`` positions whose best challenger is nearest its gate get
        ``escalate_worlds`` more worlds for it and the base move; their label and that
        challenger's gain are made again from all the worlds (the rest keep their own)."""
        cfg, agent = self.search, Agent(self.env, self.network, params, {})
        unit = jax.vmap(point_utility, in_axes=(0, None))(states, cfg.scales)
        nearest = jax.vmap(gate_closeness, in_axes=(0, 0, None, 0, 0))
        challenger, closeness = nearest(info["values"], info["valid"], cfg, unit, info["bonus"])
        _, chosen = jax.lax.top_k(-closeness, self.escalate_count)
        pair = jnp.stack([jnp.zeros_like(challenger), challenger], axis=1)[chosen]  # candidate indices

        def more(state, actions, key):
            world_key, rollout_key = jax.random.split(key)
            return candidate_values(
                cfg,
                state,
                actions,
                world_key,
                rollout_key,
                self.escalate_worlds,
                agent.policy,
                self.rollout,
                deal=self.deal,
            )

        pick = jax.vmap(lambda x, i: x[..., i])
        extra = jax.vmap(more)(
            jax.tree.map(lambda x: x[chosen], states),
            pick(info["actions"][chosen], pair),
            jax.random.split(key, self.escalate_count),
        )
        first = jnp.take_along_axis(info["values"][chosen], pair[:, None, :], axis=2)
        values = jnp.concatenate([first, extra], axis=1)  # the pair in all the worlds
        bonus = pick(info["bonus"][chosen], pair)
        turned, _ = jax.vmap(select, in_axes=(0, None, None, 0, 0))(
            values, jnp.ones(2, bool), cfg, unit[chosen], bonus
        )
        decided = jnp.isfinite(closeness[chosen])  # no challenger: nothing to decide
        index = (
            info["index"]
            .at[chosen]
            .set(jnp.where(decided, jnp.where(turned == 1, challenger[chosen], 0), info["index"][chosen]))
        )
        gain = jnp.mean(values[:, :, 1] - values[:, :, 0], axis=1)
        values_gain = (
            info["mean_gain"]
            .at[chosen, challenger[chosen]]
            .set(jnp.where(decided, gain, info["mean_gain"][chosen, challenger[chosen]]))
        )
        return {**info, "index": index, "mean_gain": values_gain}

    def _labels(self, params, state, info, key):
        """The move played and the labels of one position from the search's ``info``."""
        agent = Agent(self.env, self.network, params, {})
        unit = point_utility(state, self.search.scales)
        gain = info["mean_gain"] / unit  # points over the champion's move
        prior = info["bonus"] / unit
        logits = jnp.where(info["valid"], (gain + prior) / self.temperature, -jnp.inf)
        action = info["actions"][info["index"]]
        moves = {
            "sample": info["actions"][jax.random.categorical(key, logits)],
            "teacher": action,
            "champion": jax.random.categorical(key, logit_scores(agent)(state)).astype(jnp.int32),
        }
        labels = {
            "actions": info["actions"],
            "target": jax.nn.softmax(logits),
            "label": action,
            "base": info["actions"][0],
            "gain": gain[info["index"]],
            "round": round_index(state),
        }
        return moves[self.play], labels

    def _ply(self, params, games, key):
        env, n = self.env, self.games
        states = games.states
        k_decide, k_reset = jax.random.split(key)
        mover = jax.vmap(env.to_move)(states)
        obs = jax.vmap(env.observe)(states, mover)
        mask = jax.vmap(env.legal_mask)(states)
        k_search, k_play = jax.random.split(k_decide)
        info = self._decide(params, states, k_search)
        action, labels = jax.vmap(Partial(self._labels, params))(states, info, jax.random.split(k_play, n))
        labels = {"obs": obs, "mask": mask, **labels}
        if self.opponents:
            k_moves, k_draw = jax.random.split(jax.random.fold_in(key, 1))
            keys = jax.random.split(k_moves, n)
            moves = jnp.stack([jax.vmap(policy)(states, keys).astype(jnp.int32) for policy in self.opponents])
            theirs = (games.opponent > 0) & (mover == games.seat)
            action = jnp.where(theirs, moves[jnp.maximum(games.opponent - 1, 0), jnp.arange(n)], action)
            labels["own"] = ~theirs
        states, _, done = jax.vmap(env.step)(states, action)
        fresh = jax.vmap(env.init)(jax.random.split(k_reset, n))
        games = games.replace(states=select_tree(done, fresh, states))
        if self.opponents:  # a redealt game is dealt its opponent afresh
            opponent, seat = self._draw(k_draw)
            games = games.replace(
                opponent=jnp.where(done, opponent, games.opponent), seat=jnp.where(done, seat, games.seat)
            )
        return games, labels

    def _chunk(self, params, games):
        key, k_plies = jax.random.split(games.key)
        games, labels = jax.lax.scan(
            lambda g, k: self._ply(params, g, k), games, jax.random.split(k_plies, self.plies)
        )
        size = self.games * self.plies
        labels = jax.tree.map(lambda x: x.reshape((size,) + x.shape[2:]), labels)
        return games.replace(key=key), labels


def own_decisions(labels):
    """A chunk's labels of the champion's decisions: a mix opponent's are dropped (``own``)."""
    own = labels.pop("own", None)
    return labels if own is None else {name: value[own] for name, value in labels.items()}
