/**
 * The control API over HTTP (/__mock/), checked against its own OpenAPI document
 * (spec/control-api.yaml): every operation answers what the document says, and drives the
 * engine as `engine.control` does.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callerFingerprint, VirtualClock } from '../../src/engine/index.js';
import { loadContract } from '../../src/openapi/document.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { ResponseValidator } from '../../src/openapi/response-validator.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';

let server: RunningMockServer;
let validator: ResponseValidator;
const clock = new VirtualClock({ start: Date.UTC(2026, 10, 22) });

beforeAll(async () => {
  validator = new ResponseValidator(await loadContract({ source: join(packageRoot(), 'spec/control-api.yaml'), refFolder: packageRoot() }));
  server = await startMockServer({ port: 0, host: '127.0.0.1', controlToken: 'tok', engineOptions: { clock } });
});
afterAll(() => server.close({ graceMs: 100 }));

/** Calls a control operation and checks the answer against spec/control-api.yaml. */
async function control(operationId: string, path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}${path}`, { ...init, headers: { 'x-mock-token': 'tok', ...(init.headers ?? {}) } });
  const bodyText = await response.text();
  const problems = validator.validate(operationId, {
    status: response.status,
    contentType: response.headers.get('content-type'),
    bodyText,
  });
  expect(problems, `${operationId} ${response.status} ${bodyText}`).toEqual([]);
  return { status: response.status, body: JSON.parse(bodyText) };
}

const put = (body: unknown): RequestInit => ({ ...jsonPost(body), method: 'PUT' });

it('states a valid OpenAPI 3.1 document with an operation for each control call', () => {
  expect(validator.contract.operations.map((operation) => operation.operationId).sort()).toEqual(
    [
      'advanceJob',
      'changeProviderState',
      'clearJournal',
      'inspectJob',
      'inspectorIcon',
      'inspectorPage',
      'inspectorScript',
      'inspectorStyles',
      'listJobs',
      'listScenarios',
      'listSessions',
      'readCoverage',
      'readJournal',
      'readPact',
      'readProfile',
      'reset',
      'resetCoverage',
      'setJobState',
      'useScenario',
      'getScenario',
    ].sort(),
  );
});

it('shows the server profile in force: the defaults without --profile', async () => {
  const shown = await control('readProfile', '/__mock/profile');
  expect(shown.body.source).toBe('default');
  expect(shown.body.declared).toEqual([]);
  expect(shown.body.entries['A-21.malformed-json']).toEqual({ status: 400, code: 'invalid_json' });
});

it('lists the shipped scenarios and switches between them', async () => {
  const listed = await control('listScenarios', '/__mock/scenarios');
  expect(listed.body.current).toBe('default');
  expect(listed.body.scenarios.map((scenario: { name: string }) => scenario.name)).toEqual(
    expect.arrayContaining(['slow-pass', 'flaky-503']),
  );
  expect((await control('useScenario', '/__mock/scenario', put({ name: 'fail' }))).body).toEqual({ current: 'fail' });
  const unknown = await control('useScenario', '/__mock/scenario', put({ name: 'nope' }));
  expect(unknown.status).toBe(404);
  expect(unknown.body.message).toMatch(/unknown scenario 'nope'/);
  const invalid = await control('useScenario', '/__mock/scenario', put({ scenario: { name: 'Bad Name' } }));
  expect(invalid).toMatchObject({ status: 400, body: { code: 'invalid_scenario' } });
  expect((await control('reset', '/__mock/reset', { method: 'POST' })).body).toEqual({ current: 'default' });
});

it('loads a new scenario sent as JSON, and new jobs follow it', async () => {
  const scenario = { name: 'two-step-fail', job: { timeline: [{ status: 'FAILED', limitations: ['scripted'], at: { reads: 1 } }] } };
  expect((await control('useScenario', '/__mock/scenario', put({ scenario }))).body).toEqual({ current: 'two-step-fail' });
  const created = await fetch(`${server.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'ctl-scn' }));
  const { jobId } = await created.json();
  expect(await (await fetch(`${server.url}/v0/jobs/${jobId}`)).json()).toEqual({ jobId, status: 'FAILED', limitations: ['scripted'] });
  await control('reset', '/__mock/reset', { method: 'POST' });
});

it('lists, inspects, advances and sets jobs; refuses moves the state machine forbids', async () => {
  await control('useScenario', '/__mock/scenario', put({ name: 'manual' }));
  const created = await fetch(
    `${server.url}/v0/evaluations`,
    jsonPost(evaluationRequest(), { 'idempotency-key': 'ctl-1', authorization: 'Bearer ann' }),
  );
  const { jobId } = await created.json();
  const listed = await control('listJobs', '/__mock/jobs');
  expect(listed.body.jobs).toEqual([
    {
      job: { jobId, status: 'QUEUED' },
      owner: await callerFingerprint('Bearer ann'),
      scenario: 'manual',
      createdAt: clock.now(),
      reads: 0,
    },
  ]);
  // The control API shows who created a job without showing their credential.
  expect(listed.body.jobs[0].owner).toMatch(/^sha256:[0-9a-f]{32}$/);
  expect(JSON.stringify(listed.body)).not.toContain('ann');
  expect((await control('advanceJob', `/__mock/jobs/${jobId}/advance`, { method: 'POST' })).body).toEqual({ jobId, status: 'RUNNING' });
  expect((await control('inspectJob', `/__mock/jobs/${jobId}`)).body.job).toEqual({ jobId, status: 'RUNNING' });
  const set = await control('setJobState', `/__mock/jobs/${jobId}/state`, put({ status: 'COMPLETE', evaluation: 'FAIL' }));
  expect(set.body).toEqual({ jobId, status: 'COMPLETE', evaluation: 'FAIL' });
  const backwards = await control('setJobState', `/__mock/jobs/${jobId}/state`, put({ status: 'RUNNING' }));
  expect(backwards.status).toBe(400);
  expect(backwards.body.message).toMatch(/cannot move from COMPLETE to RUNNING: COMPLETE is final/);
  expect((await control('advanceJob', `/__mock/jobs/${jobId}/advance`, { method: 'POST' })).status).toBe(400);
  expect((await control('inspectJob', '/__mock/jobs/job_none')).status).toBe(404);
  await control('reset', '/__mock/reset', { method: 'POST' });
  expect((await control('listJobs', '/__mock/jobs')).body.jobs).toEqual([]);
});

