/**
 * @module engine/consumer-watch
 * What the engine learns about its consumer from the requests it answers: contract coverage
 * (coverage.ts) and the client judge's findings (client-findings/). The engine hands each call
 * to `begin` before answering and the answer to `end` after journalling it; both consumers see
 * one Observation built here. The pact recorder (pact/) keeps one example per distinct
 * behaviour from the same call, for `control.pact()`. The MSW handlers and the node server run
 * the same engine, so they report the same coverage and write the same pact.
 */

import { truncate } from '../contract/error-body.js';
import { type Evaluation, evaluations, type Job, jobStatuses } from '../contract/index.js';
import { parseRetryAfter } from '../contract/retry-after.js';
import { bodyDigest } from './body-digest.js';
import type { EngineAnswer, EngineCall } from './call.js';
import { anonymousCaller } from './caller.js';
import { type ClientFinding, ClientJudge } from './client-findings/judge.js';
import { type BehaviourCoverage, CoverageRecorder } from './coverage.js';
import type { EngineContract } from './engine-contract.js';
import type { JournalEntry } from './journal.js';
import { examplePathLength, type Observation } from './observation.js';
import { type PactParties, PactRecorder, type PactV4, pactParties, writePactDocument } from './pact/index.js';
import type { OperationId } from './router.js';

type Mutable<T> = { -readonly [Key in keyof T]: T[Key] };

/** The document `control.coverage()` and `GET /__mock/coverage` give. */
export interface ConsumerReport {
  readonly behaviours: readonly BehaviourCoverage[];
  readonly covered: number;
  readonly total: number;
  readonly clientFindings: readonly ClientFinding[];
}

/** What the engine knew when it answered, handed to the watch so that it derives nothing twice. */
export interface AnsweredCall {
  readonly entry: Omit<JournalEntry, 'seq'>;
  readonly answer: EngineAnswer;
  /** The caller's fingerprint the engine used; absent for calls never routed to an operation. */
  readonly caller?: string | undefined;
  /** The job the answer carried (createEvaluation's 202, getJob's 200). */
  readonly job?: Job | undefined;
}

/** One call being answered: the call to answer it with, and what to do with its answer. */
export interface WatchedCall {
  readonly call: EngineCall;
  /** Synchronous, so that coverage read right after an answer already counts it. */
  end(answered: AnsweredCall): void;
}

function jobOf(job: Job | undefined): Observation['job'] {
  // A job pinned through the control API is taken as given: only the contract's states count.
  if (job === undefined || !(jobStatuses as readonly unknown[]).includes(job.status)) return undefined;
  return (evaluations as readonly unknown[]).includes(job.evaluation)
    ? { jobId: job.jobId, status: job.status, evaluation: job.evaluation as Evaluation }
    : { jobId: job.jobId, status: job.status };
}

/** The answer's Retry-After in whole seconds, read as every other reader in the project reads it. */
function retryAfterOf(answer: EngineAnswer, answeredAt: number): number | undefined {
  const header = answer.headers['retry-after'];
  if (header === undefined) return undefined;
  const ms = parseRetryAfter(header, { now: answeredAt });
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

export class ConsumerWatch {
  private readonly coverage = new CoverageRecorder();
  private readonly judge = new ClientJudge();
  private readonly pactRecorder = new PactRecorder();

  /**
   * A call that remembers the body the engine reads, so a digest of it can be taken after the
   * answer without reading it twice. GET and HEAD have no body: they are passed through as is.
   */
  begin(call: EngineCall): WatchedCall {
    let body: Uint8Array | undefined;
    const method = call.method;
    const watched: EngineCall =
      method === 'GET' || method === 'HEAD' || method === 'get' || method === 'head'
        ? call
        : {
            method: call.method,
            pathname: call.pathname,
            header: (name) => call.header(name),
            readBody: async (limit) => {
              const bytes = await call.readBody(limit);
              if (bytes instanceof Uint8Array) body = bytes;
              return bytes;
            },
            discardBody: () => call.discardBody(),
          };
    return {
      call: watched,
      end: (answered) => {
        try {
          this.observe(call, answered, body);
        } catch {
          // Coverage is an aid: a failure in it must never change an answer.
        }
      },
    };
  }

  private observe(call: EngineCall, answered: AnsweredCall, body: Uint8Array | undefined): void {
    const { entry, answer } = answered;
    const operationId = entry.operationId as OperationId | undefined;
    const endTime = entry.time + entry.durationMs;
    // Built field by field rather than by spreads: this runs for every request the mock answers.
    const observation: Mutable<Observation> = {
      time: entry.time,
      endTime,
      method: truncate(entry.method, 20),
      path: truncate(entry.path, examplePathLength),
      status: entry.status,
      forced: entry.forced,
      caller: operationId === undefined ? anonymousCaller : (answered.caller ?? anonymousCaller),
    };
    if (operationId !== undefined) observation.operationId = operationId;
    if (entry.code !== undefined) observation.code = entry.code;
    if (entry.forced && /\bcode\s*=/i.test(call.header('prefer') ?? '')) observation.asked = true;
    const key = call.header('idempotency-key');
    if (key !== null) observation.idempotencyKey = truncate(key, 128);
    const contentType = call.header('content-type');
    if (contentType !== null) observation.contentType = truncate(contentType, 100);
    const retryAfterSeconds = retryAfterOf(answer, endTime);
    if (retryAfterSeconds !== undefined) observation.retryAfterSeconds = retryAfterSeconds;
    const carriesJob = (operationId === 'createEvaluation' && answer.status === 202) || (operationId === 'getJob' && answer.status === 200);
    const job = carriesJob ? jobOf(answered.job) : undefined;
    if (job !== undefined) observation.job = job;
    if (body !== undefined && body.byteLength > 0) observation.bodyDigest = bodyDigest(body);
    const mark = this.coverage.observe(observation);
    this.judge.observe(observation);
    this.pactRecorder.observe(call, entry, answer, answered.job, body, mark);
  }

  /** The Pact V4 document of the behaviours answered so far; throws a TypeError for a party name it cannot use. */
  pact(options: { parties?: Partial<PactParties> | undefined; contract: EngineContract }): PactV4 {
    return writePactDocument({
      exchanges: this.pactRecorder.recorded(),
      leftOut: this.pactRecorder.leftOut,
      parties: pactParties(options.parties),
      contract: options.contract,
      scrubber: this.pactRecorder.scrubberForPact(),
    });
  }

  report(): ConsumerReport {
    const behaviours = this.coverage.behaviours();
    return {
      behaviours,
      covered: behaviours.filter((behaviour) => behaviour.covered).length,
      total: behaviours.length,
      clientFindings: this.judge.findings(),
    };
  }

  /**
   * After a reset of the mock: coverage and findings stay (A-26), but what was remembered about
   * jobs and recent requests goes with the jobs, so a seeded mock giving the same job ids again
   * is not taken for replays, other callers' jobs or fast polls.
   */
  afterReset(): void {
    this.coverage.forgetJobs();
    this.judge.forgetRequests();
  }

  clear(): void {
    this.coverage.clear();
    this.judge.clear();
    this.pactRecorder.clear();
  }
}
