import { describe, expect, it } from 'vitest';
import { N_ACTIONS } from '../src/cards';
import { OBS_V1_DIM } from '../src/observation';
import { argmaxLegal, observationFor, topActions } from '../src/policyContract';

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
