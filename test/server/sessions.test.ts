/**
 * Sessions on one mock server (docs/assumptions.md A-60): calls carrying `X-Mock-Session`
 * are answered, and controlled, in their own session, so tests running in parallel against
 * one `evidence-harness mock` cannot change each other's scenario, jobs or journal.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';

let server: RunningMockServer;
const logged: string[] = [];

beforeAll(async () => {
  server = await startMockServer({
    port: 0,
    host: '127.0.0.1',
    engineOptions: { limits: { maxSessions: 50 } },
    log: (line) => logged.push(line),
  });
});
afterAll(() => server.close({ graceMs: 100 }));

const sessionHeaders = (session: string | undefined): Record<string, string> =>
  session === undefined ? {} : { 'x-mock-session': session };

async function create(session: string | undefined, key: string): Promise<{ status: number; jobId: string }> {
  const response = await fetch(
    `${server.url}/v0/evaluations`,
    jsonPost(evaluationRequest(), { 'idempotency-key': key, ...sessionHeaders(session) }),
  );
  const body = (await response.json()) as { jobId: string };
  return { status: response.status, jobId: body.jobId };
}

async function read(
  session: string | undefined,
  jobId: string,
): Promise<{ status: number; body: { status?: string; evaluation?: string; code?: string } }> {
  const response = await fetch(`${server.url}/v0/jobs/${jobId}`, { headers: sessionHeaders(session) });
  return { status: response.status, body: (await response.json()) as { status?: string; evaluation?: string } };
}

/** Reads a job until it is no longer QUEUED or RUNNING (the shipped timelines end at the third read). */
async function settle(session: string | undefined, jobId: string) {
  for (let reads = 0; reads < 10; reads += 1) {
    const answer = await read(session, jobId);
    if (answer.status !== 200 || !['QUEUED', 'RUNNING'].includes(answer.body.status ?? '')) return answer;
  }
  throw new Error(`job ${jobId} did not settle in 10 reads`);
}

async function controlCall(session: string | undefined, path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}/__mock${path}`, {
    ...init,
    headers: { ...sessionHeaders(session), ...(init.headers ?? {}) },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it("keeps one session's scenario and reset away from another's jobs", async () => {
  const changed = await controlCall('a', '/scenario', { ...jsonPost({ name: 'job-failed' }), method: 'PUT' });
  expect(changed).toEqual({ status: 200, body: { current: 'job-failed' } });
  const jobOfA = await create('a', 'key-a');
  const jobOfB = await create('b', 'key-b');
  expect((await controlCall('b', '/scenarios')).body.current).toBe('default');
  // The log line names the session and the scenario in force in it.
  expect(logged).toContainEqual(expect.stringMatching(/ POST \/v0\/evaluations 202 [\d.]+ms scenario=job-failed session=a$/));
  expect(logged).toContainEqual(expect.stringMatching(/ POST \/v0\/evaluations 202 [\d.]+ms scenario=default session=b$/));
  expect((await settle('a', jobOfA.jobId)).body.status).toBe('FAILED');
  expect((await controlCall('a', '/reset', { method: 'POST' })).status).toBe(200);
  expect((await controlCall('a', '/scenarios')).body.current).toBe('default');
  expect((await read('a', jobOfA.jobId)).status).toBe(404);
  expect((await settle('b', jobOfB.jobId)).body).toMatchObject({ status: 'COMPLETE', evaluation: 'PASS' });
  // Without the header: the default session, which saw none of it.
  expect((await read(undefined, jobOfB.jobId)).status).toBe(404);
  expect((await controlCall(undefined, '/scenarios')).body.current).toBe('default');
});

it('makes two jobs for the same Idempotency-Key in two sessions, and one within a session', async () => {
  const first = await create('k1', 'shared-key');
  const second = await create('k2', 'shared-key');
  const again = await create('k1', 'shared-key');
  expect(first.status).toBe(202);
  expect(second.status).toBe(202);
  expect(second.jobId).not.toBe(first.jobId);
  expect(again.jobId).toBe(first.jobId);
  expect((await read('k2', first.jobId)).status).toBe(404);
});

it('shows each of 40 interleaved sessions exactly its own call in its journal', async () => {
  const names = Array.from({ length: 40 }, (_, index) => `interleaved-${index}`);
  const created = await Promise.all(names.map((name) => create(name, `key-${name}`)));
  for (const [index, name] of names.entries()) {
    const { body } = await controlCall(name, '/journal');
    const entries = body.entries as Array<{ jobId?: string; idempotencyKey?: string; operationId?: string }>;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ operationId: 'createEvaluation', jobId: created[index]!.jobId, idempotencyKey: `key-${name}` });
  }
});

it('lists the sessions, the default one first', async () => {
  await create('listed', 'key-listed');
  const { status, body } = await controlCall('listed', '/sessions');
  expect(status).toBe(200);
  expect(body.current).toBe('listed');
  const sessions = body.sessions as Array<{ name: string; calls: number }>;
  expect(sessions[0]!.name).toBe('default');
  expect(sessions.find((session) => session.name === 'listed')).toMatchObject({ calls: 1 });
});

it('refuses a hostile session name with a contract Error body, on the API and the control API', async () => {
  for (const name of ['', 'x'.repeat(65), 'a b', 'a/b', '{tag}', 'é']) {
    const response = await fetch(`${server.url}/v0/jobs/j`, { headers: { 'x-mock-session': name } });
    expect(response.status, name).toBe(400);
    expect(await response.json()).toEqual({ code: 'invalid_request', message: expect.stringContaining('X-Mock-Session') });
    const control = await controlCall(name, '/journal');
    expect(control).toEqual({ status: 400, body: { code: 'invalid_request', message: expect.stringContaining('X-Mock-Session') } });
  }
});

it('evicts the least recently used session past the limit, saying so in the log', async () => {
  for (let index = 0; index < 55; index += 1) await read(`crowd-${index}`, 'no-such-job');
  const { body } = await controlCall(undefined, '/sessions');
  const names = (body.sessions as Array<{ name: string }>).map((session) => session.name);
  expect(names).toHaveLength(51);
  expect(names).toContain('crowd-54');
  expect(names).not.toContain('a');
  expect(logged.some((line) => /session 'a' forgotten: the session limit was reached/.test(line))).toBe(true);
});

it('allows the header in CORS preflights', async () => {
  const response = await fetch(`${server.url}/v0/evaluations`, {
    method: 'OPTIONS',
    headers: { origin: 'http://app.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-mock-session' },
  });
  expect(response.headers.get('access-control-allow-headers')).toMatch(/X-Mock-Session/);
});
