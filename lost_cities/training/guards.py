"""Nothing non-finite is ever written: a non-finite learner metric or parameter stops the
run before that update's row, gates or checkpoint are written (:class:`NonFiniteError`)."""

import math

import jax
import jax.numpy as jnp


class NonFiniteError(FloatingPointError):
    """Training produced a non-finite loss, metric or parameter; the run stops there."""


def floats(metrics):
    """The update's metrics as floats; NaN episode metrics (no episode of that kind ended) are
    dropped (a non-finite learner metric stops the run first: :func:`non_finite_learner`)."""
    return {k: float(v) for k, v in jax.device_get(metrics).items() if math.isfinite(float(v))}


def non_finite_learner(metrics):
    """The learner metrics (losses, entropy, KL, ...) that are NaN or infinite."""
    values = {k: float(v) for k, v in jax.device_get(metrics).items() if k.startswith("learner/")}
    return {k: v for k, v in values.items() if not math.isfinite(v)}


@jax.jit
def all_finite(params):
    return jnp.all(jnp.stack([jnp.all(jnp.isfinite(x)) for x in jax.tree.leaves(params)]))


def check_finite_update(update, bad, state, last_saved):
    """Stop before anything of a non-finite update is written (row, gates, checkpoint)."""
    keep = (
        f"the last good checkpoint (update {last_saved}) is unchanged"
        if last_saved
        else "no checkpoint was written"
    )
    if bad:
        names = ", ".join(f"{k}={v}" for k, v in sorted(bad.items()))
        raise NonFiniteError(f"update {update}: non-finite {names}; training stopped, {keep}")
    if not bool(all_finite(state.params)):
        raise NonFiniteError(
            f"update {update}: the parameters became non-finite (a NaN/inf gradient or loss); "
            f"training stopped, {keep}"
        )
