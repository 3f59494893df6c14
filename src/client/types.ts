/**
 * @module client/types
 * Short names for the contract's types, taken from the generated schema so they change only
 * when spec/openapi.yaml does.
 */
import type { components, paths } from './schema.js';

type Schemas = components['schemas'];

export type { components, paths };
export type EvaluationRequest = Schemas['EvaluationRequest'];
export type EvidenceReference = Schemas['EvidenceReference'];
export type Job = Schemas['Job'];
export type JobStatus = Job['status'];
export type Evaluation = NonNullable<Job['evaluation']>;
export type VerificationRequest = Schemas['VerificationRequest'];
export type VerificationResult = Schemas['VerificationResult'];
/** Every error response's body (named ApiError so it does not shadow the global Error). */
export type ApiError = Schemas['Error'];

/** The job states after which a job never changes (docs/assumptions.md A-3). */
export const finalStatuses: readonly JobStatus[] = ['COMPLETE', 'FAILED'];

export function isFinalStatus(status: JobStatus): boolean {
  return finalStatuses.includes(status);
}
