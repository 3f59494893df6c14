/**
 * @module engine/observation
 * One answered exchange as consumer coverage and the client judge see it: what the client sent
 * (method, path, caller fingerprint, Idempotency-Key, Content-Type, a digest of the body) and
 * what the engine answered (status, code, Retry-After, the job's state). Built once per request,
 * after the answer, so neither consumer re-reads a request. Holds no credential: the
 * caller is its fingerprint, and every text taken from the request is cut short, because each
 * finding keeps one example request for as long as the engine lives.
 */

import { truncate } from '../contract/error-body.js';
import type { Evaluation, JobStatus } from '../contract/index.js';
import type { OperationId } from './router.js';

export interface Observation {
  /** Engine clock time when the request arrived. */
  readonly time: number;
  /** Engine clock time when its answer was ready. */
  readonly endTime: number;
  readonly method: string;
  /** The request path, cut to `examplePathLength` code points. */
  readonly path: string;
  readonly operationId?: OperationId;
  readonly status: number;
  /** The Error body's code, for error answers. */
  readonly code?: string;
  /** True when a scenario fault or `Prefer: code=` forced the answer. */
  readonly forced: boolean;
  /**
   * True when the request itself asked for the error it got (`Prefer: code=`): a test provoking
   * an error on purpose, which the rules about reacting to errors do not hold against it.
   */
  readonly asked?: boolean;
  /** The caller's fingerprint (`sha256:…` or `anonymous`), never its credential. */
  readonly caller: string;
  /** The Idempotency-Key sent, cut to the contract's 128 characters. */
  readonly idempotencyKey?: string;
  /** The Content-Type sent, cut to 100 characters. */
  readonly contentType?: string;
  /** The answer's Retry-After, in seconds. */
  readonly retryAfterSeconds?: number;
  /** The job an answer of createEvaluation or getJob carried. */
  readonly job?: { readonly jobId: string; readonly status: JobStatus; readonly evaluation?: Evaluation };
  /** SHA-256 of the body bytes, when the engine read the body whole; absent when it did not. */
  readonly bodyDigest?: string;
}

/** A request as a finding shows it: enough to find it in the client's code, no secret. */
export interface ExampleRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly operationId?: string;
  readonly caller: string;
  readonly idempotencyKey?: string;
  readonly contentType?: string;
  /** Engine clock time when the request arrived. */
  readonly time: number;
}

/** Longest path an observation keeps (a finding's example lives as long as the engine). */
export const examplePathLength = 200;

export function exampleOf(observation: Observation): ExampleRequest {
  const { method, path, status, operationId, caller, idempotencyKey, contentType, time } = observation;
  return {
    method,
    path,
    status,
    ...(operationId === undefined ? {} : { operationId }),
    caller,
    ...(idempotencyKey === undefined ? {} : { idempotencyKey: truncate(idempotencyKey, 128) }),
    ...(contentType === undefined ? {} : { contentType: truncate(contentType, 100) }),
    time,
  };
}
