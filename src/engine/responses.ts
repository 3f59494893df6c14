/**
 * @module engine/responses
 * The one place answers are built: JSON bodies, and Error answers from a code, a status and a
 * message (the body by src/contract/error-body.ts, truncated to the contract's limits, never a
 * stack trace).
 */
import { errorBodyText, truncate } from '../contract/error-body.js';
import type { ErrorCode } from '../contract/index.js';
import type { Situation } from '../profile/engine-profile.js';
import type { EngineAnswer } from './call.js';

const jsonHeaders = { 'content-type': 'application/json' } as const;

/** A JSON answer; shares one headers object among answers without extra headers (nobody mutates them). */
export function jsonAnswer(options: { status: number; body: unknown; headers?: Record<string, string> }): EngineAnswer {
  return {
    status: options.status,
    headers: options.headers ? { ...jsonHeaders, ...options.headers } : jsonHeaders,
    body: JSON.stringify(options.body),
  };
}

/**
 * Request input quoted in a message: in single quotes, cut to `max` code points. Every message
 * that repeats what a caller sent goes through here, so none can echo a megabyte back.
 */
export function quote(text: string, max: number): string {
  return `'${truncate(text, max)}'`;
}

/**
 * The control API's own codes (spec/control-api.yaml), outside the contract's closed set
 * (docs/assumptions.md A-7): its answers are Error bodies built here all the same.
 */
export type ControlErrorCode =
  | 'control_token_required'
  | 'control_origin_refused'
  | 'control_host_refused'
  | 'invalid_scenario'
  | 'not_found'
  | 'invalid_request'
  | 'job_not_found'
  | 'route_not_found';

export interface EngineError {
  readonly status: number;
  /** A contract code; a control code only in answers of the control API; a profile's own code. */
  readonly code: ErrorCode | ControlErrorCode | (string & {});
  readonly message: string;
  readonly headers?: Record<string, string> | undefined;
  /** The profile entry this refusal answers: a declared profile chooses its status and code. */
  readonly situation?: Situation;
  /** Which condition of the situation (the constraint broken…): a profile may answer it apart (entry-parts.ts). */
  readonly condition?: string;
}

/** An Error answer; its body is the contract's one Error body (src/contract/error-body.ts). */
export function errorAnswer(error: EngineError): EngineAnswer {
  return {
    status: error.status,
    headers: error.headers ? { ...jsonHeaders, ...error.headers } : jsonHeaders,
    body: errorBodyText(error),
  };
}
