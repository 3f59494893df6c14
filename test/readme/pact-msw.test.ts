/**
 * The MSW recipe of docs/pact.md, run as written: a suite's requests, answered by the engine in
 * MSW, written as a Pact V4 file after the suite. Public names, so it runs the build.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll as afterTheExample } from 'vitest';

// Registered before the example's hooks, so it runs after them (vitest runs after-hooks in reverse).
afterTheExample(() => {
  const pact = JSON.parse(readFileSync(join(tmpdir(), 'pacts', 'checkout-web-evidence-service.json'), 'utf8'));
  const states = pact.interactions.map((interaction: { providerStates?: { name: string }[] }) => interaction.providerStates?.[0]?.name);
  if (!['a job in state RUNNING', 'the Idempotency-Key was used with another body'].every((state) => states.includes(state))) {
    throw new Error(`the pact lacks a state the suite showed: ${states.join(', ')}`);
  }
});

// readme:start pact-msw
import { setupMockService, writePact } from 'evidence-harness/msw/node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

const mock = setupMockService({ baseUrl: 'http://localhost:4010' });
const pactFile = join(tmpdir(), 'pacts', 'checkout-web-evidence-service.json');

beforeAll(() => mock.server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mock.control.reset()); // a reset keeps what the pact is written from
afterAll(() => mock.server.close());
// One interaction per behaviour the suite made the mock show, with its provider state.
afterAll(() => writePact(mock.control, { consumer: 'checkout-web', provider: 'evidence-service', file: pactFile }));

const create = (key: string, operationId = 'op-2026-0001') =>
  fetch('http://localhost:4010/v0/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({
      profile: 'svc.payment-conformance/0.1-draft',
      operationId,
      instructionDigest: '3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b',
      policyDigest: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      evidence: [{ id: 'ev-1', kind: 'issuer_assertion' }],
    }),
  });

it('creates a job and reads it', async () => {
  const { jobId } = await (await create('key-1')).json();
  const job = await (await fetch(`http://localhost:4010/v0/jobs/${jobId}`)).json();
  expect(job.status).toBe('RUNNING');
});

it('is refused a key reused with another body', async () => {
  await create('key-2');
  expect((await create('key-2', 'op-2026-0002')).status).toBe(409);
});
// readme:end
