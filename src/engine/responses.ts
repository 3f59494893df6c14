/**
 * @module engine/responses
 * The one place answers are built: JSON bodies, and the contract's Error body from a code, a
 * status and a message (truncated to the contract's limits, never a stack trace).
 */
import { type ErrorCode, limits } from '../contract/index.js';
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

/** Cuts `text` to at most `max` code points, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  // .length counts UTF-16 units, never fewer than code points: short texts need no split.
  if (text.length <= max) return text;
  // Only the head is split into code points (a message may quote a megabyte of input).
  const points = Array.from(text.slice(0, max * 2));
  if (points.length <= max && text.length <= max * 2) return text;
  return `${points.slice(0, max - 1).join('')}…`;
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
}

export function errorAnswer(error: EngineError): EngineAnswer {
  return jsonAnswer({
    status: error.status,
    body: { code: truncate(error.code, limits.errorCodeLength.max), message: truncate(error.message, limits.errorMessageLength.max) },
    ...(error.headers ? { headers: error.headers } : {}),
  });
}
