/**
 * The MSW handlers serve profile format 2's credential and header entries as the mock server
 * does (docs/profiles.md, "Credentials and headers"): the same engine answers under setupServer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupMockService } from '../../mocks/node.js';
import { evaluationRequest } from '../support/fixtures.js';

const baseUrl = 'http://profiled-headers.test';
const mock = setupMockService({
  baseUrl,
  profile: {
    profile: 2,
    'A-3': {
      'accepted-headers': { Location: '/v0/jobs/{jobId}', 'Cache-Control': 'no-store' },
      'job-headers': { 'Cache-Control': 'private' },
    },
    'A-7': { 'error-headers': { 'Cache-Control': 'no-store' } },
    'A-10': {
      caller: { header: 'Authorization', scheme: 'Bearer' },
      'malformed-credentials': { status: 401, code: 'auth.invalid', challenge: 'Bearer realm="api", error="invalid_token"' },
      'other-scheme': { status: 403, code: 'auth.scheme' },
    },
    'A-16': { 'replay-headers': { 'Idempotent-Replayed': 'true' } },
  },
});

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.server.close());

it('serves the declared headers of each answer class and the declared credential outcomes', async () => {
  const create = () =>
    fetch(`${baseUrl}/v0/evaluations`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json', 'idempotency-key': 'msw-1' },
      body: JSON.stringify(evaluationRequest()),
    });
  const first = await create();
  const { jobId } = (await first.json()) as { jobId: string };
  expect([first.status, first.headers.get('location'), first.headers.get('cache-control')]).toEqual([202, `/v0/jobs/${jobId}`, 'no-store']);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const replayed = await create();
  expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
  const read = await fetch(`${baseUrl}/v0/jobs/${jobId}`, { headers: { authorization: 'Bearer k' } });
  expect([read.status, read.headers.get('cache-control')]).toEqual([200, 'private']);
  const malformed = await fetch(`${baseUrl}/v0/jobs/${jobId}`, { headers: { authorization: 'Bearer a b c' } });
  expect([malformed.status, (await malformed.json()).code, malformed.headers.get('www-authenticate')]).toEqual([
    401,
    'auth.invalid',
    'Bearer realm="api", error="invalid_token"',
  ]);
  expect(malformed.headers.get('cache-control')).toBe('no-store');
  const basic = await fetch(`${baseUrl}/v0/jobs/${jobId}`, { headers: { authorization: 'Basic YTpi' } });
  expect([basic.status, (await basic.json()).code, basic.headers.get('www-authenticate')]).toEqual([403, 'auth.scheme', null]);
  // Without credentials: A-10.without-credentials is not declared, so the anonymous caller, who has no such job.
  const none = await fetch(`${baseUrl}/v0/jobs/${jobId}`);
  expect([none.status, (await none.json()).code]).toEqual([404, 'job_not_found']);
});
