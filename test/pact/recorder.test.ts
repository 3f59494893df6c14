/**
 * What the pact is written from, in-process: one interaction per distinct behaviour however
 * many requests showed it, forced answers and unkept bodies left out and counted, the bounds
 * held, another caller's job given its own state, and resetCoverage forgetting it all.
 */
import { expect, it } from 'vitest';
import type { EngineAnswer, EngineCall } from '../../src/engine/call.js';
import { bundledEngineContract, createMockEngine, defaultPactParties, type MockEngine, pactRecordLimits } from '../../src/engine/index.js';
import { PactRecorder, writePactDocument } from '../../src/engine/pact/index.js';
import { evaluationRequest } from '../support/fixtures.js';

const base = 'http://mock.test';

function create(engine: MockEngine, key: string, headers: Record<string, string> = {}, body: unknown = evaluationRequest()) {
  return engine.handle(
    new Request(`${base}/v0/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key, ...headers },
      body: JSON.stringify(body),
    }),
  );
}

const read = (engine: MockEngine, jobId: string, headers: Record<string, string> = {}) =>
  engine.handle(new Request(`${base}/v0/jobs/${encodeURIComponent(jobId)}`, { headers }));

it('writes one interaction per behaviour, however many requests showed it', async () => {
  const engine = createMockEngine({ seed: 1 });
  for (let job = 0; job < 5; job += 1) {
    const { jobId } = (await (await create(engine, `k-${job}`)).json()) as { jobId: string };
    for (let poll = 0; poll < 6; poll += 1) await (await read(engine, jobId)).text();
  }
  const pact = engine.control.pact();
  expect(pact.interactions.map((interaction) => interaction.providerStates?.[0]?.name).sort()).toEqual([
    'a job in state COMPLETE with evaluation PASS',
    'a job in state RUNNING',
    'no evaluation job was created with this Idempotency-Key',
  ]);
  expect(pact.metadata['evidence-harness'].leftOut).toBe(0);
});

it("leaves forced answers out, and gives another caller's job its own state and generator", async () => {
  const engine = createMockEngine({ seed: 2 });
  await (await create(engine, 'forced', { prefer: 'code=503' })).text();
  const { jobId } = (await (await create(engine, 'mine', { authorization: 'Bearer owner-token-123' })).json()) as { jobId: string };
  await (await read(engine, jobId, { authorization: 'Bearer someone-else-456' })).text();
  const pact = engine.control.pact();
  expect(pact.interactions.some((interaction) => interaction.response.status === 503)).toBe(false);
  const other = pact.interactions.find((interaction) => interaction.providerStates?.[0]?.name === 'a job created by another caller');
  expect(other?.response.status).toBe(404);
  expect(other?.request.generators?.path?.expression).toBe(`/v0/jobs/\${jobId}`);
  expect(JSON.stringify(pact)).not.toMatch(/owner-token|someone-else/);
});

it('keeps the behaviours across reset, forgets them with resetCoverage', async () => {
  const engine = createMockEngine();
  await (await create(engine, 'k')).text();
  await engine.control.reset();
  expect(engine.control.pact().interactions).toHaveLength(1);
  engine.control.resetCoverage();
  expect(engine.control.pact().interactions).toHaveLength(0);
});

it('scrubs a credential the answer echoed, and writes the request as sent otherwise', async () => {
  const engine = createMockEngine();
  // An Idempotency-Key is no credential: kept. A body echoing the Authorization value is scrubbed.
  const secret = 'Bearer echoed-secret-value-789';
  await (await create(engine, 'key-1', { authorization: secret }, evaluationRequest({ operationId: 'echoed-secret-value-789' }))).text();
  const [interaction] = engine.control.pact().interactions;
  expect(interaction?.request.headers).toEqual({ 'Idempotency-Key': ['key-1'], 'Content-Type': ['application/json'] });
  expect(interaction?.request.body?.content).toMatchObject({ operationId: '[REDACTED]' });
});

it('leaves out a body in a media type the contract does not take, and JSON that does not parse', async () => {
  const engine = createMockEngine();
  const post = (contentType: string, body: string) =>
    engine.handle(
      new Request(`${base}/v0/evaluations`, { method: 'POST', headers: { 'content-type': contentType, 'idempotency-key': 'k' }, body }),
    );
  await (await post('text/plain', 'evaluate this')).text();
  await (await post('application/json', '{"profile": ')).text();
  await (await post('application/json', '{}')).text();
  const pact = engine.control.pact();
  expect(pact.interactions.map((interaction) => interaction.response.status)).toEqual([400]);
  expect(pact.metadata['evidence-harness'].leftOut).toBe(2);
});

it('writes a body that is not JSON as its bytes in base64, scrubbed before it is encoded', () => {
  const recorder = new PactRecorder();
  const secret = 'Bearer text-secret-42424242';
  const entry = { time: 0, method: 'POST', path: '/x', status: 200, durationMs: 0, scenario: 'default', forced: false, operationId: 'x' };
  const text: EngineAnswer = { status: 200, headers: { 'content-type': 'text/plain' }, body: 'done' };
  recorder.observe(
    call({ 'content-type': 'text/plain', authorization: secret }),
    entry,
    text,
    undefined,
    new TextEncoder().encode('évaluez, text-secret-42424242'),
    undefined,
  );
  const pact = writePactDocument({
    exchanges: recorder.recorded(),
    leftOut: recorder.leftOut,
    parties: defaultPactParties,
    contract: bundledEngineContract,
    scrubber: recorder.scrubberForPact(),
  });
  const body = pact.interactions[0]?.request.body;
  expect(body).toMatchObject({ contentType: 'text/plain', encoded: 'base64' });
  const bytes = Uint8Array.from(atob(body?.content as string), (character) => character.charCodeAt(0));
  expect(new TextDecoder().decode(bytes)).toBe('évaluez, [REDACTED]');
});

function call(headers: Record<string, string> = {}): EngineCall {
  return {
    method: 'POST',
    pathname: '/x',
    header: (name) => headers[name] ?? null,
    readBody: async () => new Uint8Array(),
    discardBody: () => undefined,
  };
}

const answer: EngineAnswer = { status: 400, headers: { 'content-type': 'application/json' }, body: '{"code":"c","message":"m"}' };

it('holds its bounds: distinct behaviours, body size, and bodies it never read', () => {
  const recorder = new PactRecorder();
  const entry = (code: string) => ({
    time: 0,
    method: 'POST',
    path: '/x',
    status: 400,
    durationMs: 0,
    scenario: 'default',
    forced: false,
    operationId: 'x',
    code,
  });
  for (let index = 0; index < pactRecordLimits.maxInteractions + 10; index += 1) {
    recorder.observe(call(), entry(`code_${index}`), answer, undefined, new TextEncoder().encode('{}'), undefined);
  }
  expect(recorder.recorded()).toHaveLength(pactRecordLimits.maxInteractions);
  expect(recorder.leftOut).toBe(10);
  recorder.clear();
  const big = new Uint8Array(pactRecordLimits.maxBodyBytes + 1).fill(0x20);
  recorder.observe(call(), entry('big'), answer, undefined, big, undefined);
  // A body declared but never read (over the engine's limit) cannot be sent again: left out.
  recorder.observe(call({ 'content-length': '2000000' }), entry('unread'), answer, undefined, undefined, undefined);
  // Bytes that are not UTF-8 cannot be written as a pact's text body: left out.
  recorder.observe(call(), entry('binary'), answer, undefined, new Uint8Array([0xff, 0xfe]), undefined);
  expect([recorder.recorded().length, recorder.leftOut]).toEqual([0, 3]);
  // Seen once, a behaviour left out is not tried again.
  recorder.observe(call(), entry('big'), answer, undefined, big, undefined);
  expect(recorder.leftOut).toBe(3);
});
