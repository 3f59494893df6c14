/**
 * @module engine/operations
 * Stage 3, acting on state: one handler per operation of the contract. Each takes the request
 * already routed (and past any scenario fault) and returns the answer the contract allows.
 */
import type { EvaluationRequest, Job, VerificationRequest } from '../contract/index.js';
import { profiledTimeline } from '../profile/engine-profile.js';
import { readsRequestsItsOwnWay } from '../profile/engine-strictness.js';
import { profiledBodyLimit, shapesTimeline, timedTimeline } from '../profile/engine-timing.js';
import type { ServerProfile } from '../profile/profile.js';
import type { EngineAnswer, EngineCall } from './call.js';
import { requestDigest } from './canonical-json.js';
import type { Clock } from './clock.js';
import type { EngineContract } from './engine-contract.js';
import { afterRead, atTime, type JobRecord, jobView } from './jobs.js';
import { judgeRequest } from './judged-request.js';
import { newJobId, type Random } from './random.js';
import { readJsonBody, readJsonObject } from './request-body.js';
import { type EngineError, errorAnswer, jsonAnswer } from './responses.js';
import { isEngineError } from './router.js';
import { type Scenario, timelineFor } from './scenario.js';
import { sha256Hex } from './sha256.js';
import { type KeyValueStore, StoreUnavailableError } from './store.js';
import { type Diagnostic, describeDiagnostics, diagnose } from './validation.js';
import { type IssuerKeySet, verifyArtifact } from './verification/artifact-profile.js';

/** What an Idempotency-Key is bound to (docs/assumptions.md A-16). */
export interface IdempotencyRecord {
  readonly digest: string;
  readonly jobId: string;
}

export interface OperationContext {
  readonly call: EngineCall;
  readonly params: Readonly<Record<string, string>>;
  /** The caller's identity: a fingerprint of the Authorization header, 'anonymous' without one. */
  readonly caller: string;
  readonly scenario: Scenario;
  readonly clock: Clock;
  readonly random: Random;
  readonly jobs: KeyValueStore<JobRecord>;
  readonly idempotencyKeys: KeyValueStore<IdempotencyRecord>;
  /** Creates in progress in this engine by scoped key, so duplicates wait for the first (see createEvaluation). */
  readonly creating: Map<string, Promise<unknown>>;
  /** Reads of each job waiting in this engine (see getJob). */
  readonly reading: ReadQueues;
  readonly issuerKeys: IssuerKeySet;
  /** The contract served: validators and body limits (engine-contract.ts). */
  readonly contract: EngineContract;
  /** The server profile in force; its declared entries shape timelines, digests and the health body. */
  readonly profile: ServerProfile;
}

/** What an operation answered, with the jobId it concerned (for the journal). */
export interface OperationResult {
  readonly answer: EngineAnswer;
  readonly jobId?: string;
  /** The job a 202 of createEvaluation or a 200 of getJob carried, as the consumer watch sees it. */
  readonly job?: Job;
  readonly code?: string;
  /** The refusal answered, so the pipeline can answer its situation as a declared profile says. */
  readonly error?: EngineError;
  /** A create answered from its Idempotency-Key's first (a profile may mark it: A-16.replay-headers). */
  readonly replayed?: boolean;
}

function fail(error: EngineError): OperationResult {
  return { answer: errorAnswer(error), code: error.code, error };
}

/** An answer carrying a job: the job travels beside its JSON, so no one parses the answer again. */
function jobResult(status: 200 | 202, job: Job): OperationResult {
  return { answer: jsonAnswer({ status, body: job }), jobId: job.jobId, job };
}

const jobNotFoundMessage = 'No job with this jobId is available to this caller.';
const jobNotFound: EngineError = { status: 404, code: 'job_not_found', message: jobNotFoundMessage, situation: 'A-10.unknown-job' };
/** The same answer (no existence oracle, A-10), but its own situation for a profile. */
const othersJob: EngineError = { ...jobNotFound, situation: 'A-10.other-callers-job' };
const invalidJobId: EngineError = { ...jobNotFound, situation: 'A-23.invalid-job-id' };
/** A jobId over its maximum: its condition of A-23 (a profile may answer it apart, entry-parts.ts). */
const overlongJobId: EngineError = { ...invalidJobId, condition: 'maxLength' };

/**
 * The condition of a refusal (entry-parts.ts): the constraint its first diagnostic of the
 * refusal's kind breaks (over a maximum, or not), in the order the engine finds them.
 */
