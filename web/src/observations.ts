/** The observation versions this client implements, by the name a model manifest uses. */
import type { MatchState } from './match';
import { OBS_V2_DIM, OBS_V2_VERSION, matchObservation } from './matchObservation';
import { OBS_V1_DIM, OBS_V1_VERSION, observationV1 } from './observation';

export interface ObservationSpec {
  dim: number;
  observe: (ms: MatchState, player: number) => Float32Array;
}

export const OBSERVATIONS: Record<string, ObservationSpec> = {
  [OBS_V1_VERSION]: { dim: OBS_V1_DIM, observe: (ms, player) => observationV1(ms.round, player) },
  [OBS_V2_VERSION]: { dim: OBS_V2_DIM, observe: matchObservation },
};
