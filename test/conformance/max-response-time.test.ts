/**
 * --max-response-time (the advisory max_response_time check): a 5 s cold start of verifyReport
 * fails it at 2.5 s, the clean server passes it at 5 s, and the check needs the option. Both sides
 * of the judgement are wall-clock time, so this lives in the slow project (vitest.config.ts), apart
 * from `npm test` (issue 43, docs/development.md "Tests that wait on time").
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { cleanHandler, faults } from '../fixtures/fault-zoo/faults.js';
import { reportOf, runWithBothCallers as run } from '../support/conformance-runs.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-max-response-time-'));
let clean: RunningFaultServer;

beforeAll(async () => {
  clean = await startFaultServer(cleanHandler());
});
afterAll(async () => {
  await clean.close();
});

it('--max-response-time: the advisory max_response_time fails a slow answer, and runs only with the option', async () => {
  const server = await startFaultServer(faults.find((fault) => fault.name === 'slow-verification')!.create());
  const json = join(folder, 'slow.json');
  try {
    const slow = await run(
      'conformance',
      '--base-url',
      server.url,
      '--seed',
      '3',
      '--quiet',
      '--max-response-time',
      '2500ms',
      '--checks',
      'max_response_time,verification_result',
      '--strict',
      '--report',
      `json=${json}`,
    );
    expect(slow.code, slow.stdout).toBe(1);
    expect(slow.stdout).toMatch(/max_response_time +advisory +FAIL/);
    const failure = reportOf(json).checks.find((check) => check.name === 'max_response_time')!.failures[0]!;
    expect(failure).toMatchObject({ operation: 'verifyReport', title: 'answered in more than 2500 ms' });
    expect(failure.received).toMatch(/^\d+ ms: 200 /);
    expect(reportOf(json).settings.maxResponseTimeMs).toBe(2500);
    const fast = await run(
      'conformance',
      '--base-url',
      clean.url,
      '--seed',
      '3',
      '--quiet',
      '--max-response-time',
      '5s',
      '--strict',
      '--report',
      `json=${json}`,
    );
    expect(fast.code, fast.stdout).toBe(0);
    expect(reportOf(json).checks.find((check) => check.name === 'max_response_time')).toMatchObject({ status: 'passed' });
    const without = await run('conformance', '--base-url', clean.url, '--seed', '3', '--quiet', '--checks', 'max_response_time');
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('--checks max_response_time needs --max-response-time DURATION');
  } finally {
    await server.close();
  }
});
