/**
 * `evidence-harness mock --coverage-report --pact-out` with every call in a named session (the
 * Playwright setup, docs/assumptions.md A-60): the reports written at exit cover the sessions,
 * say how many, and the pact holds their interactions.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runClientFlow } from '../pact/client-flow.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';

const spawnCli = cliChildrenKilledAfterEach();

it('writes coverage and a pact of the traffic of named sessions, saying how many sessions they cover', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-session-reports-'));
  const mock = spawnCli(
    [
      'mock',
      '--port',
      '0',
      '--coverage-report',
      'json=coverage.json',
      '--coverage-report',
      'html=coverage.html',
      '--pact-out',
      'pact.json',
    ],
    { cwd: folder },
  );
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  for (const session of ['checkout-test-w0', 'checkout-test-w1']) {
    const inSession: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers ?? {}), 'x-mock-session': session } });
    await runClientFlow({ baseUrl: url!, fetch: inSession });
  }
  mock.child.kill('SIGTERM');
  expect(await mock.exit).toBe(0);

  const coverage = JSON.parse(readFileSync(join(folder, 'coverage.json'), 'utf8'));
  expect(coverage.covered).toBeGreaterThan(5);
  expect(coverage.sessions.count).toBe(3);
  expect(coverage.sessions.breakdown.map((row: { name: string }) => row.name)).toEqual(['default', 'checkout-test-w0', 'checkout-test-w1']);
  expect(readFileSync(join(folder, 'coverage.html'), 'utf8')).toContain('<code>checkout-test-w1</code>');
  const output = mock.stdout();
  expect(output).toContain(`consumer coverage: ${coverage.covered} of ${coverage.total} behaviours seen\nsessions: 3 covered`);

  const pact = JSON.parse(readFileSync(join(folder, 'pact.json'), 'utf8'));
  expect(pact.interactions.length).toBeGreaterThan(5);
  expect(pact.interactions[0].comments.text).toEqual(['seen in sessions checkout-test-w0, checkout-test-w1']);
  expect(pact.metadata['evidence-harness'].sessions).toEqual({ count: 3, ended: 0 });
});
