/**
 * @module engine/consumer-watch
 * What the engine learns about its consumer from the requests it answers: contract coverage
 * (coverage.ts) and the client judge's findings (client-findings/). The engine hands each call
 * to `begin` before answering and the answer to `end` after journalling it; both consumers see
 * one Observation built here. The MSW handlers and the node server run the same engine, so they
 * report the same coverage.
 */
import { evaluations, jobStatuses } from '../contract/index.js';
import { parseRetryAfter } from '../contract/retry-after.js';
import type { EngineAnswer, EngineCall } from './call.js';
import { anonymousCaller, callerFingerprint } from './caller.js';
import { type ClientFinding, ClientJudge } from './client-findings/judge.js';
import { type BehaviourCoverage, CoverageRecorder } from './coverage.js';
import type { JournalEntry } from './journal.js';
import { examplePathLength, type Observation } from './observation.js';
import { truncate } from './responses.js';
import type { OperationId } from './router.js';
import { sha256Hex } from './sha256.js';

type Mutable<T> = { -readonly [Key in keyof T]: T[Key] };

/** The document `control.coverage()` and `GET /__mock/coverage` give. */
export interface ConsumerReport {
  readonly behaviours: readonly BehaviourCoverage[];
  readonly covered: number;
  readonly total: number;
  readonly clientFindings: readonly ClientFinding[];
}

/** One call being answered: the call to answer it with, and what to do with its answer. */
export interface WatchedCall {
  readonly call: EngineCall;
  end(options: { entry: Omit<JournalEntry, 'seq'>; answer: EngineAnswer }): Promise<void>;
}

// Bytes decode one to one in windows-1252 (WHATWG maps its gaps to C1 controls), so equal
// digests of the decoded text mean equal bytes, invalid UTF-8 included.
const bytesAsText = new TextDecoder('windows-1252');

function jobOf(answer: EngineAnswer): Observation['job'] {
  if (answer.body === null) return undefined;
  try {
    const body = JSON.parse(answer.body) as { jobId?: unknown; status?: unknown; evaluation?: unknown };
    if (typeof body.jobId !== 'string' || !(jobStatuses as readonly unknown[]).includes(body.status)) return undefined;
    const evaluation = (evaluations as readonly unknown[]).includes(body.evaluation)
      ? { evaluation: body.evaluation as (typeof evaluations)[number] }
      : {};
    return { jobId: body.jobId, status: body.status as (typeof jobStatuses)[number], ...evaluation };
  } catch {
    return undefined;
  }
}

/** The answer's Retry-After in whole seconds, read as every other reader in the project reads it. */
function retryAfterOf(answer: EngineAnswer, answeredAt: number): number | undefined {
  const ms = parseRetryAfter(answer.headers['retry-after'], { now: answeredAt });
  return ms === undefined ? undefined : Math.ceil(ms / 1000);
}

export class ConsumerWatch {
  private readonly coverage = new CoverageRecorder();
  private readonly judge = new ClientJudge();

  /**
   * A call that remembers the body the engine reads, so a digest of it can be taken after the
   * answer without reading it twice. GET and HEAD have no body: they are passed through as is.
   */
  begin(call: EngineCall): WatchedCall {
    let body: Uint8Array | undefined;
    const method = call.method.toUpperCase();
    const watched: EngineCall =
      method === 'GET' || method === 'HEAD'
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
      end: async ({ entry, answer }) => {
        try {
          await this.observe({ call, entry, answer, body });
        } catch {
          // Coverage is an aid: a failure in it must never change an answer. It is awaited (a few
          // microseconds) so that coverage read right after an answer already counts it.
        }
      },
    };
  }

  private async observe(options: {
    call: EngineCall;
    entry: Omit<JournalEntry, 'seq'>;
    answer: EngineAnswer;
    body: Uint8Array | undefined;
  }): Promise<void> {
    const { call, entry, answer, body } = options;
    const operationId = entry.operationId as OperationId | undefined;
    const caller =
      operationId === undefined || operationId === 'health' ? anonymousCaller : await callerFingerprint(call.header('authorization'));
    const key = call.header('idempotency-key');
    const contentType = call.header('content-type');
    const retryAfterSeconds = retryAfterOf(answer, entry.time + entry.durationMs);
    const carriesJob = (operationId === 'createEvaluation' && answer.status === 202) || (operationId === 'getJob' && answer.status === 200);
    const job = carriesJob ? jobOf(answer) : undefined;
    const bodyDigest = body && body.byteLength > 0 ? await sha256Hex(bytesAsText.decode(body)) : undefined;
    // Built field by field rather than by spreads: this runs for every request the mock answers.
    const observation: Mutable<Observation> = {
      time: entry.time,
      endTime: entry.time + entry.durationMs,
      method: truncate(entry.method, 20),
      path: truncate(entry.path, examplePathLength),
      status: entry.status,
      forced: entry.forced,
      caller,
    };
    if (operationId !== undefined) observation.operationId = operationId;
    if (entry.code !== undefined) observation.code = entry.code;
    if (entry.forced && /\bcode\s*=/i.test(call.header('prefer') ?? '')) observation.asked = true;
    if (key !== null) observation.idempotencyKey = truncate(key, 128);
    if (contentType !== null) observation.contentType = truncate(contentType, 100);
    if (retryAfterSeconds !== undefined) observation.retryAfterSeconds = retryAfterSeconds;
    if (job !== undefined) observation.job = job;
    if (bodyDigest !== undefined) observation.bodyDigest = bodyDigest;
    this.coverage.observe(observation);
    this.judge.observe(observation);
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
  }
}
