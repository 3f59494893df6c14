/**
 * The mock follows the document it is given (createMockEngine({ spec })): each hand-made
 * version of the contract (test/fixtures/contract-versions) is served statefully, with its own
 * routes, validation and limits, and the conformance runner given the same document finds
 * nothing to fault in it.
 */
import { expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/run.js';
import { buildEngineContract, contractFromDocument } from '../../src/engine/engine-contract.js';
import { createMockEngine, VirtualClock } from '../../src/engine/index.js';
import { loadContract } from '../../src/openapi/document.js';
import { contractVersions, writeVersion } from '../fixtures/contract-versions/versions.js';
import { evaluationRequest, jsonPost, newKey } from '../support/fixtures.js';

const version = (name: string) => contractVersions.find((candidate) => candidate.name === name)!;

async function engineFor(name: string) {
  const file = writeVersion(version(name));
  const document = await loadContract({ source: file });
  const clock = new VirtualClock({ start: Date.UTC(2026, 10, 25) });
  const engine = createMockEngine({ spec: contractFromDocument(document.document), clock });
  const send = (path: string, init?: RequestInit) => engine.handle(new Request(new URL(path, 'http://mock.test'), init));
  const create = (body: unknown, prefix = '/v0') => send(`${prefix}/evaluations`, jsonPost(body, { 'idempotency-key': newKey() }));
  return { file, engine, send, create, clock };
}

it('v0.2 proposal: the new optional field is accepted, operationId is held to 64 (65 is a 413), jobs still end', async () => {
  const { send, create } = await engineFor('v02-proposal');
  expect((await create({ ...evaluationRequest(), priority: 'high' })).status).toBe(202);
  const refused = await create({ ...evaluationRequest(), operationId: 'o'.repeat(65) });
  expect(refused.status).toBe(413);
  expect(await refused.json()).toEqual({ code: 'limit_exceeded', message: '/operationId must be at most 64 characters long.' });
  const accepted = await create({ ...evaluationRequest(), operationId: 'o'.repeat(64) });
  expect(accepted.status).toBe(202);
  const { jobId } = (await accepted.json()) as { jobId: string };
  let status = 'QUEUED';
  for (let poll = 0; poll < 10 && !['COMPLETE', 'FAILED'].includes(status); poll += 1)
    status = ((await (await send(`/v0/jobs/${jobId}`)).json()) as { status: string }).status;
  expect(status).toBe('COMPLETE');
  expect((await create({ ...evaluationRequest(), priority: 'urgent' })).status).toBe(400);
});

it('a loosened limit is served loosened', async () => {
  const { create } = await engineFor('loosened-limit');
  expect((await create({ ...evaluationRequest(), operationId: 'o'.repeat(200) })).status).toBe(202);
  expect((await create({ ...evaluationRequest(), operationId: 'o'.repeat(257) })).status).toBe(413);
});

it('paths moved to /v1 are served there, and /v0 is no longer a route', async () => {
  const { send, create } = await engineFor('moved-to-v1');
  const created = await create(evaluationRequest(), '/v1');
  expect(created.status).toBe(202);
  const { jobId } = (await created.json()) as { jobId: string };
  expect((await send(`/v1/jobs/${jobId}`)).status).toBe(200);
  const old = await create(evaluationRequest(), '/v0');
  expect(old.status).toBe(404);
  expect(((await old.json()) as { code: string }).code).toBe('route_not_found');
});

it('an operation the engine has no behaviour for is validated (an invalid jobId names nothing: 404, A-23) and answered from its example', async () => {
  const { send } = await engineFor('new-operation');
  const answered = await send('/v0/jobs/job-1/cancel', { method: 'POST' });
  expect(answered.status).toBe(202);
  expect(await answered.json()).toEqual({ jobId: 'job-7f3c2a', status: 'RUNNING' });
  const tooLong = await send(`/v0/jobs/${'j'.repeat(129)}/cancel`, { method: 'POST' });
  expect(tooLong.status).toBe(404);
  expect(await tooLong.json()).toEqual({ code: 'job_not_found', message: 'No resource of cancelJob has this jobId.' });
});

it.each(contractVersions.map((candidate) => [candidate.name, candidate.why] as const))(
  '%s (%s): the runner given the same document finds nothing to fault',
  async (name) => {
    const { file, engine } = await engineFor(name);
    const report = await runConformance({
      baseUrl: 'http://mock.test',
      spec: file,
      seed: 7,
      replayWaitMs: 0,
      fetch: (request) => engine.handle(request),
    });
    const failures = report.checks.flatMap((check) =>
      check.failures.map((failure) => `${check.name}: ${failure.input} → ${failure.received}`),
    );
    expect(failures).toEqual([]);
  },
);

it('a job state the document adds can end a timeline and be set by hand; the bundled contract refuses it', async () => {
  const file = writeVersion(version('v02-proposal'));
  const document = await loadContract({ source: file });
  const cancelling = {
    name: 'cancelling',
    job: {
      timeline: [
        { status: 'RUNNING', at: { reads: 1 } },
        { status: 'CANCELLED', at: { reads: 2 } },
      ],
    },
  };
  const engine = createMockEngine({ spec: contractFromDocument(document.document), scenario: cancelling });
  const send = (path: string, init?: RequestInit) => engine.handle(new Request(new URL(path, 'http://mock.test'), init));
  const created = (await (await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': newKey() }))).json()) as {
    jobId: string;
  };
  const seen: string[] = [];
  for (let poll = 0; poll < 3; poll += 1)
    seen.push(((await (await send(`/v0/jobs/${created.jobId}`)).json()) as { status: string }).status);
  expect(seen).toEqual(['RUNNING', 'CANCELLED', 'CANCELLED']);
  // A state that ends the job is final: it cannot move on.
  await expect(engine.control.setJobState({ jobId: created.jobId, status: 'RUNNING' })).rejects.toThrow(/CANCELLED is final/);

  const other = (await (await send('/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': newKey() }))).json()) as {
    jobId: string;
  };
  await engine.control.setJobState({ jobId: other.jobId, status: 'CANCELLED' as never });
  expect(((await (await send(`/v0/jobs/${other.jobId}`)).json()) as { status: string }).status).toBe('CANCELLED');

  expect(() => createMockEngine({ scenario: cancelling })).toThrow(
    /job\.timeline\.1\.status: 'CANCELLED' is not a job state of the contract served \(QUEUED, RUNNING, COMPLETE, FAILED\)/,
  );
  const bundled = createMockEngine();
  const job = (await (
    await bundled.handle(new Request('http://mock.test/v0/evaluations', jsonPost(evaluationRequest(), { 'idempotency-key': newKey() })))
  ).json()) as {
    jobId: string;
  };
  await expect(bundled.control.setJobState({ jobId: job.jobId, status: 'CANCELLED' as never })).rejects.toThrow(/not a valid job state/);
});

