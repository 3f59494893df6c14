/**
 * False positives the runner once reported against a correct server, each with a regression
 * test named after it (STYLE 9). The server here is the project's own mock behind a front that
 * answers every route outside the contract with an HTML 404 page, as many web frameworks do.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { hostileServers, type RunningHostileServer, startHostileServer } from '../fixtures/hostile-servers/hostile-servers.js';

let server: RunningHostileServer;
beforeAll(async () => {
  server = await startHostileServer(hostileServers.find((candidate) => candidate.name === 'html-404-outside-the-contract')!);
});
afterAll(async () => {
  await server.close();
});

const callers = { headers: { Authorization: 'Bearer alice' }, secondCallerHeaders: { Authorization: 'Bearer bob' } };

it('html 404 outside the contract: error_body (required) does not judge routes outside the contract', async () => {
  const report = await runConformance({ baseUrl: server.url, seed: 3, examplesPerOperation: 5, ...callers });
  expect(report.checks.find((check) => check.name === 'error_body')!.status).toBe('passed');
  expect(report.checks.filter((check) => check.status !== 'passed')).toEqual([]);
  expect(report.verdict).toBe('passed');
});

it('GET /v0/jobs/ is a route outside the contract, not a getJob answer judged for its Content-Type', async () => {
  const seen: { operationId?: string; url: string; contentType: string | null | undefined }[] = [];
  const report = await runConformance({
    baseUrl: server.url,
    seed: 3,
    checks: ['content_type_documented', 'negative_data_rejection'],
    onExchange: (exchange) =>
      seen.push({
        ...(exchange.operationId ? { operationId: exchange.operationId } : {}),
        url: exchange.request.url,
        contentType: exchange.response?.contentType,
      }),
  });
  const emptyJobId = seen.filter((exchange) => exchange.url.endsWith('/v0/jobs/'));
  expect(emptyJobId.length).toBeGreaterThan(0);
  for (const exchange of emptyJobId) {
    expect(exchange.contentType).toMatch(/^text\/html/);
    expect(exchange.operationId).toBeUndefined();
  }
  expect(report.checks.map((check) => [check.name, check.status])).toEqual([
    ['content_type_documented', 'passed'],
    ['negative_data_rejection', 'passed'],
  ]);
});
