/**
 * The exported policy's contract (lost_cities/export/onnx.py): inputs `obs` float32[N, obs_dim]
 * and `mask` float32[N, 96] (1 legal, 0 illegal); outputs `probs` float32[N, 96] (softmax
 * over the legal actions) and `logits` float32[N, 96]; a manifest JSON beside the model.
 */
import { N_ACTIONS } from './cards';
import { OBSERVATIONS, type ObservationSpec } from './observations';

export interface Manifest {
  obs_version: string;
  obs_dim: number;
  n_actions: number;
  env?: string;
  name?: string;
  placeholder?: boolean;
  [key: string]: unknown;
}

/** The observation this client must compute for the model; a clear error if it cannot. */
export function observationFor(manifest: Manifest): ObservationSpec {
  const spec = OBSERVATIONS[manifest.obs_version];
  if (!spec) {
    throw new Error(
      `This model expects observation ${JSON.stringify(manifest.obs_version)}, but this page implements ` +
        `${Object.keys(OBSERVATIONS).join(', ')}. Export a model with a supported observation version, ` +
        'or update the web client.',
    );
  }
  if (manifest.obs_dim !== spec.dim) {
    throw new Error(
      `The manifest says observation ${manifest.obs_version} has ${manifest.obs_dim} values; this page computes ${spec.dim}.`,
    );
  }
  if (manifest.n_actions !== N_ACTIONS) {
    throw new Error(`The model has ${manifest.n_actions} actions; the game has ${N_ACTIONS}.`);
  }
  return spec;
}

/** The most probable legal action (first on ties); the mask guards against a model that leaks mass. */
export function argmaxLegal(probs: ArrayLike<number>, mask: readonly boolean[]): number {
  let best = -1;
  for (let action = 0; action < N_ACTIONS; action++) {
    if (mask[action] && (best < 0 || probs[action] > probs[best])) best = action;
  }
  if (best < 0) throw new Error('no legal action: the game is over');
  return best;
}

/** The `count` most probable legal actions, for the probability display. */
export function topActions(probs: ArrayLike<number>, mask: readonly boolean[], count: number) {
  return Array.from({ length: N_ACTIONS }, (_, action) => ({ action, prob: probs[action] }))
    .filter(({ action }) => mask[action])
    .sort((a, b) => b.prob - a.prob)
    .slice(0, count);
}
