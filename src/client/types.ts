/**
 * @module client/types
 * Short names for the contract's types, taken from the generated schema so they change only
 * when spec/openapi.yaml does.
 */
import type { DeepReadonly } from './readonly-requests.js';
import type { components, paths } from './schema.js';

type Schemas = components['schemas'];

export type { components, paths };
/** What createEvaluation accepts: readonly, so `as const` fixtures and readonly arrays fit. */
export type EvaluationRequest = DeepReadonly<Schemas['EvaluationRequest']>;
export type EvidenceReference = DeepReadonly<Schemas['EvidenceReference']>;
export type Job = Schemas['Job'];
export type JobStatus = Job['status'];
export type Evaluation = NonNullable<Job['evaluation']>;
/** What verifyReport accepts (readonly, as EvaluationRequest). */
export type VerificationRequest = DeepReadonly<Schemas['VerificationRequest']>;
export type VerificationResult = Schemas['VerificationResult'];
/** Every error response's body (named ApiError so it does not shadow the global Error). */
export type ApiError = Schemas['Error'];

/** The job states after which a job never changes (docs/assumptions.md A-3). */
export const finalStatuses: readonly JobStatus[] = ['COMPLETE', 'FAILED'];

export function isFinalStatus(status: JobStatus): boolean {
  return finalStatuses.includes(status);
}
