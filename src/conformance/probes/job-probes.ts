/**
 * @module conformance/probes/job-probes
 * Stateful request sequences for the contract's job and idempotency rules: create a job and
 * poll it to a final state, replay and conflict on an Idempotency-Key, read a job as another
 * caller, read an unknown job, and verify the documented verifyReport example. They find the
 * operations by the contract's operationIds (createEvaluation, getJob, verifyReport).
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { OperationDescription } from '../../openapi/document.js';
import { describeResponse, type Exchange, type JobObservation, quoted, unusableBecause } from '../exchange.js';
import { fullValidValue } from '../generators/mutations.js';
import { arbitraryFromSchema } from '../generators/schema-arbitrary.js';
import { retryAfterMs } from '../http/transport.js';
import { contractOperationIds } from './contract-operations.js';
import { requestExamples } from './data-probes.js';
import { deriveSeed, type ProbeContext } from './probe-context.js';
import { buildRequest, jsonBodySchema, parametersIn } from './request-builder.js';

const finalStatuses = new Set(['COMPLETE', 'FAILED']);
/** Reads of a job after its first final answer, to see that it stays final. */
const rereadsAfterFinal = 2;

function operation(context: ProbeContext, operationId: string): OperationDescription | undefined {
  const found = context.contract.operations.find((candidate) => candidate.operationId === operationId);
  if (!found) context.note(`the spec has no operation '${operationId}'; its stateful checks do not run`);
  return found;
}

/** The body stateful probes create jobs with: the first documented example, else a built one. */
function creationBody(create: OperationDescription): unknown {
  const schema = jsonBodySchema(create);
  return requestExamples(create)[0] ?? (schema ? fullValidValue(schema) : {});
}

function jobIdOf(exchange: Exchange | undefined): unknown {
  const response = exchange?.response;
  if (!response || response.status < 200 || response.status >= 300) return undefined;
  return (response.json as { jobId?: unknown } | undefined)?.jobId;
}

/**
 * Why a created jobId cannot be built on: it must be valid against the Job schema's jobId (a
 * string of 1 to 128 characters in the contract) before any request is built from it, so a
 * jobId of megabytes never reaches a URL, a title or a report.
 */
export function invalidJobId(context: Pick<ProbeContext, 'contract' | 'validator'>, jobId: string): string | undefined {
  const job = context.contract.schemas.Job as { properties?: Record<string, object> } | undefined;
  const schema = job?.properties?.jobId ?? { type: 'string', minLength: 1, maxLength: 128 };
  const problems = context.validator.validateSchema(schema, jobId);
  if (problems.length === 0) return undefined;
  return `a jobId not valid against the Job schema (${problems.map((problem) => problem.message).join('; ')}): ${quoted(jobId, 40)}`;
}

/** The job's status as an answer shows it; another job's answer shows nothing about this one. */
function observationOf(exchange: Exchange | undefined, jobId: string): JobObservation | undefined {
  if (!exchange?.response || exchange.response.status >= 300) return undefined;
  const job = exchange.response.json as { jobId?: unknown; status?: unknown; evaluation?: unknown } | undefined;
  if (typeof job?.status !== 'string' || job.jobId !== jobId) return undefined;
  return { status: job.status, ...(typeof job.evaluation === 'string' ? { evaluation: job.evaluation } : {}) };
}

/** Creates a job under a key named by `purpose`; resolves to the exchange and the new jobId. */
async function createJob(context: ProbeContext, create: OperationDescription, purpose: string, body: unknown) {
  const request = buildRequest({ operation: create, seed: context.seed, runId: context.runId, purpose, body: { value: body } });
  const exchange = await context.send(request, { kind: 'create', purpose });
  const found = jobIdOf(exchange);
  const invalid = typeof found === 'string' ? invalidJobId(context, found) : undefined;
  const jobId = typeof found === 'string' && !invalid ? found : undefined;
  if (exchange && invalid) context.note(`${purpose}: createEvaluation gave ${invalid}; the checks that build on it do not run`);
  else if (exchange && !jobId)
    context.note(
      `${purpose}: createEvaluation gave no jobId (${describeResponse(exchange).slice(0, 200)}); the checks that build on it do not run`,
    );
  return { exchange, jobId, request };
}

function readRequest(context: ProbeContext, read: OperationDescription, jobId: string, caller: 1 | 2 = 1) {
  const name = parametersIn(read, 'path')[0]?.name ?? 'jobId';
  return buildRequest({ operation: read, seed: context.seed, runId: context.runId, purpose: 'read', path: { [name]: jobId }, caller });
}

