/**
 * @module bench/groups/stages
 * The engine's pipeline in-process, no HTTP: `engine.answerCall` per request against each of
 * its stages called alone with the same inputs (tinybench loops, µs per call). What the stages
 * do not account for (awaits, the operation's own glue, the job's read queue) is the remainder.
 * The HTTP edge and the log line are the throughput group's (CPU per request over HTTP).
 */
import { Bench } from 'tinybench';
import { bodyLimits, EvaluationRequest, IdempotencyKey, type Job, VerificationRequest } from '../../src/contract/index.js';
import type { EngineAnswer, EngineCall } from '../../src/engine/call.js';
import { canonicalJson } from '../../src/engine/canonical-json.js';
import { ConsumerWatch } from '../../src/engine/consumer-watch.js';
import { bundledEngineContract } from '../../src/engine/engine-contract.js';
import { FaultInjector } from '../../src/engine/faults.js';
import {
  createMockEngine,
  defaultLimits,
  defaultTimeline,
  type IdempotencyRecord,
  MemoryStore,
  requestDigest,
  systemClock,
  testKeySet,
  verifyArtifact,
} from '../../src/engine/index.js';
import { type JobRecord, jobView } from '../../src/engine/jobs.js';
import { Journal, type JournalEntry } from '../../src/engine/journal.js';
import { createRandom, newJobId } from '../../src/engine/random.js';
import { readJsonObject } from '../../src/engine/request-body.js';
import { jsonAnswer } from '../../src/engine/responses.js';
import { matchRoute } from '../../src/engine/router.js';
import { parseScenario } from '../../src/engine/scenario.js';
import { idempotencyRecordBytes, jobRecordBytes } from '../../src/engine/sizes.js';
import { diagnose } from '../../src/engine/validation.js';
import type { BenchOptions } from '../config.js';
import { type GroupResult, num } from '../figures.js';
import { evaluationBody, freshKey, verificationBody, type WorkloadName, workloadNames } from '../load.js';

/** Calls per timed sample: sub-microsecond stages would otherwise measure the timer. */
const batch = 50;

function callOf(method: string, pathname: string, headers: Record<string, string>, body?: string): EngineCall {
  const bytes = new TextEncoder().encode(body ?? '');
  return {
    method,
    pathname,
    header: (name) => headers[name] ?? null,
    readBody: async (limit) => (bytes.byteLength > limit ? 'too_large' : bytes),
    discardBody: () => undefined,
  };
}

const postJson = (path: string, body: string, key?: string) =>
  callOf('POST', path, { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) }, body);

