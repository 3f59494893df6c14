/**
 * @module app/describe-failure
 * Turns an error answer into words a person can act on: the status, the contract's Error body
 * (code and message) and what to do about it, including how long Retry-After asks to wait.
 */
import type { ApiError } from 'evidence-harness/client';

export interface ShownFailure {
  /** The HTTP status; 0 when no answer arrived at all. */
  readonly status: number;
  /** Such as '409 Conflict'. */
  readonly headline: string;
  /** The Error body's code, or '' when the answer had no Error body. */
  readonly code: string;
  /** The Error body's message, or what went wrong when there was none. */
  readonly message: string;
  /** What the failure means for the person using the app, and what to do. */
  readonly advice: string;
  /** Seconds the service asked to wait (Retry-After), when it did. */
  readonly retryAfterSeconds?: number;
}

/** Status texts by code: an HTTP/2 answer, or one from a service worker, may carry none. */
const statusTexts: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Advice by Error code (docs/assumptions.md A-7 lists every code the mock sends). */
const adviceByCode: Readonly<Record<string, string>> = {
  invalid_request: 'The request breaks the contract. Fix the field the message names, then send it again.',
  invalid_json: 'The body is not well-formed JSON. Fix the encoding, then send it again.',
  invalid_body: 'The body must be a JSON object. Send the fields the contract asks for.',
  missing_idempotency_key: 'Every evaluation needs an Idempotency-Key header. Add one and send it again.',
  limit_exceeded: "The request is over one of the contract's limits. Send less (for example fewer evidence items).",
  body_too_large: 'The body is over its size limit. Send a smaller request.',
  idempotency_key_conflict:
    'This Idempotency-Key was already used for a different request. Use a new key for a new evaluation; reuse a key only to retry the same one.',
  job_not_found: 'No job with this id is available to you: it never existed, has expired, or belongs to another caller.',
  route_not_found: 'The API has no such path. Check the API base URL.',
  method_not_allowed: 'The API does not accept this method on this path.',
  unsupported_media_type: 'Send the body as application/json.',
  request_timeout: 'The request did not arrive in time. Try again.',
  rate_limited: 'Too many requests. Wait for the time given, then try again.',
  internal_error: 'The service failed while processing the request. Try again later; report it if it persists.',
  service_unavailable: 'The service is temporarily unable to process requests. Wait for the time given, then try again.',
};

function adviceByStatus(status: number): string {
  if (status === 429 || status === 503) return 'The service asks you to wait, then try again.';
  if (status >= 500) return 'The service could not process the request. Try again later.';
  return 'The service refused the request.';
}

function isApiError(body: unknown): body is ApiError {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ApiError).code === 'string' &&
    typeof (body as ApiError).message === 'string'
  );
}

/** An error answer, as the app received it. */
export interface FailedAnswer {
  readonly status: number;
  readonly statusText?: string;
  /** The Retry-After header's value, when there was one. */
  readonly retryAfter?: string | null;
  /** What the typed client gives as `error`: the Error body, when the answer had one. */
  readonly body: unknown;
}

/** Describes an error answer. */
export function describeFailure(answer: FailedAnswer): ShownFailure {
  const { status, body } = answer;
  const retryAfter = answer.retryAfter?.trim();
  const retryAfterSeconds = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
  const headline = `${status} ${answer.statusText || statusTexts[status] || 'Error'}`;
  const waitHint = retryAfterSeconds !== undefined ? ` Retry after ${retryAfterSeconds} s.` : '';
  const retry = retryAfterSeconds !== undefined ? { retryAfterSeconds } : {};
  if (!isApiError(body)) {
    return {
      status,
      headline,
      code: '',
      message: 'The answer had no Error body, which the contract requires for every error.',
      advice: adviceByStatus(status) + waitHint,
      ...retry,
    };
  }
  return {
    status,
    headline,
    code: body.code,
    message: body.message,
    advice: (adviceByCode[body.code] ?? adviceByStatus(status)) + waitHint,
    ...retry,
  };
}

/** Describes a Response the typed client returned with `error`. */
export function describeResponse(response: Response, body: unknown): ShownFailure {
  return describeFailure({
    status: response.status,
    statusText: response.statusText,
    retryAfter: response.headers.get('retry-after'),
    body,
  });
}

/** Describes a request that got no answer at all (the server is down, CORS refused it, …). */
export function describeUnreachable(options: { apiBaseUrl: string; error: unknown }): ShownFailure {
  const detail = options.error instanceof Error ? options.error.message : String(options.error);
  return {
    status: 0,
    headline: 'No answer',
    code: '',
    message: `Could not reach the API at ${options.apiBaseUrl}: ${detail}`,
    advice: 'Check that the service (or `npx evidence-harness mock`) is running at that address, or open the page with ?mock=msw.',
  };
}