it('reads and clears the request journal', async () => {
  await control('clearJournal', '/__mock/journal', { method: 'DELETE' });
  await fetch(`${server.url}/health`);
  await fetch(`${server.url}/v0/jobs/job_none`);
  const journal = await control('readJournal', '/__mock/journal');
  expect(
    journal.body.entries.map((entry: { method: string; path: string; status: number }) => [entry.method, entry.path, entry.status]),
  ).toEqual([
    ['GET', '/health', 200],
    ['GET', '/v0/jobs/job_none', 404],
  ]);
  expect((await control('clearJournal', '/__mock/journal', { method: 'DELETE' })).body).toEqual({ entries: [] });
});

it('refuses a job state the contract does not allow, and a jobId that is not valid percent-encoding', async () => {
  await control('useScenario', '/__mock/scenario', put({ name: 'manual' }));
  const created = await fetch(`${server.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'ctl-bad' }));
  const { jobId } = await created.json();
  for (const body of [null, { status: 'BOGUS' }, { status: 'COMPLETE', evaluation: 'MAYBE' }, { status: 'FAILED', limitations: 'abc' }]) {
    const refused = await control('setJobState', `/__mock/jobs/${jobId}/state`, put(body));
    expect(refused.status, JSON.stringify(body)).toBe(400);
    expect(refused.body.message).toMatch(/^not a valid job state: /);
  }
  expect((await (await fetch(`${server.url}/v0/jobs/${jobId}`)).json()).status).toBe('QUEUED');
  expect((await control('inspectJob', '/__mock/jobs/%E0')).status).toBe(404);
  await control('reset', '/__mock/reset', { method: 'POST' });
});

it('answers an unknown control path with 404 and a pointer to the document', async () => {
  const response = await fetch(`${server.url}/__mock/nothing`, { headers: { 'x-mock-token': 'tok' } });
  expect(response.status).toBe(404);
  expect((await response.json()).message).toMatch(/spec\/control-api\.yaml/);
});

it('documents its refusals: 401 without the token, 403 for a web page’s Origin, each an Error body', async () => {
  const withoutToken = await fetch(`${server.url}/__mock/jobs`);
  expect(withoutToken.status).toBe(401);
  const fromPage = await control('listJobs', '/__mock/jobs?limit=5', { headers: { origin: 'http://evil.example' } });
  expect(fromPage).toMatchObject({ status: 403, body: { code: 'control_origin_refused' } });
  const badLimit = await control('readJournal', '/__mock/journal?limit=0');
  expect(badLimit).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
});

it('reads back the scenario in force with GET /__mock/scenario, in the form PUT takes', async () => {
  const document = {
    name: 'read-back',
    description: 'fails every third create',
    job: { timeline: [{ status: 'FAILED', at: { reads: 1 } }] },
    faults: [{ operation: 'createEvaluation', status: 429, times: 1 }],
  };
  await control('useScenario', '/__mock/scenario', put({ scenario: document }));
  const read = await control('getScenario', '/__mock/scenario');
  expect(read.body.current).toBe('read-back');
  expect(read.body.scenario).toMatchObject(document);

  // What GET answers, PUT takes back: the same scenario is in force again after a switch.
  await control('useScenario', '/__mock/scenario', put({ name: 'fail' }));
  expect((await control('getScenario', '/__mock/scenario')).body).toMatchObject({ current: 'fail', scenario: { name: 'fail' } });
  expect((await control('useScenario', '/__mock/scenario', put(read.body))).body).toEqual({ current: 'read-back' });
  expect((await control('getScenario', '/__mock/scenario')).body).toEqual(read.body);
  await control('useScenario', '/__mock/scenario', put({ name: 'default' }));
});

it('gives the coverage and the pact of every session with ?sessions=all, as the document says', async () => {
  const inSession = { 'x-mock-session': 'control-api-all' };
  const created = await fetch(`${server.url}/v0/evaluations`, jsonPost(evaluationRequest(), { 'idempotency-key': 'all-1', ...inSession }));
  expect(created.status).toBe(202);
  const coverage = await control('readCoverage', '/__mock/coverage?sessions=all');
  expect(coverage.body.behaviours.find((behaviour: { id: string }) => behaviour.id === 'createEvaluation 202').covered).toBe(true);
  expect(coverage.body.sessions.breakdown.map((row: { name: string }) => row.name)).toContain('control-api-all');
  const pact = await control('readPact', '/__mock/pact?sessions=all&consumer=web');
  expect(
    pact.body.interactions.some((interaction: { comments?: { text: string[] } }) =>
      interaction.comments?.text[0]?.includes('control-api-all'),
    ),
  ).toBe(true);
  expect((await control('readCoverage', '/__mock/coverage?sessions=some')).status).toBe(400);
});
