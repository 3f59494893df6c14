/**
 * @module conformance/checks/generic-checks
 * Checks that judge every answer against what the spec documents for its operation: the
 * status, the media type, the body's schema, the Error body of every error, and no server
 * errors. They read only the OpenAPI document, so an edit to the spec changes what they check.
 */
import { errorCodeList } from '../../contract/index.js';
import { essence } from '../../contract/media-type.js';
import { matchResponse } from '../../openapi/response-validator.js';
import type { IntentKind } from '../exchange.js';
import { fail, pass, skip, unjudged } from '../failures.js';
import { type Check, onlyForOperation, received, withResponse } from './check.js';

export const statusCodeDocumented: Check = {
  name: 'status_code_documented',
  description: 'every status is documented for its operation, and one answered under `default` is a 4xx or 5xx',
  severity: 'required',
  assumption: 'A-8',
  probes: ['positive'],
  judge: withResponse(
    onlyForOperation((exchange, { operation }) => {
      const status = exchange.response!.status;
      const documented = matchResponse(operation, status);
      const listed = operation.responses.map((response) => response.status).join(', ');
      if (!documented) {
        return fail({ title: `undocumented status ${status}`, expected: `one of ${listed}`, received: received(exchange) });
      }
      if (documented.status === 'default' && status < 400) {
        return fail({
          title: `status ${status} answered under default`,
          expected: `a documented status (${listed}); default stands for 4xx/5xx failures only (docs/assumptions.md A-8)`,
          received: received(exchange),
        });
      }
      return pass;
    }),
  ),
};

export const contentTypeDocumented: Check = {
  name: 'content_type_documented',
  description: 'the Content-Type of every answer is a media type its operation documents for that status',
  severity: 'required',
  assumption: 'A-21',
  probes: ['positive'],
  judge: withResponse(
    onlyForOperation((exchange, { operation }) => {
      const documented = matchResponse(operation, exchange.response!.status);
      if (!documented) return skip;
      const mediaTypes = Object.keys(documented.content);
      if (mediaTypes.length === 0) return skip;
      const receivedType = essence(exchange.response!.contentType);
      if (mediaTypes.some((mediaType) => mediaType.toLowerCase() === receivedType)) return pass;
      return fail({
        title: `undocumented Content-Type ${receivedType ?? (exchange.response!.contentType === null ? '(none)' : '(unreadable)')}`,
        expected: `${mediaTypes.join(' or ')} (documented for ${documented.status})`,
        received: exchange.response!.contentType ?? '(no Content-Type header)',
      });
    }),
  ),
};

export const responseSchemaConformance: Check = {
  name: 'response_schema_conformance',
  description:
    'every non-error body is valid against the schema documented for its status (types, enums, lengths, item counts, no extra properties)',
  severity: 'required',
  probes: ['positive'],
  judge: withResponse(
    onlyForOperation((exchange, { operation, validator }) => {
      const response = exchange.response!;
      if (response.status >= 400) return skip; // error bodies: error_body
      const documented = matchResponse(operation, response.status);
      // An undocumented status, or a success under `default`: status_code_documented reports it.
      if (!documented || documented.status === 'default') return skip;
      const mediaType = Object.keys(documented.content).find((candidate) => candidate.toLowerCase() === essence(response.contentType));
      const schema = mediaType ? documented.content[mediaType] : undefined;
      if (!schema) return skip; // content_type_documented reports an undocumented media type
      if (response.json === undefined) {
        return fail({
          title: `${response.status} body is not JSON`,
          expected: `a JSON body valid against the ${documented.status} schema`,
          received: received(exchange),
        });
      }
      const problems = validator.validateSchema(schema, response.json);
      if (problems.length === 0) return pass;
      return fail({
        title: `${response.status} body breaks its schema: ${problems[0]!.keyword} at ${problems[0]!.pointer}`,
        expected: `a body valid against the ${documented.status} schema of ${operation.operationId}`,
        received: `${problems.map((problem) => problem.message).join('; ')} in ${received(exchange)}`,
      });
    }),
  ),
};

