/**
 * The exported policy's contract (lost_cities/export/onnx.py): inputs `obs` float32[N, obs_dim]
 * and `mask` float32[N, 96] (1 legal, 0 illegal), plus the input features the manifest's
 * `features` names (`af1`: `placement` float32[N, 16, 28] and `draw` float32[N, 96, 10],
 * computed from the observation by actionFeatures.ts); outputs `probs` float32[N, 96]
 * (softmax over the legal actions) and `logits` float32[N, 96]; a manifest JSON beside the model.
 */
import { AF_VERSION, N_DRAW_FEATURES, N_PLACEMENT_FEATURES, N_PLACEMENTS, actionFeatures } from './actionFeatures';
import { N_ACTIONS } from './cards';
import { OBSERVATIONS, type ObservationSpec } from './observations';

export interface Manifest {
  obs_version: string;
  obs_dim: number;
  n_actions: number;
  env?: string;
  name?: string;
  placeholder?: boolean;
  /** The input features the model takes beside obs and mask (absent or null: none). */
  features?: string | null;
  [key: string]: unknown;
}

/** An input feature block: the extra model inputs (name -> shape after the batch axis) and how to compute them. */
export interface FeatureSpec {
  inputs: Record<string, number[]>;
  compute: (obs: Float32Array) => Record<string, Float32Array>;
}

export const FEATURES: Record<string, FeatureSpec> = {
  [AF_VERSION]: {
    inputs: { placement: [N_PLACEMENTS, N_PLACEMENT_FEATURES], draw: [N_ACTIONS, N_DRAW_FEATURES] },
    compute: (obs) => {
      const { placement, draw } = actionFeatures(obs);
      return { placement, draw };
    },
  },
};

/** The feature block the model needs (null for none); a clear error if this page lacks it. */
export function featuresFor(manifest: Manifest): FeatureSpec | null {
  if (manifest.features === undefined || manifest.features === null) return null;
  const spec = typeof manifest.features === 'string' ? FEATURES[manifest.features] : undefined;
  if (!spec) {
    throw new Error(
      `This model takes input features ${JSON.stringify(manifest.features)}, but this page computes ` +
        `${Object.keys(FEATURES).join(', ')}. Export a model with supported features, or update the web client.`,
    );
  }
  const declared = manifest.inputs as Record<string, unknown> | undefined;
  for (const [name, shape] of Object.entries(spec.inputs)) {
    const got = declared?.[name];
    if (declared !== undefined && JSON.stringify(got) !== JSON.stringify(['N', ...shape])) {
      throw new Error(`The manifest's input ${name} is ${JSON.stringify(got)}; features ${manifest.features} give [N, ${shape}].`);
    }
  }
  return spec;
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

/** Everything the page computes for the model: its observation and its feature block (or null). */
export function inputsFor(manifest: Manifest): { observation: ObservationSpec; features: FeatureSpec | null } {
  return { observation: observationFor(manifest), features: featuresFor(manifest) };
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
