"""Differential test: the JAX match and observation v2 against the plain-Python reference.

Matches are played in lockstep: the JAX side steps the whole batch with one jitted
``vmap`` call per ply, the reference (tests/reference_match.py on RefRound) steps each
match in Python. Policies vary per match so that every branch is reached: uniform legal
play, mostly deck draws (natural ends), discards only (every round 0:0, so the coins
pick the starters), and stalling in round 2 (a 400-ply round; mostly deck draws in the
other rounds, which keeps the run short); about 8% of actions are illegal or
out of range, and matches that are over keep receiving actions. At every ply legal
masks, rewards, done, carry, round index, starter, player to move and both players'
full v2 observations must agree.

The default run plays 512 matches; ``pytest --full`` plays 8 chunks (4,096 matches).
"""

import hand_scored
import jax
import numpy as np
import pytest
from reference_match import N_MATCH_FEATURES, RefMatch, random_deals

from lost_cities.game.match import match_legal_action_mask, match_reset_from, match_step
from lost_cities.obs.v2 import OBS_V2_DIM, match_observation

CHUNK_MATCHES = 512
FULL_CHUNKS = 8
ILLEGAL_RATE = 0.08
N_ACTIONS = 96
N_CARDS = 60
N_CHANNELS = 7
V1_DIM = N_CARDS * N_CHANNELS + 34
UNIFORM, DECK_DRAWS, DISCARDS_ONLY, STALLING = range(4)
STYLE_SHARES = [0.25, 0.6, 0.1, 0.05]


def pytest_generate_tests(metafunc):
    if "chunk" in metafunc.fixturenames:
        chunks = FULL_CHUNKS if metafunc.config.getoption("--full") else 1
        metafunc.parametrize("chunk", range(chunks))


def _view(ms):
    return {
        "mask": jax.vmap(match_legal_action_mask)(ms),
        "obs0": jax.vmap(match_observation, in_axes=(0, None))(ms, 0),
        "obs1": jax.vmap(match_observation, in_axes=(0, None))(ms, 1),
        "carry": ms.carry,
        "round_idx": ms.round_idx,
        "starter": ms.starter,
        "to_move": ms.to_move,
        "done": ms.done,
    }


@jax.jit
def _deal(orders, coins):
    ms = jax.vmap(match_reset_from)(orders, coins)
    return ms, _view(ms)


@jax.jit
def _play(ms, actions):
    ms, rewards, done = jax.vmap(match_step)(ms, actions)
    return ms, rewards, done, _view(ms)


class ReferenceMatches:
    """The reference matches of one chunk, with their per-ply views cached as arrays.

    A match's view is recomputed only after a legal action; an illegal or post-end
    action must leave the JAX match unchanged too, so comparing against the cached view
    checks that as well.
    """

    def __init__(self, orders, coins):
        self.matches = [RefMatch(o, c) for o, c in zip(orders.tolist(), coins.tolist(), strict=True)]
        n = len(self.matches)
        self.view = {"mask": np.zeros((n, N_ACTIONS), bool), "carry": np.zeros((n, 2), np.float32)}
        for key in ("round_idx", "starter", "to_move"):
            self.view[key] = np.zeros(n, np.int32)
        self.view["done"] = np.zeros(n, bool)
        for player in (0, 1):
            self.view[f"channels{player}"] = np.zeros((n, N_CARDS), np.int8)
            self.view[f"scalars{player}"] = np.zeros((n, 34), np.float32)
            self.view[f"features{player}"] = np.zeros((n, N_MATCH_FEATURES), np.float32)
        for m in range(n):
            self.refresh(m)

    def refresh(self, m):
        match, view = self.matches[m], self.view
        view["mask"][m] = match.legal_mask()
        view["carry"][m] = match.carry
        view["round_idx"][m] = match.round_idx
        view["starter"][m] = match.starter
        view["to_move"][m] = match.to_move
        view["done"][m] = match.done
        for player in (0, 1):
            view[f"channels{player}"][m] = match.round.card_channels(player)
            view[f"scalars{player}"][m] = match.round.scalars(player)
            view[f"features{player}"][m] = match.match_features(player)

    def step(self, actions):
        rewards = np.zeros((len(self.matches), 2), np.float32)
        done = np.zeros(len(self.matches), bool)
        for m, match in enumerate(self.matches):
            moves = match.moves
            rewards[m], done[m] = match.step(int(actions[m]))
            if match.moves != moves:
                self.refresh(m)
        return rewards, done


