/**
 * Issue 40, rows "mock log and coverage" and "`Authorization: sk_live_… v2`": a
 * credential whose first word is not a registered HTTP authentication scheme is the credential
 * itself (`sk_live_…`), so when the client also puts it into a path, a key or a body, the mock
 * scrubs it from its log line, its journal and its pact as it does a Bearer token.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';

const spawnCli = cliChildrenKilledAfterEach();
const folders: string[] = [];
afterEach(() => {
  for (const made of folders.splice(0)) rmSync(made, { recursive: true, force: true });
});

const credential = 'sk_live_4f9c2e7a1b8d3c6e';

it('scrubs an `Authorization: sk_live_… v2` credential from the log line, the journal and the pact', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-scrub-'));
  folders.push(folder);
  const pact = join(folder, 'pact.json');
  const mock = spawnCli(['mock', '--port', '0', '--pact-out', pact]);
  const base = (await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;

  const headers = { authorization: `${credential} v2` };
  await (await fetch(`${base}/v0/jobs/${credential}`, { headers })).arrayBuffer();
  await mock.waitFor(/GET \/v0\/jobs\/\S+ 404/);
  const journal = await (await fetch(`${base}/__mock/journal`)).text();

  mock.child.kill('SIGTERM');
  expect(await mock.exit).toBe(0);
  expect(readFileSync(pact, 'utf8')).toContain('/v0/jobs/');
  expect({
    log: mock.stdout().includes(credential),
    journal: journal.includes(credential),
    pact: readFileSync(pact, 'utf8').includes(credential),
  }).toEqual({ log: false, journal: false, pact: false });
});