export async function runStages(options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  const bench = new Bench({ time: options.quick ? 30 : 500, warmupTime: options.quick ? 10 : 150 });
  const verifyText = await verificationBody();
  const verifyRequest = JSON.parse(verifyText) as { artifact: string };
  const evaluation = JSON.parse(evaluationBody) as unknown;
  const engine = createMockEngine();
  const answer = (call: EngineCall) => engine.answerCall!(call);
  const created = JSON.parse((await answer(postJson('/v0/evaluations', evaluationBody, freshKey()))).body ?? '{}') as { jobId: string };
  const jobPath = `/v0/jobs/${created.jobId}`;
  const calls: Record<WorkloadName, () => EngineCall> = {
    health: () => callOf('GET', '/health', {}),
    getJob: () => callOf('GET', jobPath, {}),
    createEvaluation: () => postJson('/v0/evaluations', evaluationBody, freshKey()),
    verifyReport: () => postJson('/v0/verifications', verifyText),
  };
  // Answers as the engine gives them, for the stages that take one.
  const answers = {} as Record<WorkloadName, EngineAnswer>;
  for (const name of workloadNames) answers[name] = await answer(calls[name]());

  const add = (id: string, run: () => unknown) =>
    bench.add(id, async () => {
      for (let index = 0; index < batch; index += 1) await run();
    });
  for (const name of workloadNames) add(`pipeline ${name}`, () => answer(calls[name]()));
  add('route', () => matchRoute({ method: 'GET', path: jobPath, routes: bundledEngineContract.routes }));
  const scenario = parseScenario({ value: { name: 'default' }, source: 'bench' });
  const faults = new FaultInjector({ random: createRandom() });
  add('scenario and faults', () => faults.decide({ scenario, operationId: 'getJob' }));
  add('read and validate createEvaluation', async () => {
    const call = postJson('/v0/evaluations', evaluationBody, 'key');
    const body = await readJsonObject(call, { bytes: bodyLimits.createEvaluationBytes, status: 413 });
    diagnose({ schema: IdempotencyKey, value: call.header('idempotency-key') });
    return diagnose({ schema: EvaluationRequest, value: body });
  });
  add('read and validate verifyReport', async () => {
    const body = await readJsonObject(postJson('/v0/verifications', verifyText), { bytes: bodyLimits.verifyReportBytes, status: 400 });
    return diagnose({ schema: VerificationRequest, value: body });
  });
  add('idempotency digest', () => requestDigest(evaluation));
  const store = <T>(sizeOf: (key: string, value: T) => number, maxEntries: number) =>
    new MemoryStore<T>({ clock: systemClock, maxEntries, ttlMs: defaultLimits.jobTtlMs, maxBytes: 2 ** 27, sizeOf });
  const jobs = store<JobRecord>(jobRecordBytes, defaultLimits.maxJobs);
  const keys = store<IdempotencyRecord>(idempotencyRecordBytes, defaultLimits.maxIdempotencyKeys);
  const random = createRandom();
  const recordOf = (jobId: string): JobRecord => ({
    jobId,
    owner: 'anonymous',
    createdAt: Date.now(),
    scenario: 'default',
    timeline: defaultTimeline,
    reached: -1,
    reads: 0,
  });
  add('store createEvaluation', async () => {
    const key = `anonymous\n${freshKey()}`;
    const jobId = newJobId(random);
    await keys.get(key);
    await jobs.insertIfAbsent(jobId, recordOf(jobId));
    return keys.insertIfAbsent(key, { digest: 'd', jobId });
  });
  // Its own store: the create loop above fills the other to its bound and evicts the oldest.
  const reads = store<JobRecord>(jobRecordBytes, defaultLimits.maxJobs);
  const readId = newJobId(random);
  await reads.insertIfAbsent(readId, recordOf(readId));
  add('store getJob', async () => {
    const entry = (await reads.get(readId))!;
    return reads.compareAndSet(readId, entry.version, { ...entry.value, reads: entry.value.reads + 1 });
  });
  const job = jobView(recordOf(readId));
  add('respond (job)', () => jsonAnswer({ status: 200, body: job }));
  const verified = await verifyArtifact({ request: verifyRequest as never, keys: testKeySet });
  add('respond (verification)', () => jsonAnswer({ status: 200, body: verified }));
  add('Ed25519 verification (verifyArtifact)', () => verifyArtifact({ request: verifyRequest as never, keys: testKeySet }));
  // A cache of verified artifacts keyed by their text: each request's artifact is a new string, hashed afresh.
  const cache = new Map([[verifyRequest.artifact, verified]]);
  const artifact = verifyRequest.artifact;
  add('verified-artifact cache lookup', () => cache.get(artifact.slice(0, -1) + artifact.slice(-1)));
  add('canonical JSON of an artifact request', () => canonicalJson(verifyRequest));
  const journal = new Journal({ capacity: 1000, maxBytes: defaultLimits.maxJournalBytes });
  const entryOf = (name: WorkloadName): Omit<JournalEntry, 'seq'> => ({
    time: Date.now(),
    method: calls[name]().method,
    path: calls[name]().pathname,
    status: answers[name].status,
    durationMs: 0.1,
    operationId: name,
    scenario: 'default',
    forced: false,
    ...(name === 'createEvaluation' || name === 'getJob' ? { jobId: created.jobId } : {}),
  });
  const getJobEntry = entryOf('getJob');
  add('journal', () => journal.record(getJobEntry));
  for (const name of workloadNames) {
    const watch = new ConsumerWatch();
    const entry = entryOf(name);
    // What the engine hands the watch beside the answer: the caller it fingerprinted, the job it answered with.
    const job = name === 'createEvaluation' || name === 'getJob' ? (JSON.parse(answers[name].body ?? '{}') as Job) : undefined;
    add(`consumer watch ${name}`, async () => {
      const watched = watch.begin(calls[name]());
      if (name === 'createEvaluation' || name === 'verifyReport') await watched.call.readBody(1 << 20);
      return watched.end({ entry, answer: answers[name], caller: 'anonymous', job });
    });
  }
  progress(`stages: ${bench.tasks.length} loops of ${bench.time} ms`);
  await bench.warmup();
  await bench.run();
  const us = new Map(bench.tasks.map((task) => [task.name, ((task.result?.mean ?? Number.NaN) * 1000) / batch]));
  const rme = new Map(bench.tasks.map((task) => [task.name, task.result?.rme ?? Number.NaN]));
  return tabulate(us, rme);
}

