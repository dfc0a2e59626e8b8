"""Differential test: the JAX engine against the independent reference (tests/reference_engine.py).

Games are played in lockstep: the JAX side steps the whole batch with the public
batched (``jit(vmap(...))``) functions, the reference steps each game in Python. Actions come from the
reference's own legal mask (about 10% illegal or out-of-range actions mixed in, and
random actions after the end); at every ply legal masks, rewards, done, board scores,
``to_move``, plies and both players' full observations must agree.

The default run plays one chunk of 2,000 games; ``pytest --full`` plays 50 chunks
(100,000 games), one test per chunk so that ``-n 2`` (pytest-xdist) can split them.
"""

import hand_scored
import jax
import numpy as np
import pytest
from reference_engine import N_ACTIONS, N_CARDS, RefRound

from lost_cities import batched_legal_mask, batched_obs, batched_step, board_score, reset_from_order

CHUNK_GAMES = 2_000
FULL_CHUNKS = 50
ILLEGAL_RATE = 0.1
N_CHANNELS = 7
N_SCALARS = 34


def pytest_generate_tests(metafunc):
    if "chunk" in metafunc.fixturenames:
        chunks = FULL_CHUNKS if metafunc.config.getoption("--full") else 1
        metafunc.parametrize("chunk", range(chunks))


batched_board_score = jax.jit(jax.vmap(board_score))


def _observe(states):
    n = len(states.done)
    return {
        "mask": batched_legal_mask(states),
        "obs0": batched_obs(states, np.zeros(n, np.int32)),
        "obs1": batched_obs(states, np.ones(n, np.int32)),
        "board": batched_board_score(states),
        "to_move": states.to_move,
        "plies": states.plies,
        "done": states.done,
    }


class ReferenceBatch:
    """The reference games of one chunk, with their per-ply views cached as arrays.

    Observations are kept as each card's channel plus the 34 scalars (the full v1
    content, without building 454 Python floats per player and ply).

    A game's view is recomputed only when a legal action changed it; an illegal or
    post-end action must leave the JAX state unchanged too, so comparing against the
    cached view checks that as well.
    """

    def __init__(self, orders, first_players):
        deals = zip(orders.tolist(), first_players.tolist(), strict=True)
        self.games = [RefRound(order, first_player) for order, first_player in deals]
        n = len(self.games)
        self.view = {
            "mask": np.zeros((n, N_ACTIONS), bool),
            "channels0": np.zeros((n, N_CARDS), np.int8),
            "channels1": np.zeros((n, N_CARDS), np.int8),
            "scalars0": np.zeros((n, N_SCALARS), np.float32),
            "scalars1": np.zeros((n, N_SCALARS), np.float32),
            "board": np.zeros((n, 2), np.float32),
            "to_move": np.zeros(n, np.int32),
            "plies": np.zeros(n, np.int32),
            "done": np.zeros(n, bool),
        }
        for g in range(n):
            self.refresh(g)

    def refresh(self, g):
        game, view = self.games[g], self.view
        view["mask"][g] = game.legal_mask()
        for player in (0, 1):
            view[f"channels{player}"][g] = game.card_channels(player)
            view[f"scalars{player}"][g] = game.scalars(player)
        view["board"][g] = game.board_score()
        view["to_move"][g] = game.to_move
        view["plies"][g] = game.plies
        view["done"][g] = game.done

    def step(self, actions):
        rewards = np.zeros((len(self.games), 2), np.float32)
        done = np.zeros(len(self.games), bool)
        for g, game in enumerate(self.games):
            plies = game.plies
            rewards[g], done[g] = game.step(int(actions[g]))
            if game.plies != plies:
                self.refresh(g)
        return rewards, done


def choose_actions(rng, masks, styles):
    """One action per game from the reference masks, vectorised over the batch.

    Styles vary the game length: 0 uniform over legal actions, 1 prefers deck draws
    (natural ends), 2 prefers discard-pile draws (stalling to the 400-ply end). With
    probability ``ILLEGAL_RATE``, and always once a game is over, the action is an
    illegal one instead, and a tenth of those are out of range.
    """
    n = len(masks)
    deck_draw = np.arange(N_ACTIONS) % 6 == 0
    preferred = masks & np.where((styles == 1)[:, None], deck_draw, ~deck_draw)
    use_preferred = (styles > 0) & preferred.any(axis=1) & (rng.random(n) < 0.8)
    illegal = ~masks.any(axis=1) | (rng.random(n) < ILLEGAL_RATE)
    candidates = np.where(illegal[:, None], ~masks, np.where(use_preferred[:, None], preferred, masks))
    actions = np.argmax(np.where(candidates, rng.random((n, N_ACTIONS)), -1.0), axis=1)
    out_of_range = illegal & (rng.random(n) < 0.1)
    return np.where(out_of_range, rng.choice([-1, N_ACTIONS], n), actions).astype(np.int32)