/** The jobId a 200 answer to a read of `jobId` carries when it is another job's. */
function anotherJobId(exchange: Exchange, jobId: string): string | undefined {
  if (exchange.response?.status !== 200 || exchange.response.incomplete) return undefined;
  const found = (exchange.response.json as { jobId?: unknown } | undefined)?.jobId;
  return typeof found === 'string' && found !== jobId ? found : undefined;
}

/**
 * Creates a job, reads it, and polls it with backoff until final (then reads it again). Returns
 * its jobId. Polls are recorded one step late, so the last one can say it is the last (its
 * `end`: final in time, out of time, or stopped for want of an answer or by another job's).
 * A poll still answered 429 is waited as its Retry-After asks, within --job-timeout.
 */
export async function lifecycleProbe(context: ProbeContext): Promise<string | undefined> {
  const create = operation(context, contractOperationIds.create);
  const read = operation(context, contractOperationIds.read);
  if (!create || !read) return undefined;
  const created = await createJob(context, create, 'lifecycle', creationBody(create));
  if (!created.jobId) {
    // The first read and at least one poll were planned on the job.
    if (!created.exchange) context.dependentsNotSent(2);
    return undefined;
  }
  const jobId = created.jobId;
  const history: JobObservation[] = [];
  const observe = (exchange: Exchange) => {
    const observation = observationOf(exchange, jobId);
    if (observation) history.push(observation);
  };
  let polls = 0;
  let rateLimitedPolls = 0;
  const isFinal = () => finalStatuses.has(history.at(-1)?.status ?? '');
  let pending: Exchange | undefined;
  const flush = () => {
    if (pending) context.record(pending);
    pending = undefined;
  };
  const poll = async () => {
    const exchange = await context.send(
      readRequest(context, read, jobId),
      { kind: 'poll', jobId, history: [...history] },
      { record: false },
    );
    if (!exchange) return undefined;
    flush();
    pending = exchange;
    polls += 1;
    if (exchange.rateLimited) rateLimitedPolls += 1;
    observe(exchange);
    return exchange;
  };
  const markEnd = (end: { reachedFinal: boolean; elapsedMs: number; stoppedBy?: string }) => {
    if (pending?.intent.kind === 'poll')
      pending = { ...pending, intent: { ...pending.intent, end: { ...end, timeoutMs: context.jobTimeoutMs, polls, rateLimitedPolls } } };
    flush();
  };
  if (created.exchange) observe(created.exchange);
  const first = await context.send(readRequest(context, read, jobId), { kind: 'read-created', jobId });
  if (!first) {
    context.dependentsNotSent(1); // at least one poll
    return jobId;
  }
  observe(first);
  const started = performance.now();
  let delay = 100;
  while (!isFinal()) {
    const elapsed = performance.now() - started;
    if (elapsed >= context.jobTimeoutMs) {
      if (!pending && !(await poll())) return jobId;
      markEnd({ reachedFinal: isFinal(), elapsedMs: performance.now() - started });
      return jobId;
    }
    await context.sleep(Math.min(delay, context.jobTimeoutMs - elapsed));
    delay = Math.min(delay * 1.5, 2000);
    const next = await poll();
    if (!next) {
      flush(); // stopped by the run (budget, interrupt, a limit): nothing to say about the job
      return jobId;
    }
    const unusable = unusableBecause(next);
    if (unusable) {
      markEnd({ reachedFinal: false, elapsedMs: performance.now() - started, stoppedBy: unusable });
      return jobId;
    }
    const other = anotherJobId(next, jobId);
    if (other !== undefined) {
      // Another job's status says nothing about this one: following it would judge the wrong job.
      markEnd({ reachedFinal: false, elapsedMs: performance.now() - started, stoppedBy: `the read answered job ${quoted(other)}` });
      return jobId;
    }
    // Rate limited: the next poll waits what the server asked (the wait is cut at --job-timeout).
    if (next.rateLimited) delay = Math.max(delay, retryAfterMs(next.response?.headers['retry-after']));
  }
  const reachedAt = performance.now() - started;
  let endMarked = pending !== undefined;
  markEnd({ reachedFinal: true, elapsedMs: reachedAt });
  for (let reread = 0; reread < rereadsAfterFinal; reread += 1) {
    if (!(await poll())) break;
    if (!endMarked) {
      markEnd({ reachedFinal: true, elapsedMs: reachedAt });
      endMarked = true;
    }
  }
  flush();
  return jobId;
}

/**
 * Creates a job under a new Idempotency-Key, with the same body as a job created under another
 * key (the lifecycle's, or one created here): the two must be two jobs.
 */