function conditionOf(diagnostics: readonly Diagnostic[], overMaximum: boolean): string | undefined {
  return diagnostics.find((diagnostic) => diagnostic.overMaximum === overMaximum)?.constraint;
}

// Built once: health's answer never changes, and answers are never mutated.
const healthy: OperationResult = { answer: jsonAnswer({ status: 200, body: { status: 'ok' } }) };

export async function health(context: OperationContext): Promise<OperationResult> {
  if (!context.profile.declared.has('A-9.health')) return healthy;
  return { answer: jsonAnswer({ status: 200, body: context.profile.entries['A-9.health'].body }) };
}

export async function createEvaluation(context: OperationContext): Promise<OperationResult> {
  const { profile } = context;
  const maxBodyBytes = profile.isDefault
    ? context.contract.createEvaluation.maxBodyBytes
    : profiledBodyLimit({ operationId: 'createEvaluation', profile, fallback: context.contract.createEvaluation.maxBodyBytes });
  // A profile may judge a request's problems in its own order, or be stricter.
  const judged = readsRequestsItsOwnWay(profile, 'createEvaluation')
    ? await judgeRequest({
        operationId: 'createEvaluation',
        call: context.call,
        profile,
        limit: { bytes: maxBodyBytes, status: 413 },
        overMaximumStatus: 413,
        body: context.contract.createEvaluation.body,
        key: context.contract.createEvaluation.idempotencyKey,
      })
    : undefined;
  const read = judged ?? (await readJsonBody(context.call, { bytes: maxBodyBytes, status: 413 }));
  if (isEngineError(read)) return fail(read);
  const body = read.value;
  const key = context.call.header('idempotency-key');
  const diagnostics = judged
    ? []
    : [
        ...(key === null
          ? [{ path: 'Idempotency-Key header', message: 'is required', overMaximum: false, constraint: 'required' }]
          : diagnose({ schema: context.contract.createEvaluation.idempotencyKey, value: key, prefix: 'Idempotency-Key header' })),
        ...diagnose({ schema: context.contract.createEvaluation.body, value: body }),
      ];
  if (diagnostics.length > 0) {
    const overMaximum = diagnostics.some((diagnostic) => diagnostic.overMaximum);
    const onlyKeyMissing = diagnostics.every((diagnostic) => diagnostic.path === 'Idempotency-Key header' && !diagnostic.overMaximum);
    const condition = conditionOf(diagnostics, overMaximum);
    return fail({
      status: overMaximum ? 413 : 400,
      code: overMaximum ? 'limit_exceeded' : onlyKeyMissing ? 'missing_idempotency_key' : 'invalid_request',
      message: describeDiagnostics(diagnostics),
      situation: overMaximum ? 'A-2.over-maximum' : onlyKeyMissing ? 'A-16.missing-key' : 'A-7.invalid-request',
      ...(condition ? { condition } : {}),
    });
  }
  const evaluation = body as EvaluationRequest;
  // Keys are scoped per caller; a newline cannot occur in a header value, so it separates.
  const scopedKey = `${context.caller}\n${key as string}`;
  // A profile may compare replays by their bytes: a re-serialised body is then another request.
  const digest =
    profile.entries['A-5.replay'].compare === 'raw-bytes' ? `raw:${await sha256Hex(read.text)}` : await requestDigest(evaluation);
  // Duplicates in this engine wait for the create before them, and then find its key bound:
  // racing, each would store a job (evicting the oldest of a full store) only to drop it.
  return oneAtATime({ pending: context.creating, key: scopedKey, work: () => createOnce({ context, evaluation, scopedKey, digest }) });
}

/** Runs `work` after every earlier work of the same key has settled. */
async function oneAtATime<T>(options: { pending: Map<string, Promise<unknown>>; key: string; work: () => Promise<T> }): Promise<T> {
  const { pending, key, work } = options;
  const before = pending.get(key);
  // After a store out of reach, those waiting get its 503 at once rather than each waiting out
  // a deadline of their own in turn; after any other failure, the next goes ahead.
  const mine = before
    ? before.then(work, (error: unknown) => (error instanceof StoreUnavailableError ? Promise.reject(error) : work()))
    : work();
  // Kept in the map with its outcome, so the next can tell an outage from another failure;
  // the handler here only keeps a rejection nobody else awaits from being reported as unhandled.
  mine.catch(() => undefined);
  pending.set(key, mine);
  try {
    return await mine;
  } finally {
    if (pending.get(key) === mine) pending.delete(key);
  }
}

