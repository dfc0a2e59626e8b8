"""The rollout: one ``lax.scan`` whose every step is a learner decision in every env.

Each env slot holds its game state, the episode's assignment (learner seat, opponent)
and running episode totals. One scanned step: the learner acts for the seat to move;
a fixed opponent (a bot, a checkpoint or a league snapshot) then replies until the
learner is to move again (at most twice: in a match, a round can end on the opponent's
move and the opponent may start the next);
a finished episode is replaced in place by a pre-sampled *spare* slot. Spares are drawn
before the scan (``env.init`` costs several engine steps) with a fresh learner seat and
opponent, as dealt: where the spare's opponent starts, the same step's move loop plays
that opening move after the reply that ended the episode (so a step plays at most three
moves). The scan never pads and never calls ``init``. An episode lasts at least 22 learner
decisions per round, so ``spares_needed`` spares per env always suffice.
"""

import math

import jax
import jax.numpy as jnp
from flax import struct

from lost_cities.game.cards import MAX_STEPS, decode_action
from lost_cities.networks.features import observer_view
from lost_cities.networks.nets import masked_logits
from lost_cities.ppo.episodes import EpisodeStats, FinishedEpisode
from lost_cities.ppo.opponent.league import pool_logits

MIN_LEARNER_DECISIONS_PER_ROUND = 22  # 44 deck draws per round, moves alternate


@struct.dataclass
class Slot:
    state: object
    learner_seat: jnp.ndarray
    opponent: jnp.ndarray
    stats: EpisodeStats


@struct.dataclass
class Transition:
    obs: jnp.ndarray
    features: object  # the network's input_features(obs), kept for the update's epochs
    privileged: jnp.ndarray
    mask: jnp.ndarray
    action: jnp.ndarray
    logp: jnp.ndarray
    value: jnp.ndarray
    mover: jnp.ndarray
    reward: jnp.ndarray  # [2], both seats, from this decision until the next row (same episode)
    done: jnp.ndarray
    moves: jnp.ndarray  # moves played by both seats in this step (the learner's and the replies)


def spares_needed(rollout_length, rounds):
    return rollout_length // (MIN_LEARNER_DECISIONS_PER_ROUND * rounds) + 1


def select(condition, on_true, on_false):
    """Per-env choice between two batched pytrees."""

    def pick(a, b):
        c = condition.reshape(condition.shape + (1,) * (a.ndim - condition.ndim))
        return jnp.where(c, a, b)

    return jax.tree.map(pick, on_true, on_false)


def one_hot_pick(values, index):
    """``values[index]`` along the last axis as a select (cheaper than a gather under vmap)."""
    hit = jnp.arange(values.shape[-1]) == index[..., None]
    return jnp.sum(jnp.where(hit, values, 0), axis=-1)


