/**
 * Generated requests for the fuzz tests: valid requests from the spec's schemas, near misses
 * (one constraint broken, a header wrong, a path off by a segment) and garbage (random
 * methods, paths, media types and bytes). Every request carries the one thing the oracle must
 * know: whether it asked for a 5xx (`Prefer: code=500|503`).
 */
import fc from 'fast-check';
import { mutationsOf } from '../../src/conformance/generators/mutations.js';
import { arbitraryFromSchema } from '../../src/conformance/generators/schema-arbitrary.js';
import type { ContractDocument, JsonSchema } from '../../src/openapi/document.js';

export interface FuzzRequest {
  readonly method: string;
  /** Path and query, already encoded as sent on the wire. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** True when the request asks the mock for a 5xx (Prefer: code=500|503, or the flaky-503 scenario). */
  readonly asksForServerError: boolean;
}

/** Printable ASCII without control characters: what Fetch lets through as a header value. */
const headerText = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength });

const jobIdLike = fc.oneof(
  fc.constant('job_0000000000000000000000000'),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
  fc.string({ minLength: 1, maxLength: 140 }).map(encodeURIComponent),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '..', '%2F', 'a%00b', 'x'.repeat(129)),
);

const paths = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('/health', '/v0/evaluations', '/v0/verifications') },
  { weight: 4, arbitrary: jobIdLike.map((id) => `/v0/jobs/${id}`) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '/',
      '/v0',
      '/v0/',
      '/v0/jobs',
      '/v0/jobs/',
      '/v0/jobs/a/b',
      '/health/',
      '/HEALTH',
      '/v1/evaluations',
      '/v0/evaluations/',
      '/v0/evaluations?x=1',
      '/health?verbose=true',
      '/__proto__',
      '/v0/jobs/constructor',
    ),
  },
  { weight: 2, arbitrary: fc.array(fc.webSegment(), { maxLength: 5 }).map((segments) => `/${segments.join('/')}`) },
);

const methods = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('GET', 'POST') },
  { weight: 2, arbitrary: fc.constantFrom('PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{3,10}$/).filter((method) => !['CONNECT', 'TRACE', 'TRACK'].includes(method)) },
);

const contentTypes = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/problem+json',
      'multipart/form-data; boundary=x',
      '',
    ),
  },
  { weight: 1, arbitrary: headerText(60) },
);

const preferences = fc.oneof(
  { weight: 12, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('scenario=fail', 'scenario=flaky-503', 'scenario=nope', 'scenario=rate-limited') },
  { weight: 1, arbitrary: fc.constantFrom(400, 404, 409, 413, 429, 500, 503, 418, 200, -1).map((code) => `code=${code}`) },
  { weight: 1, arbitrary: headerText(40) },
);

/** Bodies: schema-valid values, single-constraint mutations, arbitrary JSON and bytes. */
function bodiesFor(schemas: readonly JsonSchema[]): fc.Arbitrary<string | undefined> {
  const valid = schemas.map((schema) => arbitraryFromSchema(schema));
  const mutations = schemas.flatMap((schema) => mutationsOf(schema).map((mutation) => mutation.value));
  return fc.oneof(
    { weight: 6, arbitrary: fc.oneof(...valid).map((value) => JSON.stringify(value)) },
    { weight: 4, arbitrary: fc.constantFrom(...mutations).map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"a":',
        'null',
        '[]',
        '"x"',
        '{"__proto__":{"polluted":true}}',
        '{"constructor":{"prototype":{"polluted":true}}}',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** An arbitrary of fuzz requests over the contract's request schemas. */
export function fuzzRequests(contract: ContractDocument): fc.Arbitrary<FuzzRequest> {
  const schemas = contract.operations
    .flatMap((operation) => Object.values(operation.requestBody?.content ?? {}))
    .filter((schema): schema is JsonSchema => schema !== undefined);
  const idempotencyKeys = fc.oneof(
    { weight: 8, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.constantFrom('', 'k'.repeat(128), 'k'.repeat(129), 'replayed-key') },
    { weight: 1, arbitrary: headerText(140) },
  );
  return fc
    .record({
      method: methods,
      path: paths,
      contentType: fc.option(contentTypes, { nil: undefined, freq: 8 }),
      idempotencyKey: fc.option(idempotencyKeys, { nil: undefined, freq: 6 }),
      authorization: fc.option(fc.constantFrom('Bearer alice', 'Bearer bob', 'Basic eDp5'), { nil: undefined, freq: 3 }),
      prefer: preferences,
      body: bodiesFor(schemas),
    })
    .map(({ method, path, contentType, idempotencyKey, authorization, prefer, body }) => {
      const headers: Record<string, string> = {};
      if (contentType !== undefined) headers['content-type'] = contentType;
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
      if (authorization !== undefined) headers.authorization = authorization;
      if (prefer !== undefined) headers.prefer = prefer;
      const sendsBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
      return {
        method,
        path,
        headers,
        ...(sendsBody ? { body } : {}),
        asksForServerError: /code=(500|503)\b|scenario=flaky-503/.test(prefer ?? ''),
      };
    });
}
