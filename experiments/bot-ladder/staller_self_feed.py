"""Does the staller stall on the expert's discards or on its own?

Plays ``heuristic_expert`` and a variant of it that never discards while it has a
legal play (it plays its lowest-slot playable card instead, feeding the piles as little
as any player can) against ``staller``, duplicate, match3, on the first 300 deals of
bank v1. If the staller's pile draws barely drop, it stalls on its own discards and no
non-stalling opponent can keep rounds short against it.

    python experiments/bot-ladder/staller_self_feed.py
"""

import jax
import jax.numpy as jnp

from lost_cities.bots import make as make_bot
from lost_cities.bots.context import round_and_match
from lost_cities.envs import make as make_env
from lost_cities.evaluation.deals import deal_bank
from lost_cities.evaluation.duplicate import duplicate_evaluate
from lost_cities.game.cards import N_DRAW_SOURCES, N_PLACE_TYPES, encode_action
from lost_cities.game.engine import legal_action_mask

expert = make_bot("heuristic_expert")


def expert_never_feeding(state, rng):
    """The expert's move, except that a discard becomes a play with a deck draw when one is legal."""
    round_state, _, _ = round_and_match(state)
    action = expert(state, rng)
    mask = legal_action_mask(round_state).reshape(-1, N_PLACE_TYPES, N_DRAW_SOURCES)
    playable = mask[:, 0, 0]
    discards = (action // N_DRAW_SOURCES) % N_PLACE_TYPES == 1
    play = encode_action(jnp.argmax(playable), 0, 0)
    return jnp.where(discards & jnp.any(playable), play, action)


def main():
    orders, coins = deal_bank(300)
    for name, policy in (("heuristic_expert", expert), ("expert, never feeding", expert_never_feeding)):
        r = duplicate_evaluate(
            make_env("match3"),
            policy,
            make_bot("staller"),
            orders,
            coins,
            jax.random.PRNGKey(0),
            batch_size=300,
        )
        print(
            f"{name}: plies/round {r['plies_per_round']:.1f}, pile draws per round "
            f"{r['pile_draws_per_round_a']:.2f} / staller {r['pile_draws_per_round_b']:.2f}, "
            f"win rate {r['win_rate']:.3f}"
        )


if __name__ == "__main__":
    main()
