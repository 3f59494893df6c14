/**
 * @module contract/error-codes
 * The closed set of Error `code` values (the contract leaves it "not shown"; decided in
 * docs/assumptions.md A-7). The engine answers only with these, and the conformance runner's
 * advisory check `error_code_documented` accepts only these. Which status each one travels with
 * is decided by the stage that raises it.
 */

export const errorCodes = {
  invalid_json: 'The request body is not well-formed JSON.',
  invalid_body: 'The request body is missing, ended before it was complete, or is JSON but not an object.',
  invalid_request:
    'A field, header or parameter breaks the contract: missing, unknown, wrong type, pattern, enum, format or below a minimum.',
  missing_idempotency_key: 'The Idempotency-Key header is missing or empty.',
  limit_exceeded: 'A value is over a maximum of section 8 of the contract.',
  body_too_large: 'The request body is larger than the body limit of its operation.',
  idempotency_key_conflict: 'The Idempotency-Key was already used with a different request digest.',
  job_not_found: 'No job with this jobId is available to this caller.',
  route_not_found: 'No operation of the contract has this path.',
  method_not_allowed: 'The path exists but not with this method.',
  unsupported_media_type: 'The request body is not application/json.',
  request_timeout: 'The request (headers or body) was not received in time; the mock server closed the connection.',
  rate_limited: 'Too many requests; retry after the time given in Retry-After.',
  internal_error: 'The service failed while processing the request.',
  service_unavailable: 'The service is temporarily unable to process the request.',
} as const;

export type ErrorCode = keyof typeof errorCodes;

export const errorCodeList = Object.keys(errorCodes) as ErrorCode[];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(errorCodes, value);
}
