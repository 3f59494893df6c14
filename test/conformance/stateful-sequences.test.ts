/**
 * The stateful phase (src/conformance/stateful, probes/sequence-probe.ts): the reference model's
 * predictions, the body changes at every pointer, the shrinker, and failing sequences as the
 * reports print them. The fault zoo proves each family's check fails on its fault and passes
 * the clean server; these tests pin down how.
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { BoundedNodeClient } from '../../src/conformance/http/bounded-client.js';
import { sendTogether } from '../../src/conformance/http/burst-gate.js';
import { toCurl } from '../../src/conformance/http/curl.js';
import { renderHtml } from '../../src/conformance/report/html-report.js';
import { renderJson } from '../../src/conformance/report/json-report.js';
import { renderJunit } from '../../src/conformance/report/junit-report.js';
import { renderSummary } from '../../src/conformance/report/summary-text.js';
import { runConformance } from '../../src/conformance/run.js';
import { changedAt, pointersOf } from '../../src/conformance/stateful/body-changes.js';
import { bodyFormsOf } from '../../src/conformance/stateful/body-forms.js';
import { keyInForm } from '../../src/conformance/stateful/key-forms.js';
import { canonicalJson, IdempotencyModel, stepProblem } from '../../src/conformance/stateful/model.js';
import { sequencesFor } from '../../src/conformance/stateful/sequences.js';
import { shrinkSequence } from '../../src/conformance/stateful/shrink.js';
import { loadContract } from '../../src/openapi/document.js';
import { ResponseValidator } from '../../src/openapi/response-validator.js';
import { startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { cleanHandler, faults } from '../fixtures/fault-zoo/faults.js';
import { runnerTimeoutMs } from '../support/time-limits.js';

const callers = { headers: { Authorization: 'Bearer alice' }, secondCallerHeaders: { Authorization: 'Bearer bob' } };

async function runAgainst(fault: string | undefined, options: Partial<Parameters<typeof runConformance>[0]> = {}) {
  const handler = fault ? faults.find((candidate) => candidate.name === fault)!.create() : cleanHandler();
  const server = await startFaultServer(handler);
  try {
    const report = await runConformance({
      baseUrl: server.url,
      seed: 31,
      runId: 'stateful',
      examplesPerOperation: 2,
      ...callers,
      ...options,
    });
    return { report, origin: server.url };
  } finally {
    await server.close();
  }
}

it('predicts each create from the keys seen so far, and names the rule it is held to', () => {
  const model = new IdempotencyModel();
  const body = canonicalJson({ b: 1, a: [1, 2] });
  const first = model.predict({ caller: 1, key: 0, body });
  expect(first).toEqual({ rule: 'new-key', prediction: { answer: 'new-job', notJobs: [] } });
  model.observe({ caller: 1, key: 0, body, prediction: first.prediction, jobId: 'job-a' });
  // Key order and whitespace are not part of the digest.
  expect(model.predict({ caller: 1, key: 0, body: canonicalJson({ a: [1, 2], b: 1 }) })).toEqual({
    rule: 'replay',
    prediction: { answer: 'same-job', jobId: 'job-a' },
  });
  expect(model.predict({ caller: 1, key: 0, body: canonicalJson({ a: [1, 3], b: 1 }) }).rule).toBe('conflict');
  // The same key is new for the second caller: its own job, whatever the first caller sent.
  expect(model.predict({ caller: 2, key: 0, body: canonicalJson({ z: 0 }) })).toEqual({
    rule: 'key-scope',
    prediction: { answer: 'new-job', notJobs: ['job-a'], otherCallersJob: 'job-a' },
  });
  model.markFinal(1, 0);
  expect(model.predict({ caller: 1, key: 0, body }).rule).toBe('after-final');
  expect(model.predict({ caller: 1, key: 7, body, burst: true }).rule).toBe('concurrent');
});

it('titles a mismatch by its rule and pointer, never by a jobId', () => {
  const conflict = { rule: 'conflict' as const, prediction: { answer: 'conflict' as const, jobId: 'job-a' }, pointer: '/evidence/0/kind' };
  expect(stepProblem(conflict, { status: 409, json: { code: 'idempotency_key_conflict' } })).toBeUndefined();
  expect(stepProblem(conflict, { status: 202, json: { jobId: 'job-a', status: 'QUEUED' } })?.title).toBe(
    'key reused with a change at /evidence/0/kind passed as a replay',
  );
  const scoped = { rule: 'key-scope' as const, prediction: { answer: 'new-job' as const, notJobs: ['job-a'], otherCallersJob: 'job-a' } };
  expect(stepProblem(scoped, { status: 202, json: { jobId: 'job-a' } })?.title).toBe(
    "the second caller's create under the first caller's Idempotency-Key answered the first caller's job",
  );
  expect(stepProblem(scoped, { status: 409, json: {} })?.title).toMatch(/answered 409, revealing the first caller's request$/);
  expect(stepProblem(scoped, { status: 202, json: { jobId: 'job-b' } })).toBeUndefined();
  const burst = {
    rule: 'concurrent' as const,
    prediction: { answer: 'new-job' as const, notJobs: [] },
    burst: { size: 5, jobIds: ['job-a', 'job-b'] },
  };
  expect(stepProblem(burst, { status: 202, json: { jobId: 'job-a' } })).toBeUndefined();
  expect(stepProblem(burst, { status: 202, json: { jobId: 'job-b' } })?.title).toBe('5 identical creates sent at once gave 2 jobs');
});

it('finds a small valid change at every pointer of the create example, objects and arrays included', async () => {
  const contract = await loadContract();
  const validator = new ResponseValidator(contract, { allErrors: false });
  const create = contract.operations.find((operation) => operation.operationId === 'createEvaluation')!;
  const schema = Object.values(create.requestBody!.content)[0]!;
  const body = Object.values(create.requestBody!.examples)[0]![0];
  const pointers = pointersOf(body);
  expect(pointers).toEqual(expect.arrayContaining(['/profile', '/evidence', '/evidence/0', '/evidence/0/kind', '/evidence/1/network']));
  for (const pointer of pointers) {
    const changed = changedAt({ body, pointer, schema, isValid: (candidate) => validator.validateSchema(schema, candidate).length === 0 });
    expect(changed, pointer).toBeDefined();
    expect(canonicalJson(changed), pointer).not.toBe(canonicalJson(body));
    // Only that pointer's subtree changed: every pointer outside it still holds the same value.
    for (const other of pointersOf(body).filter((candidate) => !candidate.startsWith(pointer) && !pointer.startsWith(candidate))) {
      const read = (value: unknown) =>
        other
          .split('/')
          .slice(1)
          .reduce<any>((current, segment) => current?.[segment], value);
      expect(read(changed), `${pointer} changed ${other}`).toEqual(read(body));
    }
  }
});

it('adds seeded extra steps before the last step of each question, the same for the same seed', () => {
  const options = { family: 'conflict-at-depth' as const, pointers: ['/a', '/b', '/c'], concurrency: 5 };
  const first = sequencesFor({ ...options, seed: 1 });
  expect(sequencesFor({ ...options, seed: 1 })).toEqual(first);
  expect(first.map((sequence) => sequence.core.length)).toEqual([2, 2, 2]);
  for (const sequence of first) expect(sequence.steps.at(-1)).toEqual(sequence.core.at(-1));
  const seeds = Array.from({ length: 10 }, (_, seed) => sequencesFor({ ...options, seed }));
  expect(seeds.some((sequences) => sequences.some((sequence) => sequence.steps.length > sequence.core.length))).toBe(true);
});

it('shrinks by dropping steps while the rerun fails the same way, and says when its budget stopped it', async () => {
  // The failure needs steps 'a' and 'c' before 'x'; everything else can go.
  const failsAt = (steps: readonly string[]) => (steps.includes('a') && steps.includes('c') ? steps.indexOf('x') : undefined);
  const steps = ['n1', 'a', 'n2', 'c', 'n3', 'x', 'after'];
  const shrunk = await shrinkSequence({
    steps,
    result: steps,
    failingIndex: (run: readonly string[]) => {
      const index = failsAt(run);
      return index === undefined || index < 0 ? undefined : index;
    },
    rerun: async (candidate) => ({ ran: candidate }),
  });
  expect(shrunk.steps).toEqual(['a', 'c', 'x']);
  expect(shrunk.stoppedEarly).toBeUndefined();
  let budget = 2;
  const stopped = await shrinkSequence({
    steps,
    result: steps,
    failingIndex: (run: readonly string[]) => {
      const index = failsAt(run);
      return index === undefined || index < 0 ? undefined : index;
    },
    rerun: async (candidate) => (budget-- > 0 ? { ran: candidate } : { stop: 'the budget ran out' }),
  });
  expect(stopped.stoppedEarly).toBe('the budget ran out');
  expect(stopped.reruns).toBe(2);
  expect(stopped.steps.length).toBeLessThan(6);
});

it('prints a failing sequence, shrunk, as numbered curl commands in every report', async () => {
  const { report, origin } = await runAgainst('key-forgotten-when-final', { checks: ['replay_after_job_final', 'idempotent_replay'] });
  const check = report.checks.find((candidate) => candidate.name === 'replay_after_job_final')!;
  expect(check.status).toBe('failed');
  const failure = check.failures[0]!;
  expect(failure.title).toBe('replay after the job was final answered another job');
  expect(failure.input).toMatch(
    /step 3 of the sequence 'replay after the job is final' \((shrunk from \d steps to 3 steps|no shorter sequence fails)/,
  );
  const sequence = failure.sequence!;
  expect(sequence).toHaveLength(3);
  expect(sequence[0]).toMatch(/^curl -i -X POST '.*\/v0\/evaluations' -H "Authorization: \$EH_AUTH" .*-H 'Idempotency-Key: eh-/);
  expect(sequence[1]).toMatch(/^curl -i -X GET '.*\/v0\/jobs\/job_\w+' .*# read \d+ times, until the job was COMPLETE or FAILED/);
  expect(sequence[2]).toBe(failure.curl);
  // The replay is the create again: same key, same body.
  expect(sequence[2]).toBe(sequence[0]);
  const summary = renderSummary(report);
  expect(summary).toContain(`     1. ${sequence[0]}`);
  expect(summary).toContain(`     3. ${sequence[2]}`);
  expect(
    JSON.parse(renderJson(report)).checks.find((candidate: { name: string }) => candidate.name === check.name).failures[0].sequence,
  ).toEqual(sequence);
  expect(renderHtml(report)).toMatch(/<ol><li><pre>curl -i -X POST [^<]*<\/pre><\/li><li><pre>curl -i -X GET/);
  expect(renderJunit(report)).toContain(`     2. ${sequence[1]!.replaceAll('"', '&quot;').replaceAll("'", '&#39;')}`);
  expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:/);
});

it('shrinks a race to the fewest identical creates that still make two jobs, written as one loop', async () => {
  const { report } = await runAgainst('concurrent-duplicates-race', { checks: ['concurrent_duplicates_one_job', 'idempotent_replay'] });
  const failure = report.checks.find((candidate) => candidate.name === 'concurrent_duplicates_one_job')!.failures[0]!;
  expect(failure.title).toBe('2 identical creates sent at once gave 2 jobs');
  // The first of the rounds fails; a seeded extra step before it is dropped too.
  expect(failure.input).toMatch(/shrunk from \d steps? \(\d+ requests\) to 1 step \(2 requests\)/);
  expect(failure.sequence).toEqual([expect.stringMatching(/^for i in \$\(seq 2\); do curl -i -X POST .* & done; wait$/)]);
});

it('reports one conflict per pointer inside evidence when the digest covers the top level only', async () => {
  const { report } = await runAgainst('digest-over-top-level-fields', { checks: ['idempotency_conflict'] });
  const failures = report.checks.find((candidate) => candidate.name === 'idempotency_conflict')!.failures;
  expect(failures.map((failure) => failure.title.replace(/^key reused with a change at (\S+) passed as a replay$/, '$1'))).toEqual([
    '/evidence',
    '/evidence/0',
    '/evidence/0/id',
    '/evidence/0/kind',
    '/evidence/0/digest',
    '/evidence/0/uri',
    '/evidence/1',
    '/evidence/1/id',
    '/evidence/1/kind',
    '/evidence/1/network',
    // The same items in another order are a change inside evidence too.
    'key reused with the items of /evidence in another order passed as a replay',
  ]);
  for (const failure of failures) {
    expect(failure.input).toMatch(/\((shrunk from \d steps to 2 steps|no shorter sequence fails) /);
    expect(failure.sequence).toHaveLength(2);
  }
});

it('says when shrinking stopped early, and shows the sequence as it was', async () => {
  // Just enough requests for the first failing sequence, none for a rerun of it.
  let stopped: string | undefined;
  for (let maxRequests = 14; maxRequests <= 40 && !stopped; maxRequests += 1) {
    const { report } = await runAgainst('digest-over-top-level-fields', { checks: ['idempotency_conflict'], maxRequests });
    const failure = report.checks[0]!.failures.find((candidate) => /shrinking stopped early/.test(candidate.input));
    if (failure) {
      stopped = failure.input;
      expect(failure.sequence!.length).toBeGreaterThanOrEqual(2);
      expect(report.requests).toBeLessThanOrEqual(maxRequests);
    }
  }
  expect(stopped).toMatch(/\(shrinking stopped early \(--max-requests is nearly used up\) at \d steps of \d, after 0 reruns, 0 requests\)/);
});

it('frees a key its refused create used: the corrected request under it is a new job (advisory)', async () => {
  const model = new IdempotencyModel();
  const refused = model.predict({ caller: 1, key: 0, body: canonicalJson({}), invalid: true });
  expect(refused).toEqual({ rule: 'refused', prediction: { answer: 'refused' } });
  model.observe({ caller: 1, key: 0, body: canonicalJson({}), prediction: refused.prediction });
  expect(model.predict({ caller: 1, key: 0, body: canonicalJson({ a: 1 }) }).rule).toBe('after-refusal');
  const { report } = await runAgainst('refused-request-keeps-key', { checks: ['refused_request_frees_key'] });
  const check = report.checks[0]!;
  expect(check.status).toBe('failed');
  expect(check.severity).toBe('advisory');
  expect(check.failures[0]!.title).toBe(
    'a valid create under a key whose only use was refused answered 409: the refused request kept the key',
  );
  const [invalid, valid] = check.failures[0]!.sequence!;
  expect(JSON.parse(/--data-binary '(.*)'$/.exec(invalid!)![1]!)).not.toHaveProperty('profile');
  expect(/Idempotency-Key: (eh-\w+)/.exec(valid!)![1]).toBe(/Idempotency-Key: (eh-\w+)/.exec(invalid!)![1]);
  const clean = await runAgainst(undefined, { checks: ['refused_request_frees_key'] });
  expect(clean.report.checks[0]!.status).toBe('passed');
});

it('never sends a burst past --max-requests, and counts what it could not send', async () => {
  const { report } = await runAgainst(undefined, { checks: ['concurrent_duplicates_one_job'], maxRequests: 4 });
  expect(report.requests).toBeLessThanOrEqual(4);
  expect(report.requestsNotSent).toBeGreaterThan(0);
  const check = report.checks.find((candidate) => candidate.name === 'concurrent_duplicates_one_job')!;
  expect(check.status).toBe('skipped');
  expect(check.note).toMatch(/not sent: --max-requests 4 was reached/);
});

it('sends the same sequences and prints the same failing one for the same seed and run id', async () => {
  const first = await runAgainst('keys-shared-between-callers', { checks: ['key_scoped_to_caller'] });
  const second = await runAgainst('keys-shared-between-callers', { checks: ['key_scoped_to_caller'] });
  const lines = (run: typeof first) =>
    run.report.checks[0]!.failures.flatMap((failure) => failure.sequence ?? []).map((line) => line.replaceAll(run.origin, 'ORIGIN'));
  expect(lines(first).length).toBeGreaterThan(1);
  expect(lines(second)).toEqual(lines(first));
});

it('takes every form of a key for a key of its own, and holds a key to its first request after a 409', () => {
  const model = new IdempotencyModel();
  const body = canonicalJson({ a: 1 });
  const first = model.predict({ caller: 1, key: 0, body });
  model.observe({ caller: 1, key: 0, body, prediction: first.prediction, jobId: 'job-a' });
  // The same key in upper case, with another body: a new job, not 409 and not job-a.
  expect(model.predict({ caller: 1, key: 0, keyForm: 'upper-case', body: canonicalJson({ a: 2 }) })).toEqual({
    rule: 'key-form',
    prediction: { answer: 'new-job', notJobs: ['job-a'], otherFormJob: 'job-a' },
  });
  const conflict = model.predict({ caller: 1, key: 0, body: canonicalJson({ a: 2 }) });
  expect(conflict.rule).toBe('conflict');
  model.observe({ caller: 1, key: 0, body: canonicalJson({ a: 2 }), prediction: conflict.prediction });
  // After the 409, the first request still replays its job, and the other body still conflicts.
  expect(model.predict({ caller: 1, key: 0, body })).toEqual({
    rule: 'after-conflict',
    prediction: { answer: 'same-job', jobId: 'job-a' },
  });
  expect(model.predict({ caller: 1, key: 0, body: canonicalJson({ a: 2 }) }).rule).toBe('after-conflict');
  expect(model.predict({ caller: 1, key: 5, body, burst: true, different: true }).rule).toBe('concurrent-conflict');
  const titles = {
    keyForm: stepProblem(
      { rule: 'key-form', keyForm: 'upper-case', prediction: { answer: 'new-job', notJobs: ['job-a'], otherFormJob: 'job-a' } },
      { status: 409, json: {} },
    )?.title,
    rebound: stepProblem({ rule: 'after-conflict', prediction: { answer: 'same-job', jobId: 'job-a' } }, { status: 409, json: {} })?.title,
    late: stepProblem(
      { rule: 'after-final', waitedMs: 2000, prediction: { answer: 'same-job', jobId: 'job-a' } },
      { status: 202, json: { jobId: 'job-b' } },
    )?.title,
    reordered: stepProblem(
      { rule: 'conflict', pointer: '/evidence', bodyForm: 'reordered', prediction: { answer: 'conflict', jobId: 'job-a' } },
      { status: 202, json: { jobId: 'job-a' } },
    )?.title,
  };
  expect(titles).toEqual({
    keyForm: 'an Idempotency-Key differing only by letter case from one already used answered 409: the two were taken for one key',
    rebound: 'the first request again after a 409 answered 409: the conflicting request took the key',
    late: 'replay 2 s after the job was final answered another job',
    reordered: 'key reused with the items of /evidence in another order passed as a replay',
  });
});

it('holds different bodies sent at once to one accepted, the others 409', () => {
  const base = { rule: 'concurrent-conflict' as const, prediction: { answer: 'new-job' as const, notJobs: [] } };
  const burst = (accepted: number, first: boolean) => ({ ...base, burst: { size: 3, jobIds: [], different: { accepted, first } } });
  expect(stepProblem(burst(1, true), { status: 202, json: { jobId: 'job-a' } })).toBeUndefined();
  expect(stepProblem(burst(1, false), { status: 409, json: {} })).toBeUndefined();
  expect(stepProblem(burst(2, false), { status: 202, json: { jobId: 'job-b' } })?.title).toBe(
    '2 of 3 different bodies sent at once under one new key were accepted',
  );
  expect(stepProblem(burst(0, false), { status: 409, json: {} })?.title).toBe(
    'none of 3 different bodies sent at once under one new key was accepted: every one answered 409 or failed',
  );
});

it('finds bodies that differ only in form: the evidence reversed, a free-text string in NFC and NFD', async () => {
  const contract = await loadContract();
  const validator = new ResponseValidator(contract, { allErrors: false });
  const create = contract.operations.find((operation) => operation.operationId === 'createEvaluation')!;
  const schema = Object.values(create.requestBody!.content)[0]!;
  const body = Object.values(create.requestBody!.examples)[0]![0] as { evidence: unknown[]; operationId: string };
  const isValid = (candidate: unknown) => validator.validateSchema(schema, candidate).length === 0;
  const { pairs, bodies } = bodyFormsOf({ body, schema, isValid });
  expect(pairs.map((pair) => [pair.pointer, pair.first, pair.second])).toEqual([
    ['/evidence', undefined, 'reordered'],
    ['/operationId', 'nfc', 'nfd'],
  ]);
  const reordered = bodies.get('reordered:/evidence') as typeof body;
  expect(reordered.evidence).toEqual([...body.evidence].reverse());
  const nfc = (bodies.get('nfc:/operationId') as typeof body).operationId;
  const nfd = (bodies.get('nfd:/operationId') as typeof body).operationId;
  // The same text once normalised, two different strings as parsed: two digests under A-5.
  expect(nfd.normalize('NFC')).toBe(nfc);
  expect(canonicalJson({ ...body, operationId: nfd })).not.toBe(canonicalJson({ ...body, operationId: nfc }));
  for (const candidate of bodies.values()) expect(isValid(candidate)).toBe(true);
});

it('sends each key form as header bytes, and its curl line sends the same bytes', () => {
  const key = 'eh-0123456789abcdef';
  expect(keyInForm(key, 'upper-case')).toBe('EH-0123456789ABCDEF');
  expect(Buffer.from(keyInForm(key, 'trailing-nbsp'), 'latin1')).toEqual(Buffer.from([...Buffer.from(key), 0xa0]));
  expect(Buffer.from(keyInForm(key, 'nfd'), 'latin1').toString('utf8')).toBe(`${key}-e\u0301`);
  for (const form of ['trailing-nbsp', 'utf8-nbsps', 'nfc', 'nfd', 'inner-spaces'] as const) {
    const value = keyInForm(key, form);
    const curl = toCurl({ method: 'POST', url: 'http://127.0.0.1/v0/evaluations', headers: { 'Idempotency-Key': value } });
    const argument = /-H (\$?'.*')$/.exec(curl)![1]!;
    // What the shell hands curl for that argument, byte for byte.
    const bytes = execFileSync('bash', ['-c', `printf '%s' ${argument}`]);
    expect(bytes, form).toEqual(Buffer.from(`Idempotency-Key: ${value}`, 'latin1'));
  }
});

it('releases a burst together: every request written but its last byte, then all at once', async () => {
  const ends: number[] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      ends.push(performance.now());
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new BoundedNodeClient({ maxSockets: 8 });
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const body = JSON.stringify({ padding: 'x'.repeat(2000) });
    const send = (at: number) =>
      at === 2
        ? Promise.resolve(undefined) // a request refused before the transport does not hold the others
        : client.request(
            { method: 'POST', url, headers: { 'content-type': 'application/json' }, body },
            { timeoutMs: runnerTimeoutMs, maxResponseBytes: 1024 },
          );
    const burst = await sendTogether(5, send);
    expect(burst.heldBack).toBe(4);
    expect(burst.results.filter((result) => result?.answer?.status === 200)).toHaveLength(4);
    // Held back (above), then let go in one release whose spread is measured; how close together
    // the last bytes went is a figure of the report and the bench, not a bound a busy machine keeps.
    expect(burst.spreadMs).toEqual(expect.any(Number));
    expect(ends).toHaveLength(4);
    // A retry of a request of the burst is not held back again (it would wait for nobody).
    const retry = await sendTogether(1, async () => {
      await client.request({ method: 'POST', url, headers: {}, body }, { timeoutMs: runnerTimeoutMs, maxResponseBytes: 1024 });
      return client.request({ method: 'POST', url, headers: {}, body }, { timeoutMs: runnerTimeoutMs, maxResponseBytes: 1024 });
    });
    expect(retry.heldBack).toBe(1);
  } finally {
    client.close();
    server.close();
  }
});

it('replays once more after --replay-wait, while the other phases go on, and catches a key forgotten 2 s after its job', async () => {
  const order: string[] = [];
  const { report } = await runAgainst('key-forgotten-2s-after-final', {
    checks: ['replay_after_job_final', 'undeclared_path_not_found'],
    onExchange: (exchange) => order.push(exchange.intent.kind === 'sequence-step' ? exchange.intent.description : exchange.intent.kind),
  });
  const failure = report.checks.find((check) => check.name === 'replay_after_job_final')!.failures[0]!;
  expect(failure.title).toBe('replay 2 s after the job was final answered another job');
  expect(failure.sequence!.some((line) => /; sleep 2( |$)/.test(line))).toBe(true);
  // The wait overlaps later phases: the undeclared path went before the late replay.
  expect(order.indexOf('undeclared-path')).toBeLessThan(order.findIndex((kind) => /2 s after its job was final/.test(kind)));
  const off = await runAgainst('key-forgotten-2s-after-final', { checks: ['replay_after_job_final'], replayWaitMs: 0 });
  expect(off.report.checks[0]!.status).toBe('passed');
  expect(off.report.settings.replayWaitMs).toBe(0);
  await expect(runAgainst(undefined, { replayWaitMs: 3_600_001 })).rejects.toThrow(/replayWaitMs must be whole milliseconds/);
});

it('reproduces different bodies sent at once as one line that sends them together', async () => {
  const { report } = await runAgainst('different-bodies-at-once-accepted', { checks: ['concurrent_bodies_one_accepted'] });
  const failure = report.checks[0]!.failures[0]!;
  expect(failure.title).toMatch(/^\d of \d different bodies sent at once under one new key were accepted$/);
  const together = failure.sequence!.at(-1)!;
  expect(together).toMatch(/^curl -i -X POST .* & curl -i -X POST .* & wait$/);
  const bodies = [...together.matchAll(/--data-binary '([^']*)'/g)].map((match) => match[1]);
  expect(new Set(bodies).size).toBe(bodies.length);
  expect(report.notes.join('\n')).toMatch(/went out together, each request written but for its last byte/);
});
