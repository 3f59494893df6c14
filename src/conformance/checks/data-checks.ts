/**
 * @module conformance/checks/data-checks
 * Checks on what the server accepts and rejects: schema-valid inputs are accepted, and an input
 * that breaks exactly one constraint of the spec gets the documented rejection (400, or 413
 * for a value over a maximum where the operation documents 413: docs/assumptions.md A-2).
 */
import { fail, pass, skip } from '../failures.js';
import { answered, type Check, expectedStatus, forIntent, received, rejectedAsExpected, unlessRateLimited } from './check.js';

/** Statuses that say "your input is invalid"; a valid input must never get one. */
const rejectionStatuses = new Set([400, 409, 413, 415, 422]);

export const positiveDataAcceptance: Check = {
  name: 'positive_data_acceptance',
  description:
    'schema-valid inputs (spec examples, boundary values, the largest valid bodies, odd but valid strings, generated values) are not rejected as invalid',
  severity: 'required',
  assumption: 'A-1',
  probes: ['positive', 'largest-body', 'odd-strings'],
  judge: forIntent(
    ['positive', 'create'],
    unlessRateLimited(
      answered('an answer that accepts the input', (exchange) =>
        rejectionStatuses.has(exchange.response.status)
          ? fail({
              title: `valid input rejected with ${exchange.response.status}`,
              expected: 'the input accepted (it is valid against the spec)',
              received: received(exchange),
            })
          : pass,
      ),
    ),
  ),
};

export const negativeDataRejection: Check = {
  name: 'negative_data_rejection',
  description: 'an input breaking one constraint of a body, header or path parameter gets the documented 400 (413 over a maximum)',
  severity: 'required',
  assumption: 'A-2',
  probes: ['negative'],
  judge: rejectedAsExpected(
    ['negative'],
    (exchange, status) =>
      `${exchange.intent.constraint} broken in ${exchange.intent.location}: ${status} instead of ${expectedStatus(exchange.intent.expected)}`,
  ),
};

export const missingRequiredHeader: Check = {
  name: 'missing_required_header',
  description: 'a request without a required header is rejected with the documented 400',
  severity: 'required',
  probes: ['missing-header'],
  judge: rejectedAsExpected(['missing-header'], (exchange, status) =>
    status < 300
      ? `missing ${exchange.intent.header} accepted (${status})`
      : `missing ${exchange.intent.header} answered ${status} instead of ${expectedStatus(exchange.intent.expected)}`,
  ),
};

export const malformedJsonRejected: Check = {
  name: 'malformed_json_rejected',
  description: 'a body that is not well-formed JSON gets the documented 400, promptly',
  severity: 'required',
  assumption: 'A-21',
  probes: ['malformed-json'],
  judge: rejectedAsExpected(
    ['malformed-json'],
    (exchange, status) => `malformed JSON answered ${status} instead of ${expectedStatus(exchange.intent.expected)}`,
  ),
};

export const oversizedBodyRejected: Check = {
  name: 'oversized_body_rejected',
  description: 'a createEvaluation body over 2 MiB is refused with 413',
  severity: 'advisory',
  assumption: 'A-13',
  probes: ['oversized-body'],
  judge: rejectedAsExpected(
    ['oversized-body'],
    (exchange, status) =>
      `body of ${exchange.intent.bytes} bytes answered ${status} instead of ${expectedStatus(exchange.intent.expected)}`,
  ),
};

export const invalidJobIdNotFound: Check = {
  name: 'invalid_job_id_not_found',
  description: 'an out-of-range path parameter of an operation without a documented 400 (a 129-character jobId) gets 404',
  severity: 'advisory',
  assumption: 'A-23',
  probes: ['negative'],
  judge: forIntent(['negative'], (exchange) => {
    if (exchange.intent.location !== 'path' || exchange.intent.expected.status !== 'any-4xx') return skip;
    if (!exchange.response || exchange.response.incomplete || exchange.rateLimited) return skip; // negative_data_rejection reports it
    return exchange.response.status === 404
      ? pass
      : fail({
          title: `invalid path parameter answered ${exchange.response.status}`,
          expected: '404, as for a job that does not exist',
          received: received(exchange),
        });
  }),
};

export const unsupportedMediaTypeRejected: Check = {
  name: 'unsupported_media_type_rejected',
  description: 'a valid JSON body sent with another Content-Type than application/json, or none, gets 415',
  severity: 'advisory',
  assumption: 'A-21',
  probes: ['media-type'],
  judge: rejectedAsExpected(['media-type'], (exchange, status) =>
    status < 300
      ? `body accepted with ${exchange.intent.contentType === undefined ? 'no Content-Type' : 'another media type'} (${status})`
      : `${exchange.intent.contentType === undefined ? 'no Content-Type' : 'another media type'} answered ${status} instead of ${expectedStatus(exchange.intent.expected)}`,
  ),
};