async function createOnce(options: {
  context: OperationContext;
  evaluation: EvaluationRequest;
  scopedKey: string;
  digest: string;
}): Promise<OperationResult> {
  const { context, evaluation, scopedKey, digest } = options;
  // A replay is answered from what is stored, before a new job is made: storing one first
  // would evict the oldest job of a full store for a request that stores nothing.
  const bound = await context.idempotencyKeys.get(scopedKey);
  if (bound) {
    if (bound.value.digest !== digest) return conflict();
    const existing = await context.jobs.get(bound.value.jobId);
    if (existing) return replay(existing.value, context);
  }
  const now = context.clock.now();
  const timeline = await timelineFor({ scenario: context.scenario, request: evaluation });
  // A declared timeline shapes the scenario's: the states passed through, where a job starts.
  const planned =
    context.profile.declared.has('A-3.timeline') || context.profile.declared.has('A-4.evaluation')
      ? profiledTimeline(timeline, context.profile)
      : { steps: timeline, reached: -1 };
  // A declared progression or limitations times the steps and shapes their final bodies.
  const steps = shapesTimeline(context.profile) ? timedTimeline({ ...planned, profile: context.profile }) : planned.steps;
  const record: JobRecord = {
    jobId: newJobId(context.random),
    owner: context.caller,
    createdAt: now,
    scenario: context.scenario.name,
    timeline: steps,
    reached: planned.reached,
    reads: 0,
  };
  // The job is stored before the key points to it, so whoever finds the key finds its job
  // (with any store, networked ones included). Of concurrent duplicates (from other engines
  // sharing a networked store) exactly one claims the key; the others drop the job they
  // stored, which nobody has seen.
  await context.jobs.insertIfAbsent(record.jobId, record);
  const binding = await bindKey({ context, scopedKey, digest, jobId: record.jobId });
  if (binding === 'claimed') return jobResult(202, jobView(record));
  await context.jobs.delete(record.jobId);
  return binding === 'conflict' ? conflict() : replay(binding, context);
}

function conflict(): OperationResult {
  return fail({
    status: 409,
    code: 'idempotency_key_conflict',
    message: 'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
    situation: 'A-16.conflict',
  });
}

/** A replay shows the job as it is now (A-16, departure 3), as time alone has moved it. */
function replay(record: JobRecord, context: OperationContext): OperationResult {
  return { ...jobResult(202, jobView(atTime(record, context.clock.now()))), replayed: true };
}

/**
 * Binds the (caller-scoped) key to the new job, or finds what it is already bound to. A key
 * whose job expired or was evicted is rebound to the new job.
 */
async function bindKey(options: {
  context: OperationContext;
  scopedKey: string;
  digest: string;
  jobId: string;
}): Promise<'claimed' | 'conflict' | JobRecord> {
  const { context, scopedKey, digest, jobId } = options;
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const claim = await context.idempotencyKeys.insertIfAbsent(scopedKey, { digest, jobId });
    if (claim.inserted) return 'claimed';
    if (claim.entry.value.digest !== digest) return 'conflict';
    const existing = await context.jobs.get(claim.entry.value.jobId);
    if (existing) return existing.value;
    if (await context.idempotencyKeys.compareAndSet(scopedKey, claim.entry.version, { digest, jobId })) return 'claimed';
  }
  throw new Error('the idempotency key store kept changing under this request');
}

export async function getJob(context: OperationContext): Promise<OperationResult> {
  let jobId: string;
  try {
    jobId = decodeURIComponent(context.params.jobId ?? '');
  } catch {
    return fail(invalidJobId);
  }
  // An invalid jobId names no job: 404, the one rejection getJob documents.
  const checked = context.contract.getJob.jobId.safeParse(jobId);
  if (!checked.success) return fail(checked.error.issues.some((issue) => issue.code === 'too_big') ? overlongJobId : invalidJobId);
  // HEAD is safe: it shows the job as time has moved it, but does not count as a read.
  if (context.call.method.toUpperCase() === 'HEAD') {
    const entry = await context.jobs.get(jobId);
    if (!entry) return fail(jobNotFound);
    if (entry.value.owner !== context.caller) return fail(othersJob);
    return jobResult(200, jobView(atTime(entry.value, context.clock.now())));
  }
  return queueRead({ context, jobId });
}

/** A getJob waiting for its turn: the caller it reads as, and where its answer goes. */
interface QueuedRead {
  readonly caller: string;
  readonly resolve: (result: OperationResult) => void;
  readonly reject: (error: unknown) => void;
}

/** Reads of each job waiting in this engine, by jobId; an entry exists while its reads are applied. */
export type ReadQueues = Map<string, QueuedRead[]>;

