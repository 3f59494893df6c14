import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Exchange, Intent } from '../../src/conformance/exchange.js';
import { observe } from '../../src/conformance/profile/observe.js';
import type { ContractDocument } from '../../src/openapi/document.js';
import { loadContract } from '../../src/openapi/document.js';
import { ResponseValidator } from '../../src/openapi/response-validator.js';
import { profileIntent } from '../../src/proxy/profile-intent.js';
import { judgeRequest } from '../../src/proxy/request-rules.js';

let contract: ContractDocument;
let validator: ResponseValidator;

beforeAll(async () => {
  contract = await loadContract();
  validator = new ResponseValidator(contract);
  const create = contract.operations.find((operation) => operation.operationId === 'createEvaluation')!;
  validCreate = create.requestBody!.examples['application/json']![0];
});

/** The contract's own example: a request it allows. */
let validCreate: unknown;

/** What the profile's one reading sees of a client's request, answered `status` with `code`. */
function entriesSeen(options: {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  code?: string;
  /** Only the start of the body was kept (a body past the proxy's capture): not judged as JSON. */
  cut?: boolean;
}): { intent: Intent; entries: string[] } {
  const headers = { 'content-type': 'application/json', 'idempotency-key': 'key-1', ...options.headers };
  const body = Buffer.from(options.body ?? '');
  const judged = judgeRequest({
    request: { method: options.method, path: options.path, headers, body, bodyCut: options.cut ?? false },
    operations: contract.operations,
    validator,
  });
  const intent = profileIntent({
    method: options.method,
    path: options.path,
    headers,
    bodyBytes: body.length + (options.cut ? 1000 : 0),
    ...(judged.operation ? { operation: judged.operation } : {}),
    violations: judged.violations,
    validIntent: { kind: 'positive', source: 'observed', description: 'valid' },
    credentialHeader: 'Authorization',
    isCredentialHeader: (name) => name === 'authorization' || name === 'x-api-key' || name === 'cookie',
    status: options.status,
    body: options.body ?? '',
    callerScheme: 'Bearer',
    ...(judged.operation?.requestBody
      ? {
          bodyValid: (value: unknown) =>
            validator.validateSchema(judged.operation!.requestBody!.content['application/json']!, value).length === 0,
        }
      : {}),
  });
  const json = options.code ? { code: options.code, message: 'refused' } : {};
  const exchange: Exchange = {
    id: 1,
    ...(judged.operation ? { operationId: judged.operation.operationId } : {}),
    caller: 1,
    intent,
    request: { method: options.method, url: `http://upstream.test${options.path}`, headers: {} },
    response: { status: options.status, headers: {}, contentType: 'application/json', bodyText: JSON.stringify(json), json },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  };
  return {
    intent,
    entries: observe(exchange).map((observation) => `${observation.entry}${observation.condition ? `/${observation.condition}` : ''}`),
  };
}