def _assert_views_agree(got, want, ply):
    """Exact equality, except the 34 scalars may differ by one float32 ulp: each is one
    division, which XLA compiles to a multiplication by the rounded reciprocal."""
    for key in ("mask", "board", "to_move", "plies", "done"):
        bad = np.flatnonzero((np.asarray(got[key]) != want[key]).reshape(len(want[key]), -1).any(axis=1))
        assert not bad.size, (
            f"ply {ply}: {key} differs in game {bad[0]}: {got[key][bad[0]]} vs {want[key][bad[0]]}"
        )
    for player in (0, 1):
        obs = np.asarray(got[f"obs{player}"])
        channels = want[f"channels{player}"]
        one_hot = (channels[:, :, None] == np.arange(N_CHANNELS)).reshape(len(obs), N_CARDS * N_CHANNELS)
        scalars = want[f"scalars{player}"]
        bad = np.concatenate(
            [
                obs[:, : one_hot.shape[1]] != one_hot,
                np.abs(obs[:, one_hot.shape[1] :] - scalars) > np.spacing(np.abs(scalars)),
            ],
            axis=1,
        )
        games = np.flatnonzero(bad.any(axis=1))
        if games.size:
            g = games[0]
            where = np.flatnonzero(bad[g])[:8]
            want_obs = np.concatenate([one_hot[g], scalars[g]])
            raise AssertionError(
                f"ply {ply}: observation of player {player} differs in game {g} at indices {where}: "
                f"engine {obs[g, where]} vs reference {want_obs[where]}"
            )


@pytest.mark.slow
def test_engine_matches_reference(chunk):
    rng = np.random.default_rng(1_000 + chunk)
    orders = np.argsort(rng.random((CHUNK_GAMES, 60)), axis=1).astype(np.int32)
    first_players = rng.integers(0, 2, CHUNK_GAMES).astype(np.int32)
    styles = rng.choice(3, CHUNK_GAMES, p=[0.5, 0.35, 0.15])
    reference = ReferenceBatch(orders, first_players)
    states = jax.jit(jax.vmap(reset_from_order))(orders, first_players)
    view = _observe(states)
    _assert_views_agree(view, reference.view, ply=0)

    ply = 0
    while not reference.view["done"].all():
        ply += 1
        actions = choose_actions(rng, reference.view["mask"], styles)
        states, rewards, done = batched_step(states, actions)
        view = _observe(states)
        want_rewards, want_done = reference.step(actions)
        np.testing.assert_array_equal(np.asarray(rewards), want_rewards, err_msg=f"rewards at ply {ply}")
        np.testing.assert_array_equal(np.asarray(done), want_done, err_msg=f"done at ply {ply}")
        _assert_views_agree(view, reference.view, ply)

    plies = reference.view["plies"]
    assert (plies == 400).any(), "no game reached the forced end: the stalling style stopped working"
    assert (plies < 400).any(), "no game ended naturally"


@pytest.mark.parametrize("round_idx", [0, 1, 2])
def test_the_reference_scores_each_round_of_the_hand_scored_match(round_idx):
    """The oracle itself, against scores worked out by hand (tests/hand_scored.py): every
    action legal, the round over at its 44th ply, the boards and the margin reward as scored."""
    _, starter, _, _ = hand_scored.ROUNDS[round_idx]
    game = RefRound(hand_scored.deck_order(round_idx), starter)
    actions = hand_scored.round_actions(round_idx)
    for ply, action in enumerate(actions):
        assert game.is_legal(action) and not game.done, ply
        reward, done = game.step(action)
        assert done == (ply == len(actions) - 1)
    s0, s1 = hand_scored.ROUND_SCORES[round_idx]
    assert game.board_score() == [s0, s1] and game.plies == 44
    assert reward == [s0 - s1, s1 - s0]
