/**
 * @module client
 * `evidence-harness/client`: a typed client for the contract (openapi-fetch over types generated
 * from spec/openapi.yaml) and `waitForJob`, which polls a job to its final state. Imports
 * nothing from Node, so it runs in browsers as well.
 */
// The one Retry-After reading, shared with the runner: the only file of the contract the client
// imports, and it imports nothing (ARCHITECTURE.md).
export { parseRetryAfter } from '../contract/retry-after.js';
export {
  type CreateAttemptEvent,
  type CreatedEvaluation,
  CreateEvaluationError,
  type CreateEvaluationErrorKind,
  type CreateEvaluationOptions,
  createEvaluation,
} from './create-evaluation.js';
export { type ClientPaths, createEvidenceClient, type EvidenceClient, type EvidenceClientOptions } from './evidence-client.js';
export { type PollClock, realClock } from './poll-clock.js';
export type { DeepReadonly, ReadonlyRequestBodies } from './readonly-requests.js';
export type { components, paths } from './schema.js';
export {
  type ApiError,
  type Evaluation,
  type EvaluationRequest,
  type EvidenceReference,
  finalStatuses,
  isFinalStatus,
  type Job,
  type JobStatus,
  type VerificationRequest,
  type VerificationResult,
} from './types.js';
export { type PollEvent, WaitForJobError, type WaitForJobErrorKind, type WaitForJobOptions, waitForJob } from './wait-for-job.js';