def choose_actions(rng, masks, styles, round_idx):
    """One action per match from the reference masks, by the match's style (see above)."""
    n = len(masks)
    actions = np.arange(N_ACTIONS)
    deck_draw, discard = actions % 6 == 0, actions // 6 % 2 == 1
    stalling = (styles == STALLING) & (round_idx == 1)
    wanted = np.select(
        [stalling[:, None], styles[:, None] == DISCARDS_ONLY, styles[:, None] != UNIFORM],
        [discard & ~deck_draw, discard & deck_draw, deck_draw],
        True,
    )
    preferred = masks & wanted
    always = stalling | (styles == DISCARDS_ONLY)
    use_preferred = preferred.any(axis=1) & (always | (rng.random(n) < 0.85))
    illegal = ~masks.any(axis=1) | (rng.random(n) < ILLEGAL_RATE)
    candidates = np.where(illegal[:, None], ~masks, np.where(use_preferred[:, None], preferred, masks))
    chosen = np.argmax(np.where(candidates, rng.random((n, N_ACTIONS)), -1.0), axis=1)
    out_of_range = illegal & (rng.random(n) < 0.1)
    return np.where(out_of_range, rng.choice([-1, N_ACTIONS], n), chosen).astype(np.int32)


def _assert_views_agree(got, want, ply):
    """Exact equality, except the 34 v1 scalars may differ by one float32 ulp (each is one
    division, which XLA compiles to a multiplication by the rounded reciprocal)."""
    for key in ("mask", "carry", "round_idx", "starter", "to_move", "done"):
        got_key = np.asarray(got[key])
        bad = np.flatnonzero((got_key != want[key]).reshape(len(want[key]), -1).any(axis=1))
        assert not bad.size, (
            f"ply {ply}: {key} differs in match {bad[0]}: {got_key[bad[0]]} vs {want[key][bad[0]]}"
        )
    for player in (0, 1):
        obs = np.asarray(got[f"obs{player}"])
        assert obs.shape[1] == OBS_V2_DIM == V1_DIM + N_MATCH_FEATURES
        channels = want[f"channels{player}"]
        one_hot = (channels[:, :, None] == np.arange(N_CHANNELS)).reshape(len(obs), N_CARDS * N_CHANNELS)
        scalars = want[f"scalars{player}"]
        features = want[f"features{player}"]
        bad = np.concatenate(
            [
                obs[:, : one_hot.shape[1]] != one_hot,
                np.abs(obs[:, one_hot.shape[1] : V1_DIM] - scalars) > np.spacing(np.abs(scalars)),
                obs[:, V1_DIM:] != features,
            ],
            axis=1,
        )
        games = np.flatnonzero(bad.any(axis=1))
        if games.size:
            g = games[0]
            where = np.flatnonzero(bad[g])[:8]
            want_obs = np.concatenate([one_hot[g], scalars[g], features[g]])
            raise AssertionError(
                f"ply {ply}: v2 observation of player {player} differs in match {g} at indices {where}: "
                f"engine {obs[g, where]} vs reference {want_obs[where]}"
            )


@pytest.mark.slow
def test_match_matches_reference(chunk):
    rng = np.random.default_rng(2_000 + chunk)
    orders, coins = random_deals(rng, CHUNK_MATCHES)
    styles = rng.choice(len(STYLE_SHARES), CHUNK_MATCHES, p=STYLE_SHARES)
    reference = ReferenceMatches(orders, coins)
    ms, view = _deal(orders, coins)
    _assert_views_agree(view, reference.view, ply=0)

    ply = 0
    while not reference.view["done"].all():
        ply += 1
        actions = choose_actions(rng, reference.view["mask"], styles, reference.view["round_idx"])
        ms, rewards, done, view = _play(ms, actions)
        want_rewards, want_done = reference.step(actions)
        np.testing.assert_array_equal(np.asarray(rewards), want_rewards, err_msg=f"rewards at ply {ply}")
        np.testing.assert_array_equal(np.asarray(done), want_done, err_msg=f"done at ply {ply}")
        _assert_views_agree(view, reference.view, ply)

    lengths = np.array([m.round_lengths for m in reference.matches])
    assert lengths.shape == (CHUNK_MATCHES, 3)
    assert (lengths == 400).any() and (lengths < 400).any(), "both kinds of round end were played"
    starts = [start for m in reference.matches for start in m.later_starts]
    assert len(starts) == 2 * CHUNK_MATCHES
    tie_starters = {starter for (c0, c1), starter in starts if c0 == c1}
    leader_starters = {starter for (c0, c1), starter in starts if c0 != c1}
    assert tie_starters == {0, 1} and leader_starters == {0, 1}, "every start-rule branch was played"


def test_the_reference_match_scores_the_hand_scored_match():
    """The oracle itself, against a match worked out by hand (tests/hand_scored.py): the
    carry after each round, the leader starting rounds 2 and 3 against the coins, and the
    final reward, on the last action only."""
    deck_orders, coins, actions = hand_scored.match()
    match = RefMatch(deck_orders, coins)
    rewards = [match.step(action) for action in actions]
    assert [done for _, done in rewards] == [False] * (len(actions) - 1) + [True]
    assert match.carry == hand_scored.TOTALS == [30, 156]
    assert match.later_starts == [((50, 0), 0), ((40, 56), 1)]
    assert match.round_lengths == [44, 44, 44]
    assert rewards[-1][0] == [-126, 126]
