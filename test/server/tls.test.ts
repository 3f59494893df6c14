/**
 * The mock over HTTPS (`tls` option, `--tls-cert`/`--tls-key`): a frontend served over https
 * calls it without mixed-content errors, with the same answers and the same control API.
 */
import { request } from 'node:https';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { evaluationRequest } from '../support/fixtures.js';
import { mockServersClosedAfterEach } from '../support/started-servers.js';
import { makeTestCertificate, type TestCertificate } from '../support/test-certificate.js';

const start = mockServersClosedAfterEach();
let certificate: TestCertificate;
beforeAll(() => {
  certificate = makeTestCertificate();
});
afterAll(() => certificate.remove());

/** One HTTPS exchange that trusts only the test's certificate. */
function httpsExchange(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    // A Host header of our own would otherwise be the name the certificate is checked against.
    const servername = new URL(url).hostname === '127.0.0.1' ? 'localhost' : undefined;
    const settings = { method: options.method ?? 'GET', headers: options.headers, ca: certificate.cert, servername };
    const outgoing = request(url, settings, (incoming) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk) => {
        body += chunk;
      });
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }));
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

it('serves the contract over HTTPS with a certificate the client trusts', async () => {
  const server = await start({ tls: { cert: certificate.cert, key: certificate.key } });
  expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  const health = await httpsExchange(`${server.url}/health`, { headers: { origin: 'https://app.example' } });
  expect(health.status).toBe(200);
  expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
  expect(health.headers['access-control-allow-origin']).toBe('*');

  const created = await httpsExchange(`${server.url}/v0/evaluations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'tls-1' },
    body: JSON.stringify(evaluationRequest()),
  });
  expect(created.status).toBe(202);
  const { jobId } = JSON.parse(created.body);
  const read = await httpsExchange(`${server.url}/v0/jobs/${jobId}`);
  expect(JSON.parse(read.body).jobId).toBe(jobId);
  // The control API keeps its guard: this machine may call it, a foreign Host may not.
  expect((await httpsExchange(`${server.url}/__mock/jobs`)).status).toBe(200);
  expect((await httpsExchange(`${server.url}/__mock/jobs`, { headers: { host: 'evil.example' } })).status).toBe(403);
});

it('refuses a client that does not trust the certificate, and keeps serving those that do', async () => {
  const server = await start({ tls: { cert: certificate.cert, key: certificate.key } });
  await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  expect((await httpsExchange(`${server.url}/health`)).status).toBe(200);
});