it("matches a document's patterns in linear time: a value built to make JavaScript backtrack is answered at once", async () => {
  // ^(a|aa)+$ against 'a' × 120 + '!' takes JavaScript's RegExp about 10^25 steps.
  const file = writeVersion({
    name: 'backtracking-pattern',
    why: 'operationId must match a pattern that backtracks exponentially in JavaScript',
    edit: (document) => document.setIn(['components', 'schemas', 'EvaluationRequest', 'properties', 'operationId', 'pattern'], '^(a|aa)+$'),
  });
  const document = await loadContract({ source: file });
  // Built unready, as createHandlers({ spec }) builds it: the first answer waits for the patterns.
  const engine = createMockEngine({ spec: document.document });
  const create = (operationId: string) =>
    engine.handle(
      new Request('http://mock.test/v0/evaluations', jsonPost({ ...evaluationRequest(), operationId }, { 'idempotency-key': newKey() })),
    );
  const refused = await create(`${'a'.repeat(120)}!`);
  expect(refused.status).toBe(400);
  expect(await refused.json()).toEqual({ code: 'invalid_request', message: '/operationId must match the pattern ^(a|aa)+$.' });
  expect((await create('a'.repeat(120))).status).toBe(202);
});

it('refuses at build a document pattern the linear-time matcher cannot run, naming where it sits', async () => {
  const file = writeVersion({
    name: 'lookahead-pattern',
    why: 'a pattern with lookahead',
    edit: (document) => document.setIn(['components', 'schemas', 'EvaluationRequest', 'properties', 'operationId', 'pattern'], '^(?!x)'),
  });
  const document = await loadContract({ source: file });
  await expect(buildEngineContract(document.document)).rejects.toThrow(
    'createEvaluation/requestBody/properties/operationId/pattern: uses lookahead or lookbehind, which a linear-time matcher cannot run',
  );
});
