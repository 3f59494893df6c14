/**
 * pactFrom and writePact (evidence-harness/msw/node) over MSW's setupServer, as a consumer's
 * suite uses them: the suite's requests, answered by the engine inside MSW, become the same
 * Pact V4 file the mock server writes, without a credential.
 */
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pactFrom as pactFromBrowserEntry } from '../../mocks/index.js';
import { pactFrom, setupMockService, writePact } from '../../mocks/node.js';
import { clientSecret, runClientFlow } from '../pact/client-flow.js';

const baseUrl = 'http://pact.mock.test/api';
const mock = setupMockService({ baseUrl, seed: 5 });
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'eh-msw-pact-'));
  mock.server.listen({ onUnhandledRequest: 'error' });
});
afterAll(async () => {
  mock.server.close();
  await rm(folder, { recursive: true, force: true });
});

it('writes the pact of the suite to a file, base path and all, without the credential', async () => {
  await runClientFlow({ baseUrl });
  // A reset between tests, as suites do, keeps what was seen.
  await mock.control.reset();
  const file = join(folder, 'pacts', 'web-evidence.json');
  const { pact, path } = await writePact(mock.control, { consumer: 'web', provider: 'evidence', file });
  expect(path).toBe(file);
  const text = await readFile(file, 'utf8');
  expect(JSON.parse(text)).toEqual(pact);
  expect(pact.metadata.pactSpecification.version).toBe('4.0');
  expect(text).not.toContain(clientSecret.slice('Bearer '.length));
  const polled = pact.interactions.find((interaction) => interaction.providerStates?.[0]?.name === 'a job in state RUNNING');
  expect(polled?.request.path).toMatch(/^\/api\/v0\/jobs\//);
  expect(polled?.request.generators?.path?.expression).toBe(`/api/v0/jobs/\${jobId}`);
  expect(pactFromBrowserEntry(mock.control, { consumer: 'web', provider: 'evidence' })).toEqual(pact);
});

it('serves the pact and the provider states over the control API inside MSW too', async () => {
  const pact = await (await fetch('http://pact.mock.test/__mock/pact?consumer=web')).json();
  expect(pact.consumer).toEqual({ name: 'web' });
  const made = await fetch('http://pact.mock.test/__mock/provider-states', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ state: 'a job in state FAILED', params: { status: 'FAILED' } }),
  });
  const { jobId } = (await made.json()) as { jobId: string };
  // The base path is the engine's: the setup created the job under /api, where the client reads it.
  expect(await (await fetch(`${baseUrl}/v0/jobs/${jobId}`)).json()).toEqual({ jobId, status: 'FAILED' });
});

it('refuses what is not a control, a party name it cannot use, and a missing file', async () => {
  expect(() => pactFrom({} as never)).toThrow(/mock\.control/);
  expect(() => pactFrom(mock.control, { consumer: ' padded ' })).toThrow(/pact consumer must be a name/);
  await expect(writePact(mock.control, { file: '' })).rejects.toThrow(/give the file/);
});

it('refuses a symlink at the file, leaving the file it points to as it was (A-37)', async () => {
  const elsewhere = join(folder, 'elsewhere.json');
  await writeFile(elsewhere, 'keep me\n');
  const link = join(folder, 'linked-pact.json');
  await symlink(elsewhere, link);
  await expect(writePact(mock.control, { file: link })).rejects.toThrow(/^writePact .*linked-pact\.json: a symbolic link is there/);
  expect(await readFile(elsewhere, 'utf8')).toBe('keep me\n');
});
