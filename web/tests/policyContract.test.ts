import { describe, expect, it } from 'vitest';
import { N_ACTIONS } from '../src/cards';
import { OBS_V1_DIM } from '../src/observation';
import { argmaxLegal, featuresFor, inputsFor, observationFor, topActions } from '../src/policyContract';

const manifest = { obs_version: 'v1', obs_dim: OBS_V1_DIM, n_actions: N_ACTIONS };

describe('model manifest', () => {
  it('accepts an implemented observation version with the right size', () => {
    expect(observationFor(manifest).dim).toBe(OBS_V1_DIM);
  });

  it('refuses an observation version the page does not implement, saying which it does', () => {
    expect(() => observationFor({ ...manifest, obs_version: 'v9' })).toThrow(/expects observation "v9".*implements v1/);
  });

  it('refuses a size or action count that does not match', () => {
    expect(() => observationFor({ ...manifest, obs_dim: 455 })).toThrow(/455 values/);
    expect(() => observationFor({ ...manifest, n_actions: 95 })).toThrow(/95 actions/);
  });
});

describe('action choice', () => {
  const mask = Array.from({ length: N_ACTIONS }, (_, a) => a % 5 === 0);
  const probs = Array.from({ length: N_ACTIONS }, (_, a) => (a === 7 ? 0.9 : a === 20 ? 0.05 : a === 35 ? 0.04 : 0));

  it('takes the most probable legal action even if an illegal one scores higher', () => {
    expect(argmaxLegal(probs, mask)).toBe(20);
  });

  it('lists legal actions by probability', () => {
    expect(topActions(probs, mask, 2).map((t) => t.action)).toEqual([20, 35]);
  });

  it('fails when nothing is legal', () => {
    expect(() => argmaxLegal(probs, new Array(N_ACTIONS).fill(false))).toThrow(/no legal action/);
  });
});

describe('input features', () => {
  const af1 = { ...manifest, features: 'af1', inputs: { obs: ['N', OBS_V1_DIM], mask: ['N', 96], placement: ['N', 16, 28], draw: ['N', 96, 10] } };

  it('needs none for a model without features (the MLP)', () => {
    expect(inputsFor(manifest).features).toBeNull();
    expect(featuresFor({ ...manifest, features: null })).toBeNull();
  });

  it('computes af1 rows of the shapes the manifest declares', () => {
    const spec = featuresFor(af1);
    expect(spec?.inputs).toEqual({ placement: [16, 28], draw: [96, 10] });
    const obs = new Float32Array(OBS_V1_DIM);
    for (let card = 0; card < 60; card++) obs[card * 7 + (card % 7 === 0 && card < 56 ? 0 : 6)] = 1; // 8 hand cards, the rest unseen
    obs[OBS_V1_DIM - 34] = 1; // a full deck
    const rows = spec!.compute(obs);
    expect(rows.placement.length).toBe(16 * 28);
    expect(rows.draw.length).toBe(96 * 10);
  });

  it('refuses features the page does not compute, or shapes that differ', () => {
    expect(() => featuresFor({ ...af1, features: 'af2' })).toThrow(/input features "af2".*computes af1/);
    expect(() => featuresFor({ ...af1, inputs: { ...af1.inputs, draw: ['N', 96, 11] } })).toThrow(/input draw/);
  });
});
