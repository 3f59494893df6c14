/**
 * Issue 27's acceptance, end to end: a client flow against `mock --pact-out` (create, polls, a
 * replay, a conflicting create, an unknown job) gives a pact that `conformance --pact` verifies
 * against a fresh mock, its states set up through the API alone or through the mock's own state
 * endpoint (exit 0), and refuses against a server that answers a create 200 (exit 1).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { runMain } from '../support/run-main.js';
import { runClientFlow } from './client-flow.js';

const spawnCli = cliChildrenKilledAfterEach();
let pactFile: string;
let fresh: RunningMockServer;
let createAnswers200: RunningFaultServer;

beforeAll(async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-pact-round-trip-'));
  const recording = spawnCli(['mock', '--port', '0', '--quiet', '--pact-out', 'web.json'], { cwd: folder });
  const [, url] = await recording.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  await runClientFlow({ baseUrl: url! });
  recording.child.kill('SIGTERM');
  expect(await recording.exit).toBe(0);
  pactFile = join(folder, 'web.json');
  fresh = await startMockServer({ port: 0 });
  createAnswers200 = await startFaultServer(async (request, engine) => {
    const answer = await engine.handle(request);
    if (request.method !== 'POST' || new URL(request.url).pathname !== '/v0/evaluations' || answer.status !== 202) return answer;
    return new Response(await answer.text(), { status: 200, headers: answer.headers });
  });
});

afterAll(async () => {
  await fresh?.close();
  await createAnswers200?.close();
});

it('exported pact holds only Synchronous/HTTP interactions of V4', () => {
  const pact = JSON.parse(readFileSync(pactFile, 'utf8'));
  expect(pact.metadata.pactSpecification.version).toBe('4.0');
  expect(new Set(pact.interactions.map((interaction: { type: string }) => interaction.type))).toEqual(new Set(['Synchronous/HTTP']));
});

it('verifies against a fresh mock with its states set up through the API alone: exit 0', async () => {
  const run = await runMain(
    'conformance',
    '--base-url',
    fresh.url,
    '--pact',
    pactFile,
    '--quiet',
    '--second-caller-header',
    'Authorization: Bearer other-caller-token',
  );
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain('pact_interaction_matches');
  expect(run.code, run.stdout).toBe(0);
});

it("verifies against a fresh mock with the mock's own state endpoint: exit 0", async () => {
  const run = await runMain(
    'conformance',
    '--base-url',
    fresh.url,
    '--pact',
    pactFile,
    '--quiet',
    '--provider-states-url',
    `${fresh.url}/__mock/provider-states`,
  );
  expect(run.code, run.stdout).toBe(0);
});

it('fails against a server that answers a create 200, naming the create interactions: exit 1', async () => {
  const run = await runMain('conformance', '--base-url', createAnswers200.url, '--pact', pactFile, '--quiet');
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/pact_interaction_matches[\s\S]*createEvaluation|createEvaluation[\s\S]*pact_interaction_matches/);
  expect(run.stdout).toContain('status: 200');
});
