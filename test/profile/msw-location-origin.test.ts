/**
 * The MSW handlers fill a profile's Location `{origin}` with the origin of the request they
 * answer, as the mock server does: a client following it stays on the mocked base URL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { setupMockService } from '../../mocks/node.js';
import { evaluationRequest } from '../support/fixtures.js';

const baseUrl = 'https://location-origin.test:8443';
const mock = setupMockService({
  baseUrl,
  profile: { profile: 2, 'A-3': { 'accepted-headers': { Location: '{origin}/v0/jobs/{jobId}' } } },
});

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => mock.server.close());

it('answers a create with a Location on the mocked origin, which a client can follow', async () => {
  const headers = { authorization: 'Bearer k' };
  const created = await fetch(`${baseUrl}/v0/evaluations`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': 'msw-origin-1' },
    body: JSON.stringify(evaluationRequest()),
  });
  const { jobId } = (await created.json()) as { jobId: string };
  expect([created.status, created.headers.get('location')]).toEqual([202, `${baseUrl}/v0/jobs/${jobId}`]);
  const followed = await fetch(created.headers.get('location')!, { headers });
  expect([followed.status, ((await followed.json()) as { jobId: string }).jobId]).toEqual([200, jobId]);
});
