/**
 * @module engine/pact/state-names
 * The provider states a pact written by the mock names, in one place: the pact writer emits
 * these strings and the mock's state-change endpoint (provider-states.ts) sets them up, so the
 * two cannot drift. A provider verifying such a pact against the real service implements the
 * same names (docs/pact.md lists them with their params).
 */

export const stateNames = {
  /** createEvaluation's 202 for a new job. Params: `idempotencyKey`. */
  keyUnused: 'no evaluation job was created with this Idempotency-Key',
  /** createEvaluation's 202 replaying a job. Params: `idempotencyKey`, `request` (the body first sent). Gives `jobId`. */
  keyUsed: 'an evaluation job was created with this Idempotency-Key',
  /** createEvaluation's 409. Params: `idempotencyKey`. Gives `jobId` (the job of the other body). */
  keyConflict: 'the Idempotency-Key was used with another body',
  /** getJob's 404 for an id that names no job. Params: `jobId`. */
  noJob: 'no job with this id',
  /** getJob's 404 for a job that exists but is another caller's. Gives `jobId`. */
  otherCallersJob: 'a job created by another caller',
} as const;

const jobStatePattern = /^a job in state ([A-Za-z0-9_-]{1,64})(?: with evaluation ([A-Za-z0-9_-]{1,64}))?$/;

/** getJob's 200: `a job in state RUNNING`, `a job in state COMPLETE with evaluation PASS`. Params: `status`, `evaluation`, `limitations`. Gives `jobId`. */
export function jobStateName(status: string, evaluation?: string): string {
  return evaluation === undefined ? `a job in state ${status}` : `a job in state ${status} with evaluation ${evaluation}`;
}

/** The status and evaluation a job-state name carries, or undefined for another name. */
export function parseJobStateName(name: string): { status: string; evaluation?: string } | undefined {
  const match = jobStatePattern.exec(name);
  if (!match) return undefined;
  return match[2] === undefined ? { status: match[1]! } : { status: match[1]!, evaluation: match[2] };
}

/** Every fixed name and the job-state form, for messages naming what is known. */
export const knownStateNames: readonly string[] = [
  ...Object.values(stateNames),
  'a job in state <STATUS>',
  'a job in state COMPLETE with evaluation <EVALUATION>',
];
