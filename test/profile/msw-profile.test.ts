/**
 * The MSW handlers serve a profile as the mock server does: the client's tests under
 * setupServer meet the server's own decisions.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupMockService } from '../../mocks/node.js';
import { evaluationRequest } from '../support/fixtures.js';

const baseUrl = 'http://profiled.test';
const mock = setupMockService({
  baseUrl,
  profile: {
    profile: 1,
    'A-21': { 'media-type': { status: 400, code: 'UNSUPPORTED_CONTENT' } },
    'A-10': { caller: { header: 'X-Api-Key', scheme: 'any' }, 'without-credentials': { status: 401, code: 'UNAUTHENTICATED' } },
  },
});

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.server.close());

it('answers the profile’s status and code on the declared points, and its defaults elsewhere', async () => {
  const body = JSON.stringify(evaluationRequest());
  const plain = await fetch(`${baseUrl}/v0/evaluations`, {
    method: 'POST',
    headers: { 'x-api-key': 'k', 'content-type': 'text/plain', 'idempotency-key': 'k1' },
    body,
  });
  expect([plain.status, (await plain.json()).code]).toEqual([400, 'UNSUPPORTED_CONTENT']);
  const anonymous = await fetch(`${baseUrl}/v0/jobs/job_x`);
  expect([anonymous.status, (await anonymous.json()).code]).toEqual([401, 'UNAUTHENTICATED']);
  const unknown = await fetch(`${baseUrl}/v0/jobs/job_x`, { headers: { 'x-api-key': 'k' } });
  expect([unknown.status, (await unknown.json()).code]).toEqual([404, 'job_not_found']);
  // The Authorization header names no caller under this profile.
  const bearer = await fetch(`${baseUrl}/v0/jobs/job_x`, { headers: { authorization: 'Bearer k' } });
  expect(bearer.status).toBe(401);
  expect(mock.control.profile().declared).toEqual(['A-10.caller', 'A-10.without-credentials', 'A-21.media-type']);
});
