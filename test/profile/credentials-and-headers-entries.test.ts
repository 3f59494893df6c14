/**
 * Profile format 2's credential and header entries one by one (docs/profiles.md, "Credentials
 * and headers"): what the engine answers for each, that the mock's own 401 keeps a challenge,
 * and the values a profile may not declare, each refused with why.
 */
import { expect, it } from 'vitest';
import type { Exchange, Intent } from '../../src/conformance/exchange.js';
import { ProfileLearner } from '../../src/conformance/profile/learn.js';
import { createMockEngine } from '../../src/engine/index.js';
import { ProfileError, resolveProfile } from '../../src/profile/profile.js';
import { evaluationRequest, jsonPost, newKey } from '../support/fixtures.js';

const base = 'http://mock.test';

function refused(document: unknown): string {
  try {
    resolveProfile(document);
  } catch (error) {
    if (error instanceof ProfileError) return error.message;
    throw error;
  }
  return 'accepted';
}

it('answers a malformed credential and another scheme as declared, and otherwise as a request without credentials', async () => {
  const engine = createMockEngine({
    profile: {
      profile: 2,
      'A-10': {
        caller: { header: 'Authorization', scheme: 'Bearer' },
        'without-credentials': { status: 401, code: 'auth.missing', challenge: 'Bearer realm="api"' },
        'malformed-credentials': { status: 403, code: 'auth.malformed' },
      },
    },
  });
  const read = (authorization?: string) =>
    engine.handle(new Request(`${base}/v0/jobs/job_x`, authorization === undefined ? {} : { headers: { authorization } }));
  const malformed = await read('Bearer a b c');
  expect([malformed.status, (await malformed.json()).code, malformed.headers.get('www-authenticate')]).toEqual([
    403,
    'auth.malformed',
    null,
  ]);
  const missing = await read();
  expect([missing.status, (await missing.json()).code, missing.headers.get('www-authenticate')]).toEqual([
    401,
    'auth.missing',
    'Bearer realm="api"',
  ]);
  // Not declared here: another scheme is no credential, answered as without credentials, with its challenge.
  const basic = await read('Basic YTpi');
  expect([basic.status, (await basic.json()).code, basic.headers.get('www-authenticate')]).toEqual([
    401,
    'auth.missing',
    'Bearer realm="api"',
  ]);
}, 20_000);

it('keeps a challenge on every 401: the mock’s own where the entry declares none', async () => {
  const engine = createMockEngine({
    profile: {
      profile: 2,
      'A-10': { caller: { header: 'Authorization', scheme: 'Bearer' }, 'malformed-credentials': { status: 401, code: 'auth.invalid' } },
    },
  });
  const answer = await engine.handle(new Request(`${base}/v0/jobs/job_x`, { headers: { authorization: 'Bearer a b c' } }));
  expect([answer.status, (await answer.json()).code]).toEqual([401, 'auth.invalid']);
  expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="evidence-harness", error="invalid_token"');
  // Without credentials, A-10.without-credentials (not declared): the anonymous caller.
  const none = await engine.handle(new Request(`${base}/v0/jobs/job_x`));
  expect(none.status).toBe(404);
});

