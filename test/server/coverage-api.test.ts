/**
 * Coverage, client findings and the inspector page over HTTP (/__mock/coverage, /__mock/ui),
 * each answer checked against spec/control-api.yaml, on a server that needs the control token.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { VirtualClock } from '../../src/engine/index.js';
import { loadContract } from '../../src/openapi/document.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { ResponseValidator } from '../../src/openapi/response-validator.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';

let server: RunningMockServer;
let validator: ResponseValidator;
const clock = new VirtualClock({ start: Date.UTC(2026, 10, 23) });

beforeAll(async () => {
  validator = new ResponseValidator(await loadContract({ source: join(packageRoot(), 'spec/control-api.yaml'), refFolder: packageRoot() }));
  server = await startMockServer({ port: 0, host: '127.0.0.1', controlToken: 'tok', engineOptions: { clock } });
});
afterAll(() => server.close({ graceMs: 100 }));

async function control(operationId: string, path: string, init: RequestInit & { token?: string | null } = {}) {
  const { token = 'tok', ...rest } = init;
  const headers: Record<string, string> = { ...((rest.headers as Record<string, string>) ?? {}) };
  if (token !== null) headers['x-mock-token'] = token;
  const response = await fetch(`${server.url}${path}`, { ...rest, headers });
  const bodyText = await response.text();
  const problems = validator.validate(operationId, {
    status: response.status,
    contentType: response.headers.get('content-type'),
    bodyText,
  });
  expect(problems, `${operationId} ${response.status} ${bodyText.slice(0, 300)}`).toEqual([]);
  return { status: response.status, headers: response.headers, bodyText };
}

it('reports what the traffic covered, filters by covered, keeps it across reset and forgets it on reset of coverage', async () => {
  await fetch(`${server.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'cov-1' }));
  await fetch(`${server.url}/v0/evaluations`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
  const report = JSON.parse((await control('readCoverage', '/__mock/coverage')).bodyText);
  const coveredIds = report.behaviours
    .filter((behaviour: { covered: boolean }) => behaviour.covered)
    .map((behaviour: { id: string }) => behaviour.id);
  expect(coveredIds).toEqual(
    expect.arrayContaining(['createEvaluation 202', 'createEvaluation 415', 'job QUEUED', 'error unsupported_media_type']),
  );
  expect(report.covered).toBe(coveredIds.length);
  expect(report.clientFindings.map((finding: { rule: string }) => finding.rule)).toEqual(['content_type_not_json']);

  const missing = JSON.parse((await control('readCoverage', '/__mock/coverage?covered=false')).bodyText);
  expect(missing.behaviours.every((behaviour: { covered: boolean }) => !behaviour.covered)).toBe(true);
  expect(missing.behaviours.length).toBe(report.total - report.covered);
  expect(missing.total).toBe(report.total);

  await control('reset', '/__mock/reset', { method: 'POST' });
  expect(JSON.parse((await control('readCoverage', '/__mock/coverage')).bodyText).covered).toBe(report.covered);
  const cleared = JSON.parse((await control('resetCoverage', '/__mock/coverage/reset', { method: 'POST' })).bodyText);
  expect([cleared.covered, cleared.clientFindings]).toEqual([0, []]);
});

it('refuses a filter it does not know, and coverage without the token, with Error bodies', async () => {
  const bad = await control('readCoverage', '/__mock/coverage?covered=maybe');
  expect([bad.status, JSON.parse(bad.bodyText)]).toEqual([
    400,
    { code: 'invalid_request', message: "covered must be true or false, got 'maybe'" },
  ]);
  const noToken = await control('readCoverage', '/__mock/coverage', { token: null });
  expect([noToken.status, JSON.parse(noToken.bodyText).code]).toEqual([401, 'control_token_required']);
  const wrongMethod = await fetch(`${server.url}/__mock/coverage`, { method: 'DELETE', headers: { 'x-mock-token': 'tok' } });
  expect([wrongMethod.status, (await wrongMethod.json()).code]).toEqual([404, 'route_not_found']);
});

it('serves the inspector page and its files without the token, under a strict Content-Security-Policy', async () => {
  const page = await control('inspectorPage', '/__mock/ui', { token: null });
  expect(page.status).toBe(200);
  expect(page.bodyText).toContain('<script src="/__mock/ui/inspector.js" defer></script>');
  expect(page.bodyText).not.toMatch(/<script>|\son[a-z]+=/);
  const policy = page.headers.get('content-security-policy') ?? '';
  expect(policy).toContain("script-src 'self'");
  expect(policy).toContain("default-src 'none'");
  expect(policy).not.toContain('unsafe');
  expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  expect(page.headers.get('access-control-allow-origin')).toBeNull();
  const script = await control('inspectorScript', '/__mock/ui/inspector.js', { token: null });
  const styles = await control('inspectorStyles', '/__mock/ui/inspector.css', { token: null });
  const icon = await control('inspectorIcon', '/__mock/ui/favicon.svg', { token: null });
  expect(icon.bodyText).toMatch(/^<svg /);
  expect(script.bodyText).not.toContain('innerHTML');
  expect(page.bodyText.length + script.bodyText.length + styles.bodyText.length).toBeLessThan(100 * 1024);
});

it('lets the page of the mock itself call the control API, and still refuses other origins', async () => {
  const own = await fetch(`${server.url}/__mock/coverage/reset`, {
    method: 'POST',
    headers: { 'x-mock-token': 'tok', origin: server.url },
  });
  expect(own.status).toBe(200);
  expect(own.headers.get('access-control-allow-origin')).toBeNull();
  const other = await fetch(`${server.url}/__mock/coverage/reset`, {
    method: 'POST',
    headers: { 'x-mock-token': 'tok', origin: server.url.replace('127.0.0.1', 'localhost') },
  });
  expect(other.status).toBe(403);
  const foreign = await fetch(`${server.url}/__mock/ui`, { headers: { origin: 'http://evil.example' } });
  expect(foreign.status).toBe(403);
});
