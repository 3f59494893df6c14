/**
 * @module engine/responses
 * The one place Response objects are built: JSON bodies, and the contract's Error body from a
 * code, a status and a message (truncated to the contract's limits, never a stack trace).
 */
import { type ErrorCode, limits } from '../contract/index.js';

const jsonHeaders = { 'content-type': 'application/json' } as const;

export function jsonResponse(options: { status: number; body: unknown; headers?: Record<string, string> }): Response {
  return new Response(JSON.stringify(options.body), { status: options.status, headers: { ...jsonHeaders, ...options.headers } });
}

/** Cuts `text` to at most `max` code points, marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 1).join('')}…`;
}

export interface EngineError {
  readonly status: number;
  readonly code: ErrorCode;
  readonly message: string;
  readonly headers?: Record<string, string>;
}

export function errorResponse(error: EngineError): Response {
  return jsonResponse({
    status: error.status,
    body: { code: truncate(error.code, limits.errorCodeLength.max), message: truncate(error.message, limits.errorMessageLength.max) },
    ...(error.headers ? { headers: error.headers } : {}),
  });
}