export async function distinctKeysProbe(context: ProbeContext, earlierJobId: string | undefined): Promise<void> {
  const create = operation(context, contractOperationIds.create);
  if (!create) return;
  const body = creationBody(create);
  let earlier = earlierJobId;
  if (earlier === undefined) {
    const created = await createJob(context, create, 'distinct-keys-first', body);
    if (!created.exchange) context.dependentsNotSent(1);
    earlier = created.jobId;
  }
  if (!earlier) return;
  const request = buildRequest({
    operation: create,
    seed: context.seed,
    runId: context.runId,
    purpose: 'distinct-keys',
    body: { value: body },
  });
  await context.send(request, { kind: 'create', purpose: 'distinct-keys', distinctFrom: earlier });
}

/** Reads the first caller's job with the second caller's credentials. */
export async function isolationProbe(context: ProbeContext, jobId: string | undefined): Promise<void> {
  if (!context.hasSecondCaller) {
    context.note('no --second-caller-header: second_caller_isolation does not run');
    return;
  }
  const read = operation(context, contractOperationIds.read);
  if (!read) return;
  if (!jobId) {
    context.note("second caller: no job to read (the job lifecycle's create gave no usable jobId)");
    return;
  }
  await context.send(readRequest(context, read, jobId, 2), { kind: 'second-caller', jobId });
}

/** Creates a job, then sends the same bytes with the same key. */
export async function replayProbe(context: ProbeContext): Promise<void> {
  const create = operation(context, contractOperationIds.create);
  if (!create) return;
  const created = await createJob(context, create, 'replay', creationBody(create));
  if (!created.jobId) {
    if (!created.exchange) context.dependentsNotSent(1);
    return;
  }
  await context.send(created.request, { kind: 'replay', jobId: created.jobId });
}

/** Reverses key order at every level: an equal value, serialised differently. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reordered(item)]),
  );
}

/** Creates a job, then sends an equal body re-serialised (keys reordered, indented) with the same key. */
export async function reserializedReplayProbe(context: ProbeContext): Promise<void> {
  const create = operation(context, contractOperationIds.create);
  if (!create) return;
  const body = creationBody(create);
  const created = await createJob(context, create, 'reserialized-replay', body);
  if (!created.jobId) {
    if (!created.exchange) context.dependentsNotSent(1);
    return;
  }
  await context.send(
    { ...created.request, body: `${JSON.stringify(reordered(body), null, 2)}\n` },
    { kind: 'reserialized-replay', jobId: created.jobId },
  );
}

/** A valid body that differs from `body`: another example, a built value, or a generated one. */
function anotherValidBody(context: ProbeContext, create: OperationDescription, body: unknown): unknown {
  const schema = jsonBodySchema(create);
  if (!schema) return undefined;
  const generated = fc.sample(arbitraryFromSchema(schema), { seed: deriveSeed(context.seed, 'conflict'), numRuns: 10 });
  return [...requestExamples(create), fullValidValue(schema), ...generated].find(
    (candidate) => !isDeepStrictEqual(candidate, body) && context.validator.validateSchema(schema, candidate).length === 0,
  );
}

/** Creates a job, then sends a different valid body with the same key. */
export async function conflictProbe(context: ProbeContext): Promise<void> {
  const create = operation(context, contractOperationIds.create);
  if (!create) return;
  const body = creationBody(create);
  const other = anotherValidBody(context, create, body);
  if (other === undefined) {
    context.note('no second valid body to reuse an Idempotency-Key with; idempotency_conflict does not run');
    return;
  }
  const created = await createJob(context, create, 'conflict', body);
  if (!created.jobId) {
    if (!created.exchange) context.dependentsNotSent(1);
    return;
  }
  await context.send({ ...created.request, body: JSON.stringify(other) }, { kind: 'conflict', jobId: created.jobId });
}

/** Reads a jobId no job has (derived from the seed). */
export async function unknownJobProbe(context: ProbeContext): Promise<void> {
  const read = operation(context, contractOperationIds.read);
  if (!read) return;
  const jobId = `job_${createHash('sha256').update(`unknown:${context.seed}`).digest('hex').slice(0, 26).toUpperCase()}`;
  await context.send(readRequest(context, read, jobId), { kind: 'unknown-job' });
}

/** Sends verifyReport's documented examples (or a built valid body when it has none). */
export async function verificationProbe(context: ProbeContext): Promise<void> {
  const verify = operation(context, contractOperationIds.verify);
  if (!verify) return;
  const schema = jsonBodySchema(verify);
  const examples = requestExamples(verify);
  const bodies = examples.length > 0 ? examples : schema ? [fullValidValue(schema)] : [];
  for (const [index, body] of bodies.entries()) {
    const request = buildRequest({
      operation: verify,
      seed: context.seed,
      runId: context.runId,
      purpose: `verification:${index}`,
      body: { value: body },
    });
    await context.send(request, {
      kind: 'verification-example',
      description: examples.length > 0 ? `request example ${index + 1}` : 'a built valid body',
    });
  }
}
