/**
 * --hooks FILE.mjs (issue 12 point 4): beforeRequest changes what is sent (a refreshed token),
 * afterResponse sees every exchange, and a module's own checks are selected and reported like
 * the built-in ones; a module that cannot be used is a usage error.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConformanceReport } from '../../src/conformance/report/report.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { cleanHandler } from '../fixtures/fault-zoo/faults.js';
import { runMain } from '../support/run-main.js';

const run = runMain;

const folder = mkdtempSync(join(tmpdir(), 'eh-hooks-'));
/** The X-Request-Token each request reached the server with. */
const tokens: (string | null)[] = [];
let server: RunningFaultServer;

beforeAll(async () => {
  const handler = cleanHandler();
  server = await startFaultServer(async (request, engine) => {
    tokens.push(request.headers.get('x-request-token'));
    return handler(request, engine);
  });
});
afterAll(async () => {
  await server.close();
});

const hooksFile = join(folder, 'hooks.mjs');
writeFileSync(
  hooksFile,
  `let issued = 0;
globalThis.ehHookSeen = [];
export function beforeRequest(request) {
  issued += 1;
  request.headers['X-Request-Token'] = 'token-' + issued;
}
export function afterResponse(exchange) {
  globalThis.ehHookSeen.push(exchange.id + ' ' + exchange.request.headers['X-Request-Token'] + ' ' + (exchange.response?.status ?? '-'));
}
export const checks = [
  {
    name: 'unknown_job_says_job_not_found',
    description: "an unknown job's 404 has the code job_not_found",
    severity: 'required',
    judge(exchange) {
      if (exchange.intent.kind !== 'unknown-job' || !exchange.response) return { outcome: 'skip' };
      return exchange.response.json?.code === 'job_not_found_anywhere'
        ? { outcome: 'pass' }
        : { outcome: 'fail', title: 'not the code my team wants', expected: 'job_not_found_anywhere', received: String(exchange.response.json?.code) };
    },
  },
];
`,
);

it('beforeRequest sets what is sent, afterResponse sees every exchange, and a hook check fails the run like a built-in', async () => {
  tokens.length = 0;
  const json = join(folder, 'report.json');
  const result = await run(
    'conformance',
    '--base-url',
    server.url,
    '--seed',
    '3',
    '--quiet',
    '--hooks',
    hooksFile,
    '--report',
    `json=${json}`,
  );
  expect(result.code, result.stdout + result.stderr).toBe(1);
  const report = JSON.parse(readFileSync(json, 'utf8')) as ConformanceReport;
  // Each request went with its own fresh token.
  expect(tokens).toHaveLength(report.requests);
  expect(new Set(tokens).size).toBe(report.requests);
  expect(tokens.every((token) => /^token-\d+$/.test(token ?? ''))).toBe(true);
  const seen = (globalThis as { ehHookSeen?: string[] }).ehHookSeen ?? [];
  expect(seen).toHaveLength(report.requests);
  expect(seen[0]).toBe('1 token-1 200');
  const own = report.checks.find((check) => check.name === 'unknown_job_says_job_not_found')!;
  expect(own).toMatchObject({ severity: 'required', status: 'failed', description: "an unknown job's 404 has the code job_not_found" });
  // Failures are sorted by operation; the path-character probes' dot segments (outside the contract) come first.
  expect(own.failures.find((failure) => failure.operation === 'getJob')).toMatchObject({ title: 'not the code my team wants' });
  expect(result.stdout).toMatch(/unknown_job_says_job_not_found +required +FAIL/);
  expect(report.checks.filter((check) => check.status === 'failed').map((check) => check.name)).toEqual(['unknown_job_says_job_not_found']);
});

it('a hook check is selected by --checks and left out by --exclude-checks, as the built-in ones are', async () => {
  const only = await run(
    'conformance',
    '--base-url',
    server.url,
    '--seed',
    '3',
    '--quiet',
    '--hooks',
    hooksFile,
    '--checks',
    'unknown_job_says_job_not_found',
  );
  expect(only.code).toBe(1);
  expect(only.stdout).toMatch(/^check .*\nunknown_job_says_job_not_found +required +FAIL/);
  const without = await run(
    'conformance',
    '--base-url',
    server.url,
    '--seed',
    '3',
    '--quiet',
    '--hooks',
    hooksFile,
    '--exclude-checks',
    'unknown_job_says_job_not_found',
    '--checks',
    'unknown_job_not_found',
  );
  expect(without.code, without.stdout).toBe(0);
});

it('refuses a module it cannot use, and stops the run when a hook throws (exit 2)', async () => {
  const clash = join(folder, 'clash.mjs');
  writeFileSync(clash, "export const checks = [{ name: 'error_body', judge: () => ({ outcome: 'pass' }) }];\n");
  const clashing = await run('conformance', '--base-url', server.url, '--hooks', clash);
  expect(clashing.code).toBe(2);
  expect(clashing.stderr).toContain('the check error_body is built in; give yours another name');
  const empty = join(folder, 'empty.mjs');
  writeFileSync(empty, 'export const nothing = 1;\n');
  expect((await run('conformance', '--base-url', server.url, '--hooks', empty)).stderr).toContain(
    'exports none of beforeRequest, afterResponse and checks',
  );
  const throwing = join(folder, 'throwing.mjs');
  writeFileSync(throwing, "export function beforeRequest() { throw new Error('token service down'); }\n");
  const thrown = await run('conformance', '--base-url', server.url, '--quiet', '--hooks', throwing);
  expect(thrown.code).toBe(2);
  expect(thrown.stderr).toContain('the beforeRequest hook threw: token service down');
});