/**
 * Reads of one job are applied in batches: every read that arrives while a batch is being
 * stored joins the next one, and a batch is one get and one compare-and-set whatever its size,
 * each read still counted once and answered with its own step. Concurrent reads each doing
 * their own compare-and-set mostly failed and retried: harmless in memory, but on a networked
 * store each retry is two more round trips (50 clients polling one job on Redis made 7% of the
 * in-memory throughput). Across replicas the compare-and-set still decides.
 */
function queueRead(options: { context: OperationContext; jobId: string }): Promise<OperationResult> {
  const { context, jobId } = options;
  return new Promise<OperationResult>((resolve, reject) => {
    const waiting = context.reading.get(jobId);
    if (waiting) {
      waiting.push({ caller: context.caller, resolve, reject });
      return;
    }
    context.reading.set(jobId, [{ caller: context.caller, resolve, reject }]);
    void drainReads({ context, jobId });
  });
}

async function drainReads(options: { context: OperationContext; jobId: string }): Promise<void> {
  const { context, jobId } = options;
  const waiting = context.reading.get(jobId)!;
  for (let batch = waiting.splice(0); batch.length > 0; batch = waiting.splice(0)) {
    try {
      const results = await applyReads({ context, jobId, callers: batch.map((read) => read.caller) });
      for (const [index, read] of batch.entries()) read.resolve(results[index]!);
    } catch (error) {
      for (const read of batch) read.reject(error);
      // The store out of reach: the reads waiting would each wait out their own deadline after
      // this one's; they get the same 503 now.
      if (error instanceof StoreUnavailableError) for (const read of waiting.splice(0)) read.reject(error);
    }
  }
  context.reading.delete(jobId);
}

/** The reads of `callers`, in order, as one change of the job: each counted once, atomically. */
async function applyReads(options: { context: OperationContext; jobId: string; callers: readonly string[] }): Promise<OperationResult[]> {
  const { context, jobId, callers } = options;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const entry = await context.jobs.get(jobId);
    if (!entry) return callers.map(() => fail(jobNotFound));
    let record = entry.value;
    const results = callers.map((caller): OperationResult => {
      // Another caller's job answers exactly like a missing one: no existence oracle.
      if (record.owner !== caller) return fail(othersJob);
      record = afterRead(record, context.clock.now());
      return jobResult(200, jobView(record));
    });
    if (record === entry.value) return results;
    if (await context.jobs.compareAndSet(jobId, entry.version, record)) return results;
  }
  // Another replica kept winning: answer what is stored, not counted as a read.
  const entry = await context.jobs.get(jobId);
  return callers.map((caller) =>
    !entry ? fail(jobNotFound) : entry.value.owner !== caller ? fail(othersJob) : jobResult(200, jobView(entry.value)),
  );
}

export async function verifyReport(context: OperationContext): Promise<OperationResult> {
  const { profile } = context;
  const maxBodyBytes = profile.isDefault
    ? context.contract.verifyReport.maxBodyBytes
    : profiledBodyLimit({ operationId: 'verifyReport', profile, fallback: context.contract.verifyReport.maxBodyBytes });
  const limit = { bytes: maxBodyBytes, status: 400 };
  const judged = readsRequestsItsOwnWay(profile, 'verifyReport')
    ? await judgeRequest({
        operationId: 'verifyReport',
        call: context.call,
        profile,
        limit,
        overMaximumStatus: 400,
        body: context.contract.verifyReport.body,
      })
    : undefined;
  const body = judged ? (isEngineError(judged) ? judged : judged.value) : await readJsonObject(context.call, limit);
  if (isEngineError(body)) return fail(body);
  const diagnostics = judged ? [] : diagnose({ schema: context.contract.verifyReport.body, value: body });
  if (diagnostics.length > 0) {
    // verifyReport has no 413: over-long input is a 400 whose code still says why.
    const overMaximum = diagnostics.some((diagnostic) => diagnostic.overMaximum);
    const condition = conditionOf(diagnostics, overMaximum);
    return fail({
      status: 400,
      code: overMaximum ? 'limit_exceeded' : 'invalid_request',
      message: describeDiagnostics(diagnostics),
      situation: overMaximum ? 'A-2.over-maximum' : 'A-7.invalid-request',
      ...(condition ? { condition } : {}),
    });
  }
  const result = await verifyArtifact({ request: body as VerificationRequest, keys: context.issuerKeys });
  return { answer: jsonAnswer({ status: 200, body: result }) };
}
