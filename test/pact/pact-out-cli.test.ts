/**
 * `evidence-harness mock --pact-out FILE` (the built CLI): the pact is written when the mock
 * stops, under the names given, and a bad name or a name without --pact-out is refused at start.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { runMain } from '../support/run-main.js';
import { clientSecret, runClientFlow } from './client-flow.js';

const spawnCli = cliChildrenKilledAfterEach();

it('writes the pact of the traffic when the mock stops', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-pact-cli-'));
  const mock = spawnCli(['mock', '--port', '0', '--quiet', '--pact-out', 'pacts/web.json', '--pact-consumer', 'web'], { cwd: folder });
  const [, url] = await mock.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  await runClientFlow({ baseUrl: url! });
  mock.child.kill('SIGTERM');
  expect(await mock.exit).toBe(0);
  expect(mock.stdout()).toContain(`pact written: ${join(folder, 'pacts/web.json')}`);
  const text = readFileSync(join(folder, 'pacts/web.json'), 'utf8');
  const pact = JSON.parse(text);
  expect([pact.consumer.name, pact.provider.name, pact.metadata.pactSpecification.version]).toEqual([
    'web',
    'evidence-evaluation-and-verification-service',
    '4.0',
  ]);
  expect(pact.interactions.length).toBeGreaterThan(5);
  expect(text).not.toContain(clientSecret.slice('Bearer '.length));
});

it('refuses a party name it cannot use, and a name without --pact-out, with exit 2', async () => {
  const bad = await runMain('mock', '--pact-out', 'p.json', '--pact-provider', 'a/b');
  expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--pact-provider must be a name')]);
  const alone = await runMain('mock', '--pact-consumer', 'web');
  expect([alone.code, alone.stderr]).toEqual([2, expect.stringContaining('give --pact-out FILE as well')]);
});
