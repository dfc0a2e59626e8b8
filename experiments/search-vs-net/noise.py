"""Where the noise of a search's paired gains comes from: the opponent's hand, or the deck's order.

    python experiments/search-vs-net/noise.py POSITIONS [base=SPEC] [preset=NAME] [hands=16] [decks=8]

On POSITIONS positions of the base net's self-play (realized.py's positions), the preset's
candidates are rolled out as the search rolls them out, in ``hands`` worlds dealt as the
preset deals them (with its belief, if it has one), each with its deck dealt afresh in
``decks`` orders (the same orders for every candidate: the search's common random numbers).
The paired gain of each challenger over the base move, world by world, is split into its
variance between the hands (of their means over the decks) and within a hand (over the
deck's orders), and the challengers by whether they draw from the base move's source. The
candidates are the base net's own (a preset's proposer, inference and end game are not
applied). Why it exists: a search that is limited by noise gains from more
worlds, or from anything that averages the deck's order out of a rollout (a leaf value);
one limited by the hands its worlds deal does not.
"""

import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from realized import measured_positions

from lost_cities import envs
from lost_cities.game.cards import decode_action
from lost_cities.game.views import current_round, with_round
from lost_cities.policies import network
from lost_cities.search.belief import load as load_belief
from lost_cities.search.belief import world_sampler
from lost_cities.search.candidates import legal_mask_of, logit_scores, top_candidates
from lost_cities.search.config import knob_overrides, load_preset
from lost_cities.search.determinize import deck_dealt_afresh, determinize
from lost_cities.search.rollout import rollout_values

PAGE_NET = "web/public/bc-ppo-xi6-bal2700.onnx"
CHUNK = 50


def main():
    n_positions, *knobs = sys.argv[1:]
    overrides = knob_overrides(knobs)
    preset, base = overrides.pop("preset", "belief"), str(overrides.pop("base", PAGE_NET))
    n_hands, n_decks = int(overrides.pop("hands", 16)), int(overrides.pop("decks", 8))
    env = envs.make("match3")
    net = network(base, env, "base")  # a checkpoint dir or .onnx (the error names any other kind)
    cfg = load_preset(preset, **overrides)
    deal = determinize if cfg.belief is None else world_sampler(load_belief(cfg.belief, env.name))
    policy, scores = net.policy, logit_scores(net)

    def values(state, rng):
        """float32[hands, decks, K], the candidates' validity and the candidates at one position."""
        base_key, hand_key, deck_key, rollout_key = jax.random.split(rng, 4)
        base_move = policy(state, base_key).astype(jnp.int32)
        actions, valid = top_candidates(scores(state), legal_mask_of(state), base_move, cfg.candidates)
        hands = jax.vmap(deal, in_axes=(0, None))(jax.random.split(hand_key, n_hands), state)

        def orders(world, key):
            return jax.vmap(lambda k: with_round(world, deck_dealt_afresh(k, current_round(world))))(
                jax.random.split(key, n_decks)
            )

        worlds = jax.vmap(orders)(hands, jax.random.split(deck_key, n_hands))
        flat = jax.tree.map(lambda x: x.reshape((n_hands * n_decks,) + x.shape[2:]), worlds)
        keys = jax.random.split(rollout_key, n_hands * n_decks)
        v = rollout_values(flat, actions, policy, keys, None, cfg.start_value, cfg.scales)
        return v.reshape(n_hands, n_decks, -1), valid, actions

    states = measured_positions(env, int(n_positions), policy)
    n = jax.tree.leaves(states)[0].shape[0]
    run = jax.jit(jax.vmap(values))
    start = time.perf_counter()
    parts = [
        run(
            jax.tree.map(lambda x, i=i: x[i : i + CHUNK], states),
            jax.random.split(jax.random.key(i), min(CHUNK, n - i)),
        )
        for i in range(0, n, CHUNK)
    ]
    v, valid, actions = (np.concatenate([np.asarray(p[j]) for p in parts]) for j in range(3))
    gains, valid = v[..., 1:] - v[..., :1], valid[:, 1:]  # [positions, hands, decks, challengers]
    within = gains.var(axis=2, ddof=1).mean(axis=1)  # over the deck's orders, averaged over hands
    between = gains.mean(axis=2).var(axis=1, ddof=1) - within / n_decks  # of the hands' own means
    total = gains.reshape(n, n_hands * n_decks, -1).var(axis=1, ddof=1)
    print(
        f"{n} positions x {int(valid.sum())} valid challengers, {n_hands} hands x {n_decks} deck orders "
        f"(preset {preset}, {'uniform' if cfg.belief is None else 'belief'} worlds), "
        f"{time.perf_counter() - start:.0f} s"
    )
    print("variance of a challenger's paired gain over one world, in points^2 (mean over positions):")
    for name, part in (
        ("total", total),
        ("within a hand: the deck's order", within),
        ("between hands", between),
    ):
        print(f"  {name:32s} {part[valid].mean():8.1f}   median {np.median(part[valid]):7.1f}")
    mean_gain = np.abs(gains.mean(axis=(1, 2)))
    print(f"  mean |gain| of a challenger over all its worlds: {mean_gain[valid].mean():.2f}")
    source = np.asarray(decode_action(jnp.asarray(actions, jnp.uint32))[2])
    same = source[:, 1:] == source[:, :1]
    for name, group in (("the base move's draw source", same), ("another draw source", ~same)):
        group = group & valid
        print(
            f"  challengers drawing from {name}: {group.sum() / valid.sum():.3f} of them, variance "
            f"{total[group].mean():.1f}, mean |gain| {mean_gain[group].mean():.2f}"
        )


if __name__ == "__main__":
    main()