export const errorBody: Check = {
  name: 'error_body',
  description: 'every 4xx/5xx answer of a contract operation carries an Error body (code ≤ 80, message ≤ 1024, nothing else)',
  severity: 'required',
  assumption: 'A-7',
  probes: ['positive'],
  // Routes outside the contract are judged by the advisory A-20 checks only.
  judge: withResponse(
    onlyForOperation((exchange, { operation, validator, errorSchema }) => {
      const response = exchange.response!;
      if (response.status < 400) return skip;
      const documented = matchResponse(operation, response.status);
      const documentedSchema = documented ? Object.values(documented.content).find((schema) => schema !== undefined) : undefined;
      const schema = documentedSchema ?? errorSchema;
      if (!schema) return skip;
      if (response.json === undefined) {
        return fail({ title: `${response.status} without an Error body`, expected: 'a JSON Error body', received: received(exchange) });
      }
      const problems = validator.validateSchema(schema, response.json);
      if (problems.length === 0) return pass;
      return fail({
        title: `${response.status} body is not an Error: ${problems[0]!.keyword} at ${problems[0]!.pointer}`,
        expected: 'an Error body: {code ≤ 80 characters, message ≤ 1024 characters}, no other properties',
        received: `${problems.map((problem) => problem.message).join('; ')} in ${received(exchange)}`,
      });
    }),
  ),
};

/** Intents whose own check states the status expected, and so reports a 5xx itself. */
const ownStatusExpectation: readonly IntentKind[] = [
  'negative',
  'missing-header',
  'malformed-json',
  'oversized-body',
  'read-created',
  'replay',
  'reserialized-replay',
  'conflict',
  'second-caller',
  'unknown-job',
  'verification-example',
  'undeclared-method',
  'undeclared-path',
  // The pact states the status due; pact_interaction_matches reports a 5xx it did not expect.
  'pact',
];

export const notAServerError: Check = {
  name: 'not_a_server_error',
  description: 'no 5xx on a request the run did not provoke (valid inputs, polls); a failure is reported once, by the most specific check',
  severity: 'required',
  assumption: 'A-8',
  probes: ['positive', 'largest-body', 'odd-strings'],
  judge: withResponse((exchange) => {
    if (ownStatusExpectation.includes(exchange.intent.kind)) return skip;
    // A sequence's create under a key new to it, and its invalid create, have no check of their own to report a 5xx; the others do.
    if (exchange.intent.kind === 'sequence-step' && exchange.intent.rule !== 'new-key' && exchange.intent.rule !== 'refused') return skip;
    if (exchange.response.status < 500) return pass;
    return fail({ title: `server error ${exchange.response.status}`, expected: 'no 5xx for this request', received: received(exchange) });
  }),
};

export const errorCodeDocumented: Check = {
  name: 'error_code_documented',
  description: "an Error's code is one of the codes docs/assumptions.md A-7 lists",
  severity: 'advisory',
  assumption: 'A-7',
  probes: ['positive'],
  judge: withResponse((exchange) => {
    const body = exchange.response.json as { code?: unknown } | undefined;
    if (exchange.response.status < 400 || typeof body?.code !== 'string') return skip;
    if ((errorCodeList as readonly string[]).includes(body.code)) return pass;
    return fail({
      title: `undocumented error code '${body.code.slice(0, 80)}'`,
      expected: `one of ${errorCodeList.join(', ')}`,
      received: received(exchange),
    });
  }),
};

export const maxResponseTime: Check = {
  name: 'max_response_time',
  description: 'every answer arrives within --max-response-time (runs only with that option)',
  severity: 'advisory',
  probes: ['positive'],
  judge: withResponse((exchange, { maxResponseTimeMs }) => {
    if (maxResponseTimeMs === undefined) return skip;
    // A 429's Retry-After wait is the runner's, on the server's word: not the time of an answer.
    if (exchange.notes.some((note) => note.startsWith('429 answered; retried')))
      return unjudged('a 429 was retried after its Retry-After wait');
    if (exchange.durationMs <= maxResponseTimeMs) return pass;
    return fail({
      title: `answered in more than ${maxResponseTimeMs} ms`,
      expected: `a whole answer within ${maxResponseTimeMs} ms (--max-response-time)`,
      received: `${Math.round(exchange.durationMs)} ms: ${received(exchange)}`,
    });
  }),
};

export const notRateLimited: Check = {
  name: 'not_rate_limited',
  description: 'a 429 does not persist after waiting its Retry-After and retrying once (use --rate to slow down)',
  severity: 'advisory',
  assumption: 'A-11',
  probes: ['positive'],
  judge: withResponse((exchange) =>
    exchange.rateLimited
      ? fail({
          // The exchange's notes (in the failure's input) say whether it was retried or its Retry-After was past the deadline.
          title: 'still 429 within --timeout',
          expected: 'an answer other than 429 after waiting Retry-After and retrying once, within --timeout',
          received: received(exchange),
        })
      : pass,
  ),
};