class Rollout:
    """Pure functions that play ``length`` learner decisions in ``num_envs`` envs."""

    def __init__(self, env, network, needs_privileged, reward, opponents, num_envs, length):
        self.env, self.network, self.reward, self.opponents = env, network, reward, opponents
        self.needs_privileged = needs_privileged
        self.num_envs, self.length = num_envs, length
        self.is_self = jnp.asarray(opponents.is_self)
        self.scripted, self.league = opponents.scripted, opponents.league
        self.spares = spares_needed(length, env.rounds)

    def _move(self, state, action, coefficient):
        """One env step for a batch with the training reward and a MAX_STEPS flag."""
        env = self.env
        plies = jax.vmap(lambda s: env.round_state(s).plies)(state)
        next_state, env_reward, done = jax.vmap(env.step)(state, action)
        if self.reward.needs_potential:
            before, after = jax.vmap(env.final_margin)(state), jax.vmap(env.final_margin)(next_state)
        else:
            before = after = jnp.zeros_like(env_reward)
        reward = self.reward(env_reward, before, after, coefficient)
        return next_state, reward, done, plies >= MAX_STEPS - 1

    def _opponent_action(self, state, opponent, key, pool):
        """Every env's reply by its episode's opponent (``pool``: the league's stacked parameters)."""
        n = opponent.shape[0]
        action = jnp.zeros(opponent.shape, jnp.int32)
        if self.league is not None:
            key, k_league = jax.random.split(key)
            _, obs, mask, features = self._inputs(state)
            inputs = (obs, features)
            logits = pool_logits(lambda p, x: self.network.apply(p, *x, method="logits"), pool, inputs)
            league = jax.random.categorical(k_league, masked_logits(logits, mask)).astype(jnp.int32)
            action = jnp.where(opponent == self.league[0], league, action)
        keys = jax.random.split(key, n * len(self.scripted)).reshape(len(self.scripted), n, -1)
        for (k, policy), policy_keys in zip(self.scripted, keys, strict=True):
            action = jnp.where(opponent == k, jax.vmap(policy)(state, policy_keys).astype(jnp.int32), action)
        return action

    def _opponent_turn(self, slot):
        to_move = jax.vmap(self.env.to_move)(slot.state)
        done = jax.vmap(self.env.done)(slot.state)
        return ~self.is_self[slot.opponent] & (to_move != slot.learner_seat) & ~done

    def fresh_slots(self, key, shape):
        """New episodes with a drawn learner seat and opponent."""
        n = math.prod(shape)
        k_init, k_seat, k_opp = jax.random.split(key, 3)
        state = jax.vmap(self.env.init)(jax.random.split(k_init, n))
        seat = jax.random.bernoulli(k_seat, 0.5, (n,)).astype(jnp.int32)
        opponent = jax.random.categorical(k_opp, jnp.log(self.opponents.probs), shape=(n,)).astype(jnp.int32)
        slot = Slot(state, seat, opponent, EpisodeStats.zeros((n,)))
        return jax.tree.map(lambda x: x.reshape(tuple(shape) + x.shape[1:]), slot)

    def first_slots(self, key, pool=None):
        """The run's first episodes, with a fixed opponent's opening move played where it starts
        (inside the scan, the move loop plays it for every later episode)."""
        k_slots, k_move = jax.random.split(key)
        slot = self.fresh_slots(k_slots, (self.num_envs,))
        if not self.opponents.has_fixed:
            return slot
        first = self._opponent_turn(slot)
        action = self._opponent_action(slot.state, slot.opponent, k_move, pool)
        moved, _, _, _ = self._move(slot.state, action, 0.0)
        return slot.replace(
            state=select(first, moved, slot.state), stats=slot.stats.replace(plies=first.astype(jnp.int32))
        )

    def _inputs(self, state):
        """The mover, its observation, its legal mask and the network's input features in every env."""
        env = self.env
        mover = jax.vmap(env.to_move)(state)
        obs = jax.vmap(env.observe)(state, mover)
        views = jax.vmap(observer_view)(jax.vmap(env.round_state)(state), mover)
        return mover, obs, jax.vmap(env.legal_mask)(state), self.network.input_features(obs, views)

    def observe(self, params, state):
        mover, obs, mask, features = self._inputs(state)
        privileged = (
            jax.vmap(self.env.privileged)(state, mover)
            if self.needs_privileged
            else jnp.zeros((obs.shape[0], 0))
        )
        logits, value = self.network.apply(params, obs, privileged, features)
        return mover, obs, features, privileged, mask, masked_logits(logits, mask), value

    def run(self, params, slots, key, coefficient, pool=None):
        """``(slots, transitions [T, N], finished [T, N], bootstrap [N, 2])``.

        Within a scanned step, moves are a ``fori_loop`` over at most three moves (the
        learner's, then fixed opponents' replies, including the first move of an episode
        that replaced a finished one) so the engine is compiled once, not per move.
        ``pool``: the league's stacked snapshot parameters (``opponent=league`` only).
        """
        key, spare_key = jax.random.split(key)
        spares = self.fresh_slots(spare_key, (self.spares, self.num_envs))
        n = self.num_envs
        moves_per_step = 3 if self.opponents.has_fixed else 1

        def decide(carry, key):
            slot, used = carry
            k_act, k_opp = jax.random.split(key)
            mover, obs, features, privileged, mask, logits, value = self.observe(params, slot.state)
            action = jax.random.categorical(k_act, logits).astype(jnp.int32)
            logp = one_hot_pick(jax.nn.log_softmax(logits), action)
            _, place_type, draw_source = decode_action(action)
            mine = mover == slot.learner_seat
            s = slot.stats
            slot = slot.replace(
                stats=s.replace(
                    decisions=s.decisions + mine,
                    plays=s.plays + (mine & (place_type == 0)),
                    discards=s.discards + (mine & (place_type == 1)),
                    pile_draws=s.pile_draws + (mine & (draw_source > 0)),
                )
            )

            def play(i, c):
                slot, used, reward, done, finished, moves = c
                learner = i == 0
                replies = ~learner & self._opponent_turn(slot)
                active = learner | replies
                if self.opponents.has_fixed:
                    # Opponents are computed only on a move where one replies somewhere
                    # (never on the learner's move; the third move rarely).
                    chosen = jax.lax.cond(
                        jnp.any(replies),
                        lambda: self._opponent_action(
                            slot.state, slot.opponent, jax.random.fold_in(k_opp, i), pool
                        ),
                        lambda: action,
                    )
                else:
                    chosen = action
                state, r, ended, max_steps = self._move(slot.state, chosen, coefficient)
                ended = active & ended
                this_episode = active & ~done  # moves after a reset belong to the next episode
                reward = reward + jnp.where(this_episode[:, None], r, 0.0)
                moves = moves + this_episode
                stats = slot.stats.replace(
                    ret=slot.stats.ret + jnp.where(active, one_hot_pick(r, slot.learner_seat), 0.0),
                    plies=slot.stats.plies + active,
                    max_steps=slot.stats.max_steps | (active & max_steps),
                )
                margin = one_hot_pick(jax.vmap(self.env.final_margin)(state), slot.learner_seat)
                finished = select(ended, FinishedEpisode(ended, slot.opponent, stats, margin), finished)
                slot = select(active, slot.replace(state=state, stats=stats), slot)
                spare = jax.tree.map(lambda x: one_hot_pick_leading(x, used), spares)
                slot = select(ended, spare, slot)
                used = jnp.minimum(used + ended, self.spares - 1)
                return slot, used, reward, done | ended, finished, moves

            no_episode = FinishedEpisode(
                jnp.zeros(n, bool), slot.opponent, EpisodeStats.zeros((n,)), jnp.zeros(n, jnp.float32)
            )
            start = (slot, used, jnp.zeros((n, 2)), jnp.zeros(n, bool), no_episode, jnp.zeros(n, jnp.int32))
            slot, used, reward, done, finished, moves = jax.lax.fori_loop(0, moves_per_step, play, start)
            row = Transition(obs, features, privileged, mask, action, logp, value, mover, reward, done, moves)
            return (slot, used), (row, finished)

        used = jnp.zeros(n, jnp.int32)
        (slots, _), (transitions, finished) = jax.lax.scan(
            decide, (slots, used), jax.random.split(key, self.length)
        )
        mover, _, _, _, _, _, value = self.observe(params, slots.state)
        bootstrap = jnp.where(jnp.arange(2)[None, :] == mover[:, None], value[:, None], -value[:, None])
        return slots, transitions, finished, bootstrap


def one_hot_pick_leading(x, index):
    """``x[index[n], n]`` for ``x`` of shape ``[K, N, ...]`` (a select over the small K axis)."""
    hit = jnp.arange(x.shape[0])[:, None] == index[None, :]
    hit = hit.reshape(hit.shape + (1,) * (x.ndim - 2))
    return jnp.sum(jnp.where(hit, x, jnp.zeros_like(x)), axis=0).astype(x.dtype)
