/**
 * The provider-state endpoint and the pact over HTTP, checked against spec/control-api.yaml:
 * each state a pact names is made and answers the job it made; hostile bodies get a 400 Error
 * body naming what is wrong, never a 5xx; the control token still guards both.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMockEngine, handleControl } from '../../src/engine/index.js';
import { loadContract } from '../../src/openapi/document.js';
import { packageRoot } from '../../src/openapi/package-root.js';
import { ResponseValidator } from '../../src/openapi/response-validator.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';

let server: RunningMockServer;
let validator: ResponseValidator;

beforeAll(async () => {
  validator = new ResponseValidator(await loadContract({ source: join(packageRoot(), 'spec/control-api.yaml'), refFolder: packageRoot() }));
  server = await startMockServer({ port: 0, host: '127.0.0.1', controlToken: 'tok' });
});
afterAll(() => server.close({ graceMs: 100 }));

async function change(body: string, token: string | null = 'tok') {
  const response = await fetch(`${server.url}/__mock/provider-states`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { 'x-mock-token': token }) },
    body,
  });
  const bodyText = await response.text();
  const problems = validator.validate('changeProviderState', {
    status: response.status,
    contentType: response.headers.get('content-type'),
    bodyText,
  });
  expect(problems, bodyText).toEqual([]);
  return { status: response.status, body: JSON.parse(bodyText) as Record<string, unknown> };
}

async function readJob(jobId: string, authorization?: string) {
  const response = await fetch(`${server.url}/v0/jobs/${encodeURIComponent(jobId)}`, authorization ? { headers: { authorization } } : {});
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

it('makes a job in the state named, pinned there, and answers its id', async () => {
  const made = await change(
    JSON.stringify({
      state: 'a job in state COMPLETE with evaluation FAIL',
      params: { status: 'COMPLETE', evaluation: 'FAIL', limitations: ['x'] },
    }),
  );
  expect(made.status).toBe(200);
  const jobId = made.body.jobId as string;
  for (let read = 0; read < 3; read += 1) {
    expect(await readJob(jobId)).toEqual({ status: 200, body: { jobId, status: 'COMPLETE', evaluation: 'FAIL', limitations: ['x'] } });
  }
  const queued = await change(JSON.stringify({ state: 'a job in state QUEUED', action: 'setup' }));
  expect((await readJob(queued.body.jobId as string)).body.status).toBe('QUEUED');
  expect((await readJob(queued.body.jobId as string)).body.status).toBe('QUEUED');
});

it('makes the Idempotency-Key states: a replay answers the job, a conflict answers 409', async () => {
  const request = {
    profile: 'svc.dmt-derivation/0.1-draft',
    operationId: 'op-1',
    instructionDigest: 'a'.repeat(64),
    policyDigest: 'b'.repeat(64),
    evidence: [{ id: 'e', kind: 'validated_state' }],
  };
  const used = await change(
    JSON.stringify({
      state: 'an evaluation job was created with this Idempotency-Key',
      params: { idempotencyKey: 'k-1', request, status: 'RUNNING' },
    }),
  );
  const create = (body: unknown) =>
    fetch(`${server.url}/v0/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      body: JSON.stringify(body),
    });
  const replay = await create(request);
  expect([replay.status, await replay.json()]).toEqual([202, { jobId: used.body.jobId, status: 'RUNNING' }]);
  await change(JSON.stringify({ state: 'the Idempotency-Key was used with another body', params: { idempotencyKey: 'k-1' } }));
  const conflict = await create(request);
  expect([conflict.status, ((await conflict.json()) as { code: string }).code]).toEqual([409, 'idempotency_key_conflict']);
});

it("makes another caller's job, and starts every setup from an empty mock", async () => {
  const other = await change(JSON.stringify({ state: 'a job created by another caller' }));
  expect((await readJob(other.body.jobId as string)).status).toBe(404);
  const first = await change(JSON.stringify({ state: 'a job in state RUNNING' }));
  await change(JSON.stringify({ state: 'no job with this id', params: { jobId: 'nothing-here' } }));
  expect((await readJob(first.body.jobId as string)).status).toBe(404);
  expect((await change(JSON.stringify({ state: 'a job in state RUNNING', action: 'teardown' }))).body).toEqual({});
  expect((await change(JSON.stringify({ state: '' }))).body).toEqual({});
});

it.each([
  [
    'an unknown state, named',
    JSON.stringify({ state: 'the moon is full' }),
    /unknown provider state 'the moon is full'.*known: 'no evaluation job/,
  ],
  ['a body that is not JSON', '{"state":', /not well-formed JSON/],
  ['a body that is not an object', '[1,2]', /give \{"state"/],
  ['no state', JSON.stringify({ params: {} }), /state must be/],
  ['a state that is not a string', JSON.stringify({ state: 42 }), /state must be/],
  ['a state name too long', JSON.stringify({ state: 'x'.repeat(600) }), /1 to 512 characters/],
  ['params that are not an object', JSON.stringify({ state: 'no job with this id', params: 'x' }), /params must be a JSON object/],
  ['an unknown action', JSON.stringify({ state: 'no job with this id', action: 'explode' }), /action must be setup or teardown/],
  ['a job state the contract lacks', JSON.stringify({ state: 'a job in state DONE' }), /'DONE' is not a job state/],
  ['params disagreeing with the name', JSON.stringify({ state: 'a job in state RUNNING', params: { status: 'FAILED' } }), /disagree/],
  ['a move the state machine forbids', JSON.stringify({ state: 'a job in state COMPLETE' }), /COMPLETE job needs an evaluation/],
  [
    'limitations that are not strings',
    JSON.stringify({ state: 'a job in state FAILED', params: { limitations: [1] } }),
    /limitations must be an array of strings/,
  ],
  [
    'a replay without its request',
    JSON.stringify({ state: 'an evaluation job was created with this Idempotency-Key', params: { idempotencyKey: 'k' } }),
    /params.request/,
  ],
  [
    'a key too long',
    JSON.stringify({ state: 'the Idempotency-Key was used with another body', params: { idempotencyKey: 'k'.repeat(129) } }),
    /idempotencyKey must be a string of 1 to 128/,
  ],
  [
    'a replay whose request the contract refuses',
    JSON.stringify({
      state: 'an evaluation job was created with this Idempotency-Key',
      params: { idempotencyKey: 'k', request: { a: 1 } },
    }),
    /answered 400 'invalid_request'/,
  ],
  ['a body over 1 MiB', JSON.stringify({ state: 'x', params: { pad: 'x'.repeat(1024 * 1024) } }), /over 1 MiB/],
])('refuses %s with 400 and an Error body saying why', async (_name, body, message) => {
  const refused = await change(body);
  expect(refused.status).toBe(400);
  expect(refused.body.code).toBe('invalid_request');
  expect(refused.body.message).toMatch(message);
});

it('leaves the mock as it was when it refuses a change', async () => {
  const made = await change(JSON.stringify({ state: 'a job in state RUNNING' }));
  expect((await change(JSON.stringify({ state: 'a job in state RUNNING', params: { status: 'FAILED' } }))).status).toBe(400);
  expect((await readJob(made.body.jobId as string)).status).toBe(200);
});

it('is guarded by the control token, as the rest of the control API', async () => {
  expect((await change(JSON.stringify({ state: '' }), null)).status).toBe(401);
  const pact = await fetch(`${server.url}/__mock/pact`);
  expect(pact.status).toBe(401);
});

it('serves the pact, checked against the document, and refuses a party name it cannot use', async () => {
  const read = async (query: string) => {
    const response = await fetch(`${server.url}/__mock/pact${query}`, { headers: { 'x-mock-token': 'tok' } });
    const bodyText = await response.text();
    expect(
      validator.validate('readPact', { status: response.status, contentType: response.headers.get('content-type'), bodyText }),
      bodyText,
    ).toEqual([]);
    return { status: response.status, body: JSON.parse(bodyText) as { message?: string; consumer?: { name: string } } };
  };
  expect((await read('?consumer=web')).body.consumer).toEqual({ name: 'web' });
  const refused = await read(`?provider=${encodeURIComponent('a/b')}`);
  expect([refused.status, refused.body.message]).toEqual([400, expect.stringMatching(/pact provider must be a name/)]);
});

it('answers any JSON, or none, with 200 or a 400 Error body, never a 5xx', async () => {
  const engine = createMockEngine();
  const states = fc.constantFrom(
    'a job in state RUNNING',
    'an evaluation job was created with this Idempotency-Key',
    'no job with this id',
    'x',
  );
  const change = fc.oneof(
    fc.jsonValue(),
    fc.record(
      {
        state: fc.oneof(states, fc.jsonValue()),
        params: fc.jsonValue(),
        action: fc.oneof(fc.constantFrom('setup', 'teardown'), fc.jsonValue()),
      },
      { requiredKeys: [] },
    ),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        change.map((value) => JSON.stringify(value)),
        fc.string(),
      ),
      async (body) => {
        const response = await handleControl(new Request('http://mock.test/__mock/provider-states', { method: 'POST', body }), { engine });
        const answer = (await response.json()) as { code?: string; message?: string };
        expect(
          response.status === 200 || (response.status === 400 && typeof answer.code === 'string' && typeof answer.message === 'string'),
        ).toBe(true);
      },
    ),
    { numRuns: 300, seed: 27 },
  );
});
