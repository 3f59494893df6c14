/**
 * `--provider-states-url`: every provider state of a pact goes to the provider's own endpoint, as
 * Pact's verifiers send it (POST { state, params, action: 'setup' }, then 'teardown'), and its
 * JSON answer fills the interaction's ProviderState generators. An endpoint that refuses, or
 * answers past its bound, leaves the interaction unsent and the run incomplete, saying why.
 * Also: the hand-written pact is valid for spec/openapi.yaml (@pactflow/swagger-mock-validator).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SwaggerMockValidatorFactory } from '@pactflow/swagger-mock-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recognise } from '../../src/conformance/pact/provider-states.js';
import { runConformance } from '../../src/conformance/run.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';

const fixture = new URL('../fixtures/pact/web-app-evidence-service.json', import.meta.url).pathname;

/** The fixture's completed-job read under a state only the provider knows how to set up, and its unknown-job read. */
function providerOwnStatesPact(): string {
  const pact = JSON.parse(readFileSync(fixture, 'utf8'));
  const completed = pact.interactions[2];
  completed.providerStates = [{ name: 'a finished job owned by the web app', params: { owner: 'web-app' } }];
  pact.interactions = [completed, pact.interactions[4]];
  const file = join(mkdtempSync(join(tmpdir(), 'eh-pact-states-')), 'pact.json');
  writeFileSync(file, JSON.stringify(pact));
  return file;
}

let mock: RunningMockServer;
let stateServer: Server;
let stateUrl: string;
const received: { state: string; params: Record<string, unknown>; action: string }[] = [];
const authorizations: (string | undefined)[] = [];
/** How the state server answers a setup: 'ok' sets it up, 'refuse' answers 500, 'flood' 1 MiB. */
let mode: 'ok' | 'refuse' | 'flood' = 'ok';

/** What a provider's state endpoint does for "a finished job": makes one through its own API and waits for it. */
async function finishedJob(): Promise<string> {
  const body = JSON.parse(readFileSync(fixture, 'utf8')).interactions[0].request.body.content;
  const created = await fetch(`${mock.url}/v0/evaluations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
  const { jobId } = (await created.json()) as { jobId: string };
  for (let read = 0; read < 10; read += 1) {
    const job = (await (await fetch(`${mock.url}/v0/jobs/${jobId}`)).json()) as { status: string };
    if (job.status === 'COMPLETE') break;
  }
  return jobId;
}

beforeAll(async () => {
  mock = await startMockServer({ port: 0 });
  stateServer = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    received.push(call);
    authorizations.push(request.headers.authorization);
    response.setHeader('content-type', 'application/json');
    if (call.action === 'teardown') return response.end('{}');
    if (mode === 'refuse') {
      response.statusCode = 500;
      return response.end('{"error":"cannot"}');
    }
    if (mode === 'flood') return response.end(`{"jobId":"${'x'.repeat(1024 * 1024)}"}`);
    if (call.state === 'a finished job owned by the web app') return response.end(JSON.stringify({ jobId: await finishedJob() }));
    response.end('{}');
  });
  await new Promise<void>((resolve) => stateServer.listen(0, '127.0.0.1', resolve));
  stateUrl = `http://127.0.0.1:${(stateServer.address() as AddressInfo).port}/_pact/provider-states`;
});
afterAll(async () => {
  await mock.close();
  await new Promise((resolve) => stateServer.close(resolve));
});

it("sets up each state through the provider's endpoint, fills the jobId from its answer, and tears it down", async () => {
  mode = 'ok';
  received.length = 0;
  const report = await runConformance({ baseUrl: mock.url, pact: providerOwnStatesPact(), providerStatesUrl: stateUrl, seed: 1 });
  expect(
    report.verdict,
    JSON.stringify(
      report.checks.filter((check) => check.status === 'failed'),
      null,
      2,
    ),
  ).toBe('passed');
  expect(report.checks.find((check) => check.name === 'pact_interaction_matches')).toMatchObject({ status: 'passed', applied: 2 });
  expect(received).toEqual([
    { state: 'a finished job owned by the web app', params: { owner: 'web-app' }, action: 'setup' },
    { state: 'a finished job owned by the web app', params: { owner: 'web-app' }, action: 'teardown' },
    { state: 'no job with this id', params: {}, action: 'setup' },
    { state: 'no job with this id', params: {}, action: 'teardown' },
  ]);
  expect(report.settings.pact).toMatchObject({ providerStatesUrl: stateUrl });
});

