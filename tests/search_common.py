"""What the search's tests share, in tests/search and beside it (tests/imitation,
tests/export, tests/evaluation, tests/test_policies.py): the expert, this checkout's search
presets, ``python -m lost_cities.belief`` called in-process, the positions met in play that
tests/conftest.py's ``match_states`` fixture serves, a belief of random weights, the
invariance checks' search config and an untrained omniscient critic."""

from importlib import resources
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from omegaconf import OmegaConf

from lost_cities import envs
from lost_cities.bots import make
from lost_cities.cli.belief import run as run_belief
from lost_cities.game.engine import LOC_HAND, LOC_KNOWN
from lost_cities.game.match import match_legal_action_mask, match_reset, match_step
from lost_cities.game.sampling import uniform_legal_action
from lost_cities.search import load_preset

EXPERT = make("heuristic_expert")
PRESETS = Path(__file__).resolve().parents[1] / "conf" / "search"  # this checkout's presets


def belief_command(**settings):
    """``python -m lost_cities.belief`` with ``settings`` over conf/cli/belief.yaml's defaults."""
    defaults = OmegaConf.load(resources.files("lost_cities.conf.cli") / "belief.yaml")
    run_belief(OmegaConf.merge(defaults, settings))


def _cfg(**knobs):
    return load_preset("default", PRESETS, **knobs)


# A round State's fields that are public (both seats see them), besides the recent moves.
PUBLIC_ROUND_FIELDS = (
    "pile_size",
    "exp_top",
    "exp_sum",
    "exp_handshakes",
    "exp_count",
    "deck_ptr",
    "plies",
    "done",
)
GAMES = 12
PLIES = 150  # past the first round boundary for every game


def play_match_states():
    """MatchStates met in play: a driver mixing uniform random moves (which draw from the
    discard piles, so the opponent holds known cards) with the expert's moves."""

    def one_ply(states, key):
        move_key, coin_key = jax.random.split(key)
        masks = jax.vmap(match_legal_action_mask)(states)
        random_moves = jax.vmap(uniform_legal_action)(jax.random.split(move_key, GAMES), masks)
        expert_moves = jax.vmap(EXPERT)(states, jax.random.split(coin_key, GAMES))
        moves = jnp.where(jax.random.bernoulli(coin_key, 0.4, (GAMES,)), random_moves, expert_moves)
        next_states, _, _ = jax.vmap(match_step)(states, moves)
        return next_states, states

    states = jax.vmap(match_reset)(jax.random.split(jax.random.PRNGKey(7), GAMES))
    _, record = jax.jit(lambda s: jax.lax.scan(one_ply, s, jax.random.split(jax.random.PRNGKey(8), PLIES)))(
        states
    )
    flat = jax.tree.map(lambda x: x.reshape((PLIES * GAMES,) + x.shape[2:]), record)
    live = ~np.asarray(flat.round.done)
    return jax.tree.map(lambda x: x[np.flatnonzero(live)], flat)


def _take(states, index):
    return jax.tree.map(lambda x: x[index], states)


def _sorted_hand(loc, seat):
    return np.flatnonzero((loc == LOC_HAND + seat) | (loc == LOC_KNOWN + seat)).astype(np.int8)


def _random_belief(moves=8, seed=0, hidden=(32,)):
    """A belief of random weights (its last layer too, which training starts at zero): its
    worlds deal by whatever those say, which is what the checks on the worlds' structure
    and on the decision's invariance need."""
    from lost_cities.search.belief import BeliefNet, LearnedBelief, features

    env = envs.make("match3")
    dim = features(env, env.init(jax.random.PRNGKey(0)), moves).shape[0]
    params = BeliefNet(hidden).init(jax.random.PRNGKey(seed), jnp.zeros((1, dim)), jnp.zeros(1))
    last = params["params"][f"Dense_{len(hidden)}"]
    last["kernel"] = jax.random.normal(jax.random.PRNGKey(seed + 1), last["kernel"].shape) * 0.3
    return LearnedBelief(params, "match3", moves, hidden, {"base": "none"})


INVARIANCE_CFG = _cfg(worlds=4, candidates=4, gate_points=0.0, gate_z=0.0)


def _fresh_critic_agent(env, seed=0):
    """A checkpoint-like agent with an untrained omniscient critic: its values still depend
    on every hidden card, which is what the no-cheat check needs."""
    from types import SimpleNamespace

    from lost_cities.networks.critic.omniscient import OmniscientCritic
    from lost_cities.networks.nets import ActorCritic

    network = ActorCritic(
        hidden=(16,), activation="relu", critic=OmniscientCritic(0.95, (32,)).module("relu")
    )
    state = env.init(jax.random.PRNGKey(seed))
    params = network.init(
        jax.random.PRNGKey(seed), env.observe(state, 0)[None], env.privileged(state, 0)[None]
    )
    reward = {"scale": 50.0, "coef": 0.2, "floor": 0.05, "anneal_decisions": 1000}
    meta = {
        "critic": {"_target_": "lost_cities.networks.critic.omniscient.OmniscientCritic"},
        "config": {"reward": reward, "ppo": {"total_decisions": 500}},
    }
    return SimpleNamespace(env=env, network=network, params=params, meta=meta)