it('answers Retry-After with the declared seconds on a 429 and a 503', async () => {
  const engine = createMockEngine({
    profile: { profile: 2, 'A-11': { 'retry-after': { seconds: 7 } }, 'A-8': { 'retry-after': { seconds: 30 } } },
  });
  const forced = (code: number) =>
    engine.handle(
      new Request(`${base}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': newKey(), prefer: `code=${code}` })),
    );
  expect((await forced(429)).headers.get('retry-after')).toBe('7');
  expect((await forced(503)).headers.get('retry-after')).toBe('30');
  // Under the default profile: 1, as before.
  const plain = createMockEngine();
  const answer = await plain.handle(
    new Request(`${base}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': newKey(), prefer: 'code=429' })),
  );
  expect(answer.headers.get('retry-after')).toBe('1');
  expect(answer.headers.get('cache-control')).toBeNull();
});

it('refuses header values and credential outcomes a profile may not declare, saying why', () => {
  const headers = (entry: string, value: unknown) => refused({ profile: 2, 'A-3': { [entry]: value } });
  expect(headers('accepted-headers', { Location: '/v0/jobs/{id}' })).toContain('has a placeholder other than {jobId}');
  expect(headers('job-headers', { 'Cache-Control': 'max-age={jobId}' })).toContain('only Location may hold {jobId}');
  // {origin} only begins a Location, and a path follows it.
  expect(headers('accepted-headers', { Location: '{origin}/v0/jobs/{jobId}' })).toBe('accepted');
  expect(headers('accepted-headers', { Location: '/v0/jobs/{origin}/{jobId}' })).toContain('{origin} may only begin a Location');
  expect(headers('accepted-headers', { Location: 'https://{origin}/v0/jobs/{jobId}' })).toContain('{origin} may only begin a Location');
  expect(headers('accepted-headers', { Location: '{origin}v0/jobs/{jobId}' })).toContain('{origin} without a path after it');
  expect(headers('accepted-headers', { Location: '{origin}/a/{origin}/{jobId}' })).toContain('{origin} may only begin a Location');
  expect(headers('job-headers', { 'Cache-Control': '{origin}/x' })).toContain('only Location may hold {jobId} or {origin}');
  expect(headers('job-headers', { 'Cache-Control': 'x'.repeat(257) })).toContain('at most 256');
  expect(headers('job-headers', { 'Cache-Control': 'no-store\r\nX-Evil: 1' })).toContain('not printable ASCII');
  expect(headers('job-headers', { 'Retry-After': 'soon' })).toContain('not a number of seconds');
  expect(headers('job-headers', { ETag: '"1"' })).toContain('ETag');
  const credentials = (value: unknown) => refused({ profile: 2, 'A-10': { 'malformed-credentials': value } });
  expect(credentials({ status: 400, code: 'bad' })).toContain('status 400 breaks a rule the contract states');
  expect(credentials({ status: 401, code: 'bad', challenge: '"realm"' })).toContain('does not begin with an auth-scheme');
  expect(credentials('anonymous')).toBe('accepted');
  // A format 1 file may not declare them.
  expect(refused({ profile: 1, 'A-10': { 'other-scheme': 'anonymous' } })).toContain('set profile: 2');
});

let id = 0;
function exchange(options: { intent: Intent; status: number; body?: unknown; headers?: Record<string, string> }): Exchange {
  id += 1;
  return {
    id,
    operationId: 'getJob',
    caller: 1,
    intent: options.intent,
    request: { method: 'GET', url: 'http://server.test/v0/jobs/job_1', headers: {} },
    response: {
      status: options.status,
      headers: options.headers ?? {},
      contentType: 'application/json',
      bodyText: JSON.stringify(options.body ?? {}),
      json: options.body ?? {},
    },
    notes: [],
    rateLimited: false,
    durationMs: 1,
  };
}

const asked = (question: string, sent: string): Intent => ({ kind: 'learning', question, detail: { sent } });

it('learns the credential outcomes only where the mock can serve them, and says why not elsewhere', () => {
  const learner = new ProfileLearner();
  const refusal = { status: 401, body: { code: 'auth.invalid', message: 'm' }, headers: { 'www-authenticate': 'Bearer realm="x"' } };
  learner.record(exchange({ intent: asked('malformed-credentials', 'Bearer a b c'), ...refusal }));
  learner.record(exchange({ intent: asked('other-scheme', 'Basic credentials'), ...refusal }));
  // Without A-10.caller's scheme, another scheme is nothing the mock can tell apart.
  const unnamed = learner.result({ caller: { header: 'Authorization', scheme: 'any' } });
  expect(unnamed.entries['A-10.malformed-credentials']).toEqual({ status: 401, code: 'auth.invalid', challenge: 'Bearer realm="x"' });
  expect(unnamed.entries['A-10.other-scheme']).toBeUndefined();
  expect(unnamed.notLearnt).toContainEqual({
    entry: 'A-10.other-scheme',
    reason: expect.stringContaining('names no scheme for the caller'),
  });
  // A run without credentials asked nothing: both entries are "not learnt", with why.
  const none = new ProfileLearner().result();
  expect(none.notLearnt.map((item) => [item.entry, item.reason])).toEqual([
    ['A-10.malformed-credentials', expect.stringContaining('the run had no credentials')],
    ['A-10.other-scheme', expect.stringContaining('the run had no credentials')],
  ]);
  expect(none.notObserved).not.toContain('A-10.malformed-credentials');
});

it('learns a Location as a template of the job id, and a 404 to a malformed credential as anonymous', () => {
  const learner = new ProfileLearner();
  for (const jobId of ['job_a', 'job_b'])
    learner.record(
      exchange({
        intent: { kind: 'create', purpose: 'lifecycle' },
        status: 202,
        body: { jobId, status: 'QUEUED' },
        headers: { location: `https://api.example/v0/jobs/${jobId}` },
      }),
    );
  learner.record(exchange({ intent: asked('malformed-credentials', 'Bearer alone'), status: 404, body: { code: 'job_not_found' } }));
  const learnt = learner.result({ caller: { header: 'Authorization', scheme: 'Bearer' } });
  expect(learnt.entries['A-3.accepted-headers']).toEqual({ Location: 'https://api.example/v0/jobs/{jobId}' });
  expect(learnt.entries['A-10.malformed-credentials']).toBe('anonymous');
});

it('learns an absolute Location on the server’s own origin as {origin}/…, and one on another origin as sent', () => {
  const learnt = (location: (jobId: string) => string) => {
    const learner = new ProfileLearner();
    for (const jobId of ['job_a', 'job_b'])
      learner.record(
        exchange({
          intent: { kind: 'create', purpose: 'lifecycle' },
          status: 202,
          body: { jobId, status: 'QUEUED' },
          headers: { location: location(jobId) },
        }),
      );
    return learner.result().entries['A-3.accepted-headers'];
  };
  // The run's requests go to http://server.test: its origin, however the server spells it.
  expect(learnt((jobId) => `http://server.test/v0/jobs/${jobId}`)).toEqual({ Location: '{origin}/v0/jobs/{jobId}' });
  expect(learnt((jobId) => `HTTP://Server.test:80/v0/jobs/${jobId}`)).toEqual({ Location: '{origin}/v0/jobs/{jobId}' });
  // Another port, scheme or host is another origin: kept as the server sent it.
  expect(learnt((jobId) => `http://server.test:8080/v0/jobs/${jobId}`)).toEqual({ Location: 'http://server.test:8080/v0/jobs/{jobId}' });
  expect(learnt((jobId) => `https://server.test/v0/jobs/${jobId}`)).toEqual({ Location: 'https://server.test/v0/jobs/{jobId}' });
  expect(learnt((jobId) => `/v0/jobs/${jobId}`)).toEqual({ Location: '/v0/jobs/{jobId}' });
});

it('fills {origin} with the origin of the request it answers, and keeps another origin as declared', async () => {
  const created = async (location: string, url: string) => {
    const engine = createMockEngine({ profile: { profile: 2, 'A-3': { 'accepted-headers': { Location: location } } } });
    const response = await engine.handle(
      new Request(`${url}/v0/evaluations`, jsonPost(evaluationRequest(), { authorization: 'Bearer k', 'idempotency-key': newKey() })),
    );
    const { jobId } = (await response.json()) as { jobId: string };
    return response.headers.get('location')?.replaceAll(jobId, '{jobId}');
  };
  expect(await created('{origin}/v0/jobs/{jobId}', 'http://mock.test')).toBe('http://mock.test/v0/jobs/{jobId}');
  expect(await created('{origin}/v0/jobs/{jobId}', 'https://other.test:8443')).toBe('https://other.test:8443/v0/jobs/{jobId}');
  expect(await created('https://cdn.example/jobs/{jobId}', 'http://mock.test')).toBe('https://cdn.example/jobs/{jobId}');
});
