/**
 * @module client
 * `evidence-harness/client`: a typed client for the contract (openapi-fetch over types generated
 * from spec/openapi.yaml) and `waitForJob`, which polls a job to its final state. Imports
 * nothing from Node, so it runs in browsers as well.
 */
export { type ClientPaths, createEvidenceClient, type EvidenceClient, type EvidenceClientOptions } from './evidence-client.js';
export { type PollClock, realClock } from './poll-clock.js';
export type { DeepReadonly, ReadonlyRequestBodies } from './readonly-requests.js';
export { parseRetryAfter } from './retry-after.js';
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