it('sends a user name and password in the URL as Basic, and reports the URL without them', async () => {
  mode = 'ok';
  authorizations.length = 0;
  const withUser = stateUrl.replace('http://', 'http://pact:s3cret-state-pw@');
  const report = await runConformance({ baseUrl: mock.url, pact: providerOwnStatesPact(), providerStatesUrl: withUser, seed: 1 });
  expect(report.verdict).toBe('passed');
  expect(authorizations[0]).toBe(`Basic ${Buffer.from('pact:s3cret-state-pw').toString('base64')}`);
  expect(JSON.stringify(report)).not.toContain('s3cret-state-pw');
});

it('leaves an interaction unsent when the endpoint refuses its state: incomplete, saying what it answered', async () => {
  mode = 'refuse';
  const report = await runConformance({ baseUrl: mock.url, pact: providerOwnStatesPact(), providerStatesUrl: stateUrl, seed: 1 });
  expect(report.verdict).toBe('incomplete');
  expect(report.exitCode).toBe(3);
  expect(report.notes.join('\n')).toMatch(/'a finished job owned by the web app' was not set up: --provider-states-url answered 500/);
});

it("reads at most 64 KiB of the endpoint's answer", async () => {
  mode = 'flood';
  const report = await runConformance({ baseUrl: mock.url, pact: providerOwnStatesPact(), providerStatesUrl: stateUrl, seed: 1 });
  expect(report.verdict).toBe('incomplete');
  expect(report.notes.join('\n')).toMatch(/was not set up: its answer was not whole \(answer larger than 65536 bytes/);
});

it('is a valid pact for spec/openapi.yaml, as @pactflow/swagger-mock-validator reads it', async () => {
  const outcome = await SwaggerMockValidatorFactory.create().validate({
    mockPathOrUrl: fixture,
    specPathOrUrl: join(packageRoot(), 'spec/openapi.yaml'),
  });
  expect(outcome.errors, JSON.stringify(outcome.errors, null, 2)).toEqual([]);
  expect(outcome.success).toBe(true);
});

describe("the states the API can set up, in any consumer's words", () => {
  const statuses = ['QUEUED', 'RUNNING', 'COMPLETE', 'FAILED'];
  it.each([
    ['a job in state RUNNING', {}, { kind: 'job-in-state', status: 'RUNNING' }],
    ['a job with status complete', {}, { kind: 'job-in-state', status: 'COMPLETE' }],
    ['a job exists', { status: 'QUEUED' }, { kind: 'job-in-state', status: 'QUEUED' }],
    ['no job with this id', {}, { kind: 'nothing' }],
    ['the job does not exist', {}, { kind: 'nothing' }],
    ['no evaluation job was created with this Idempotency-Key', {}, { kind: 'nothing' }],
    ['an evaluation job was created with this Idempotency-Key', {}, { kind: 'key-used', body: 'same' }],
    ['an evaluation job was created with this Idempotency-Key', { status: 'COMPLETE' }, { kind: 'key-used', body: 'same' }],
    // An evaluation named is one the job must reach on its own; whether it does is seen when set up.
    ['a job in state COMPLETE with evaluation FAIL', {}, { kind: 'job-in-state', status: 'COMPLETE', evaluation: 'FAIL' }],
    [
      'a job in state COMPLETE',
      { status: 'COMPLETE', evaluation: 'INDETERMINATE' },
      { kind: 'job-in-state', status: 'COMPLETE', evaluation: 'INDETERMINATE' },
    ],
    ['a job created by another caller', {}, { kind: 'other-callers-job' }],
    ['the Idempotency-Key was used with another body', {}, { kind: 'key-used', body: 'other' }],
    ['the idempotency key was already used with a different body', {}, { kind: 'key-used', body: 'other' }],
  ])('%s %j', (name, params, expected) => {
    expect(recognise({ name, params }, statuses)).toEqual(expected);
  });

  it.each([
    ['the evidence store is down', {}],
    ['the caller is over its quota', {}],
  ])('leaves %s %j to the provider', (name, params) => {
    expect(recognise({ name, params }, statuses)).toBeUndefined();
  });
});
