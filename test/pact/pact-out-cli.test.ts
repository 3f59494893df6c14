/**
 * `evidence-harness mock --pact-out FILE` (the built CLI): the pact is written when the mock
 * stops, under the names given, Pact's verifier passes it against another `evidence-harness
 * mock`, and a bad name or a name without --pact-out is refused at start.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Verifier } from '@pact-foundation/pact';
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

it("verifies, with Pact's verifier, against `evidence-harness mock` under a base path, the pact the CLI wrote", async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-pact-cli-'));
  const recording = spawnCli(['mock', '--port', '0', '--quiet', '--base-path', '/api', '--pact-out', 'web.json'], { cwd: folder });
  const [, recordingUrl] = await recording.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  await runClientFlow({ baseUrl: `${recordingUrl}/api` });
  recording.child.kill('SIGTERM');
  expect(await recording.exit).toBe(0);
  const provider = spawnCli(['mock', '--port', '0', '--quiet', '--base-path', '/api']);
  const [, url] = await provider.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  const verified = new Verifier({
    providerBaseUrl: url!,
    pactUrls: [join(folder, 'web.json')],
    providerStatesSetupUrl: `${url}/__mock/provider-states`,
    logLevel: 'error',
  }).verifyProvider();
  await expect(verified).resolves.toBeDefined();
});

it('refuses a party name it cannot use, and a name without --pact-out, with exit 2', async () => {
  const bad = await runMain('mock', '--pact-out', 'p.json', '--pact-provider', 'a/b');
  expect([bad.code, bad.stderr]).toEqual([2, expect.stringContaining('--pact-provider must be a name')]);
  const alone = await runMain('mock', '--pact-consumer', 'web');
  expect([alone.code, alone.stderr]).toEqual([2, expect.stringContaining('give --pact-out FILE as well')]);
});
