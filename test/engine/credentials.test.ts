/**
 * Credentials as the engine reads them (A-10, A-54): every 401 the mock answers carries a
 * WWW-Authenticate challenge (RFC 9110 §15.5.2), and an Authorization value that is not
 * credentials by RFC 9110's syntax names no caller: anonymous by default, refused where the
 * profile refuses requests without credentials.
 */
import { expect, it } from 'vitest';
import { wellFormedCredentials } from '../../src/contract/authorization.js';
import type { EngineCall } from '../../src/engine/call.js';
import { createMockEngine, handleControl } from '../../src/engine/index.js';

import { evaluationRequest, jsonPost, newKey } from '../support/fixtures.js';

const base = 'http://mock.test';
const malformed = ['Bearer a b c', 'Bearer', 'Bearer to:ken', 'Bearer tok en', 'Bearer a, Bearer b', 'Basic', 'Bearer "quoted"'];

function refusing(caller: { header: string; scheme: string }, status = 401) {
  return { profile: 1, 'A-10': { caller, 'without-credentials': { status, code: 'UNAUTHENTICATED' } } };
}

async function create(engine: ReturnType<typeof createMockEngine>, authorization?: string): Promise<Response> {
  return engine.handle(
    new Request(
      `${base}/v0/evaluations`,
      jsonPost(evaluationRequest(), { 'idempotency-key': newKey(), ...(authorization === undefined ? {} : { authorization }) }),
    ),
  );
}

async function read(engine: ReturnType<typeof createMockEngine>, jobId: string, authorization?: string): Promise<Response> {
  return engine.handle(new Request(`${base}/v0/jobs/${jobId}`, authorization === undefined ? {} : { headers: { authorization } }));
}

it('reads RFC 9110 credentials: a scheme, then one token68 or name=value parameters', () => {
  for (const value of ['Bearer alice', 'bearer a.b-c_d~e+f/g==', 'Basic dXNlcjpwYXNz', 'sk_live_abc v2', 'alice', 'Digest a=b, c="d e"'])
    expect(wellFormedCredentials(value), value).toBe(true);
  for (const value of [...malformed, '', 'Bearer  ', 'B@d token']) expect(wellFormedCredentials(value), value).toBe(false);
});

it('takes a malformed Authorization for no caller: by default its jobs are the anonymous caller’s', async () => {
  const engine = createMockEngine();
  for (const value of malformed) {
    const created = await create(engine, value);
    expect(created.status, value).toBe(202);
    const { jobId } = await created.json();
    // Without credentials it is the same (anonymous) caller's job; with real credentials another caller's.
    expect((await read(engine, jobId)).status, value).toBe(200);
    expect((await read(engine, jobId, 'Bearer alice')).status, value).toBe(404);
  }
  const owned = await (await create(engine, 'Bearer alice')).json();
  expect((await read(engine, owned.jobId, 'Bearer a b c')).status).toBe(404);
  expect((await read(engine, owned.jobId, 'Bearer alice')).status).toBe(200);
});

it('answers a 401 with a challenge naming the declared scheme, and invalid_token for malformed credentials', async () => {
  const engine = createMockEngine({ profile: refusing({ header: 'Authorization', scheme: 'Bearer' }) });
  const missing = await read(engine, 'job_x');
  expect(missing.status).toBe(401);
  expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="evidence-harness"');
  expect((await missing.json()).code).toBe('UNAUTHENTICATED');
  const otherScheme = await read(engine, 'job_x', 'Basic dXNlcjpwYXNz');
  expect([otherScheme.status, otherScheme.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="evidence-harness"']);
  for (const value of malformed) {
    const refused = await read(engine, 'job_x', value);
    expect(refused.status, value).toBe(401);
    expect(refused.headers.get('www-authenticate'), value).toBe('Bearer realm="evidence-harness", error="invalid_token"');
    expect((await refused.json()).message, value).toMatch(/not credentials by RFC 9110/);
  }
  expect((await read(engine, 'job_x', 'Bearer alice')).status).toBe(404);
});

it('names Bearer for any scheme, ApiKey and the header for another header, and sends no challenge with 403', async () => {
  const any = createMockEngine({ profile: refusing({ header: 'Authorization', scheme: 'any' }) });
  expect((await read(any, 'job_x')).headers.get('www-authenticate')).toBe('Bearer realm="evidence-harness"');
  expect((await read(any, 'job_x', 'Bearer a b c')).status).toBe(401);
  expect((await read(any, 'job_x', 'token-of-one-word')).status).toBe(404);
  const custom = createMockEngine({ profile: refusing({ header: 'Authorization', scheme: 'custom' }) });
  expect((await read(custom, 'job_x')).headers.get('www-authenticate')).toBe('ApiKey realm="evidence-harness"');
  const apiKey = createMockEngine({ profile: refusing({ header: 'X-Api-Key', scheme: 'any' }) });
  const refused = await read(apiKey, 'job_x');
  expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'ApiKey realm="evidence-harness", header="X-Api-Key"']);
  // An API key is not an Authorization value: RFC 9110's syntax does not apply to it.
  const keyed = await apiKey.handle(new Request(`${base}/v0/jobs/job_x`, { headers: { 'x-api-key': 'a b c' } }));
  expect(keyed.status).toBe(404);
  const forbidden = createMockEngine({ profile: refusing({ header: 'Authorization', scheme: 'Bearer' }, 403) });
  const answer = await read(forbidden, 'job_x');
  expect([answer.status, answer.headers.get('www-authenticate')]).toEqual([403, null]);
});

it('gives a challenge to a 401 a profile declares for another situation', async () => {
  const engine = createMockEngine({
    profile: { profile: 1, 'A-20': { 'unknown-route': { status: 401, code: 'NOPE' } } },
  });
  const answer = await engine.handle(new Request(`${base}/nowhere`));
  expect([answer.status, answer.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="evidence-harness"']);
});

it('challenges a control call without the mock’s token', async () => {
  const engine = createMockEngine();
  const answer = await handleControl(new Request(`${base}/__mock/jobs`), { engine, token: 'tok' });
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toBe('ApiKey realm="evidence-harness control API", header="X-Mock-Token"');
});

it('learns the credentials of a call that lists its header names and of one that does not alike', async () => {
  const headers: Record<string, string> = { authorization: 'Bearer listed-token-0001', 'x-api-key': 'api-key-value-0001', accept: '*/*' };
  const stub = (listed: boolean): EngineCall => ({
    method: 'GET',
    pathname: '/health',
    header: (name) => headers[name] ?? null,
    ...(listed ? { headerNames: () => Object.keys(headers) } : {}),
    readBody: async () => new Uint8Array(0),
    discardBody: () => undefined,
  });
  const text = 'listed-token-0001 api-key-value-0001 */*';
  for (const listed of [true, false]) {
    const engine = createMockEngine();
    expect(engine.scrubber!.scrub(text), `listed: ${listed}`).toBe(text);
    expect((await engine.answerCall!(stub(listed))).status).toBe(200);
    expect(engine.scrubber!.scrub(text), `listed: ${listed}`).toBe('[REDACTED] [REDACTED] */*');
  }
  // A Fetch request lists its names (Headers.keys()), in any case it was sent in.
  const engine = createMockEngine();
  await engine.handle(new Request(`${base}/health`, { headers: { 'X-Api-Key': 'api-key-value-0001' } }));
  expect(engine.scrubber!.scrub(text)).toBe('listed-token-0001 [REDACTED] */*');
});