type Cells = Partial<Record<WorkloadName, number>>;

function tabulate(us: Map<string, number>, rme: Map<string, number>): GroupResult {
  const stage = (id: string) => us.get(id) ?? Number.NaN;
  const each = (id: (name: WorkloadName) => string): Cells => Object.fromEntries(workloadNames.map((name) => [name, stage(id(name))]));
  const pick = (ids: Partial<Record<WorkloadName, string>>): Cells =>
    Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, stage(id)]));
  // Which stages each request runs, by the engine's pipeline (engine.ts, operations.ts).
  const stages: [string, Cells][] = [
    ['route', each(() => 'route')],
    ['scenario and faults', each(() => 'scenario and faults')],
    ['read and validate', pick({ createEvaluation: 'read and validate createEvaluation', verifyReport: 'read and validate verifyReport' })],
    ['idempotency digest', pick({ createEvaluation: 'idempotency digest' })],
    ['store', pick({ getJob: 'store getJob', createEvaluation: 'store createEvaluation' })],
    ['Ed25519 verification', pick({ verifyReport: 'Ed25519 verification (verifyArtifact)' })],
    ['respond', pick({ getJob: 'respond (job)', createEvaluation: 'respond (job)', verifyReport: 'respond (verification)' })],
    ['journal', each(() => 'journal')],
    ['consumer watch', each((name) => `consumer watch ${name}`)],
  ];
  const pipeline = each((name) => `pipeline ${name}`);
  const remainder = Object.fromEntries(
    workloadNames.map((name) => [name, pipeline[name]! - stages.reduce((sum, [, cells]) => sum + (cells[name] ?? 0), 0)]),
  );
  const figures: Record<string, number> = {
    'stages.verifyReport.verifyUs': stage('Ed25519 verification (verifyArtifact)'),
    'stages.verifyReport.cacheLookupUs': stage('verified-artifact cache lookup'),
  };
  for (const name of workloadNames) {
    figures[`stages.${name}.pipelineUs`] = pipeline[name]!;
    figures[`stages.${name}.consumerWatchShare`] = stage(`consumer watch ${name}`) / pipeline[name]!;
    for (const [label, cells] of stages)
      if (cells[name] !== undefined) figures[`stages.${name}.${label.replaceAll(' ', '-')}Us`] = cells[name];
  }
  const row = (label: string, cells: Cells) => [label, ...workloadNames.map((name) => num(cells[name]))];
  const widest = Math.max(...[...rme.values()].filter(Number.isFinite));
  return {
    group: 'stages',
    figures,
    tables: {
      stages: {
        headers: ['Stage (µs per request, in-process)', ...workloadNames],
        rows: [
          ...stages.map(([label, cells]) => row(label, cells)),
          row('remainder (awaits, glue, read queue)', remainder),
          row('**whole pipeline** (`engine.answerCall`)', pipeline),
        ],
        note: `tinybench, ${batch} calls per sample; the widest relative margin of error was ±${num(widest, '%')}.`,
      },
      'stages.verify': {
        headers: ['Step', 'µs per call'],
        rows: [
          ['verifyArtifact (Ed25519 signature, claims, expectations)', num(stage('Ed25519 verification (verifyArtifact)'))],
          ['a Map lookup of the artifact text (a cache of verified artifacts)', num(stage('verified-artifact cache lookup'))],
          ['canonical JSON of the request (a cache keyed by its digest)', num(stage('canonical JSON of an artifact request'))],
          ['whole verifyReport pipeline', num(pipeline.verifyReport)],
        ],
      },
    },
  };
}