describe('the situation of a client request, read passively (A-67)', () => {
  it('names the one problem of a request as the runner would have sent it', () => {
    const cases: { request: { method: string; path: string; body?: string; headers?: Record<string, string> }; entry: string }[] = [
      { request: { method: 'POST', path: '/v0/evaluations', body: '{"reportText":' }, entry: 'A-21.malformed-json' },
      {
        request: { method: 'POST', path: '/v0/evaluations', body: JSON.stringify(validCreate), headers: { 'content-type': 'text/plain' } },
        entry: 'A-21.media-type',
      },
      {
        request: { method: 'POST', path: '/v0/evaluations', body: JSON.stringify(validCreate), headers: { 'idempotency-key': '' } },
        entry: 'A-16.missing-key/minLength',
      },
      { request: { method: 'POST', path: '/v0/evaluations', body: '[1]' }, entry: 'A-21.not-an-object' },
      {
        request: { method: 'POST', path: '/v0/evaluations', body: JSON.stringify({ ...(validCreate as object), operationId: 7 }) },
        entry: 'A-7.invalid-request/type',
      },
      { request: { method: 'GET', path: '/v0/jobs/' }, entry: 'A-20.unknown-route/empty-path-parameter' },
      { request: { method: 'GET', path: '/not/in/the/contract' }, entry: 'A-20.unknown-route' },
      { request: { method: 'DELETE', path: '/v0/evaluations' }, entry: 'A-20.undeclared-method' },
    ];
    for (const { request, entry } of cases) {
      const seen = entriesSeen({ ...request, status: 400, code: 'refused' });
      expect(seen.entries, `${request.method} ${request.path} ${request.body ?? ''}`).toContain(entry);
    }
  });

  it('reads a request with two problems as a pair of A-7.precedence, and shows no other error entry', () => {
    const seen = entriesSeen({
      method: 'POST',
      path: '/v0/evaluations',
      body: '{}',
      headers: { 'content-type': 'text/plain' },
      status: 415,
      code: 'unsupported_media_type',
    });
    expect(seen.intent).toEqual({ kind: 'learning', question: 'precedence', detail: { first: 'media-type', second: 'invalid-request' } });
    expect(seen.entries.filter((entry) => !entry.startsWith('A-7.error-headers'))).toEqual(['A-7.precedence']);
  });

  it('shows no error entry for a request with three problems', () => {
    const three = entriesSeen({
      method: 'POST',
      path: '/v0/evaluations',
      body: '{"reportText":',
      headers: { 'content-type': 'text/plain', 'idempotency-key': '' },
      status: 400,
      code: 'refused',
    });
    expect(three.intent.kind).toBe('observed-invalid');
    expect(three.entries.filter((entry) => !entry.startsWith('A-7.error-headers'))).toEqual([]);
  });

  it('reads a 401 to a request without the caller header as A-10.without-credentials', () => {
    const seen = entriesSeen({ method: 'GET', path: '/v0/jobs/abc', status: 401, code: 'auth.missing' });
    expect(seen.entries).toContain('A-10.without-credentials');
    const withCredentials = entriesSeen({
      method: 'GET',
      path: '/v0/jobs/abc',
      headers: { authorization: 'Bearer x' },
      status: 401,
      code: 'auth.invalid',
    });
    expect(withCredentials.entries).not.toContain('A-10.without-credentials');
    // A key in another credential header is a credential too (an expired one, maybe); a cookie names no caller.
    const apiKey = entriesSeen({ method: 'GET', path: '/v0/jobs/abc', headers: { 'x-api-key': 'k' }, status: 401, code: 'auth.invalid' });
    expect(apiKey.entries).not.toContain('A-10.without-credentials');
    const cookie = entriesSeen({
      method: 'GET',
      path: '/v0/jobs/abc',
      headers: { cookie: 'session=1' },
      status: 401,
      code: 'auth.missing',
    });
    expect(cookie.entries).toContain('A-10.without-credentials');
  });

  it('reads a job the traffic never saw created as an unknown job: its 404 shows A-10.unknown-job, its 200 nothing', () => {
    expect(entriesSeen({ method: 'GET', path: '/v0/jobs/job-never-seen', status: 404, code: 'job.missing' }).entries).toContain(
      'A-10.unknown-job',
    );
    const found = entriesSeen({ method: 'GET', path: '/v0/jobs/job-made-before', status: 200 });
    expect(found.entries.filter((entry) => entry.startsWith('A-10'))).toEqual([]);
  });

  it('reads a health read as the runner preflight (A-9.health)', () => {
    expect(entriesSeen({ method: 'GET', path: '/health', status: 200 }).intent).toEqual({ kind: 'preflight' });
  });

  it('reads a plain OPTIONS and a HEAD as the learner asks them (A-20.options, A-20.head); a CORS preflight shows nothing', () => {
    expect(entriesSeen({ method: 'OPTIONS', path: '/v0/evaluations', status: 204 }).entries).toContain('A-20.options');
    expect(entriesSeen({ method: 'HEAD', path: '/v0/jobs/abc', status: 200 }).entries).toContain('A-20.head');
    const preflight = entriesSeen({
      method: 'OPTIONS',
      path: '/v0/evaluations',
      headers: { 'access-control-request-method': 'POST' },
      status: 204,
    });
    expect(preflight.entries.filter((entry) => entry.startsWith('A-20'))).toEqual([]);
  });

  it('reads the strictness oddities and the credential outcomes as the learner asks them', () => {
    const valid = JSON.stringify(validCreate);
    const create = (headers: Record<string, string>, body = valid) =>
      entriesSeen({ method: 'POST', path: '/v0/evaluations', headers, body, status: 400, code: 'refused' }).entries;
    expect(create({ 'content-type': 'application/json; charset=iso-8859-1' })).toContain('A-21.charset');
    expect(create({ 'idempotency-key': 'cl\u00e9-1' })).toContain('A-16.non-ascii-key');
    expect(create({ authorization: 'Bearer a b c' })).toContain('A-10.malformed-credentials');
    expect(create({ authorization: 'Basic dXNlcjpwYXNz' })).toContain('A-10.other-scheme');
    expect(create({ authorization: 'Bearer good-token' })).not.toContain('A-10.other-scheme');
    // A member named twice, the valid value last (JSON.parse reads the last): the two readings differ.
    const twice = `{"operationId":7,${valid.slice(1)}`;
    const seen = entriesSeen({ method: 'POST', path: '/v0/evaluations', body: twice, status: 202 });
    expect(seen.intent).toMatchObject({ kind: 'learning', question: 'duplicate-members', detail: { variant: 'last-valid' } });
    // Both readings valid: nothing told, a create like any other.
    const same = `{"operationId":"op-1",${valid.slice(1)}`;
    expect(entriesSeen({ method: 'POST', path: '/v0/evaluations', body: same, status: 202 }).intent.kind).toBe('positive');
  });

  it('keeps the traffic intent of a request the contract allows', () => {
    const seen = entriesSeen({ method: 'POST', path: '/v0/evaluations', body: JSON.stringify(validCreate), status: 202 });
    expect(seen.intent).toEqual({ kind: 'positive', source: 'observed', description: 'valid' });
  });

  it('reads a body cut short by the capture (half a member name) as nothing, without throwing', () => {
    for (const body of ['{"a', '{"a":1,"a', '[{"x":1,"x":2', '{"\\'])
      expect(entriesSeen({ method: 'POST', path: '/v0/evaluations', body, status: 400, code: 'c', cut: true }).intent.kind).not.toBe(
        'learning',
      );
  });

  it('reads any request, however hostile, without throwing: a cut, malformed or deep body, odd headers', () => {
    const bodies = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.constantFrom('{"a', '{"a":1,"a', '{"\\', '[{"x":1,"x":2', `${'['.repeat(5000)}`, `{"a":1,"a":2}`, '{"a":"\\ud800"}'),
      fc.json(),
    );
    fc.assert(
      fc.property(
        fc.constantFrom('GET', 'POST', 'HEAD', 'OPTIONS', 'DELETE', 'PATCH'),
        fc.constantFrom('/v0/evaluations', '/v0/verifications', '/v0/jobs/x', '/v0/jobs/', '/health', '/x/../v0', '/v0/jobs/%ZZ'),
        bodies,
        fc.record({
          'content-type': fc.constantFrom('application/json', 'application/json; charset=latin1', 'text/plain', ';;;', ''),
          authorization: fc.constantFrom('Bearer t', 'Bearer a b c', 'Basic x', '', ' '),
          'idempotency-key': fc.constantFrom('k', '', 'cl\u00e9', 'x'.repeat(300)),
        }),
        fc.integer({ min: 100, max: 599 }),
        fc.boolean(),
        (method, path, body, headers, status, cut) => {
          expect(() => entriesSeen({ method, path, body, headers, status, code: 'c', cut })).not.toThrow();
        },
      ),
      { numRuns: 300, seed: 42 },
    );
  });
});
