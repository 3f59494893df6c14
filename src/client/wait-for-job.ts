/**
 * @module client/wait-for-job
 * Polls a job until it reaches a final state (COMPLETE or FAILED): exponential backoff between
 * polls, the server's Retry-After on 429 and 503, and a deadline. Every way it gives up is a
 * WaitForJobError whose `kind` says why, so callers branch on a value, not on a message.
 */
import { parseRetryAfter } from '../contract/retry-after.js';
import type { EvidenceClient } from './evidence-client.js';
import { type PollClock, realClock } from './poll-clock.js';
import { retryableStatuses } from './retryable.js';
import { type ApiError, isFinalStatus, type Job } from './types.js';

/** The shortest last wait: a poll sooner than this after the one before is not made. */
const finalPollMinimumMs = 100;
export type WaitForJobErrorKind =
  /** The job was not final when the deadline came (or the server asked to wait past it). */
  | 'timeout'
  /** `signal` aborted. */
  | 'aborted'
  /** getJob answered 404: no such job for this caller. */
  | 'not_found'
  /** getJob answered a status that polling again would not fix (400, 500, …). */
  | 'unexpected_response'
  /** The request itself failed (network error, CORS, a fetch that threw). */
  | 'request_failed';

/** Why waitForJob stopped without a final job. */
export class WaitForJobError extends Error {
  override readonly name = 'WaitForJobError';
  readonly kind: WaitForJobErrorKind;
  readonly jobId: string;
  /** How many times getJob was called. */
  readonly attempts: number;
  /** The last state read, when any poll succeeded. */
  readonly lastJob?: Job;
  /** The HTTP status of the answer that ended the wait (not_found, unexpected_response). */
  readonly status?: number;
  /** That answer's Error body, when it had one. */
  readonly body?: ApiError;

  constructor(options: {
    kind: WaitForJobErrorKind;
    message: string;
    jobId: string;
    attempts: number;
    lastJob?: Job | undefined;
    status?: number;
    body?: ApiError | undefined;
    cause?: unknown;
  }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options.kind;
    this.jobId = options.jobId;
    this.attempts = options.attempts;
    if (options.lastJob) this.lastJob = options.lastJob;
    if (options.status !== undefined) this.status = options.status;
    if (options.body) this.body = options.body;
  }
}

/** What one poll saw, given to `onPoll`. */
export interface PollEvent {
  /** 1 for the first poll. */
  readonly attempt: number;
  /** The HTTP status getJob answered. */
  readonly status: number;
  /** The job, when getJob answered 200. */
  readonly job?: Job;
  /** The Error body, when getJob answered an error. */
  readonly error?: ApiError;
  /** The Retry-After the answer carried, in milliseconds. */
  readonly retryAfterMs?: number;
  /** How long waitForJob waits before the next poll; absent when this poll ends the wait. */
  readonly nextPollInMs?: number;
  /** Time since waitForJob started, on its clock. */
  readonly elapsedMs: number;
}

export interface WaitForJobOptions {
  /** Give up when the job is not final this many milliseconds after the start. */
  readonly timeoutMs: number;
  /** Stops the wait, and any request in flight. */
  readonly signal?: AbortSignal;
  /** The wait after the first poll; each later wait doubles. Default 250. */
  readonly initialDelayMs?: number;
  /**
   * The longest wait between polls (a Retry-After may ask for longer and is honoured). Default
   * 5000. Below 5000, a slow job's polls settle at a steady pace under the mock's backoff
   * ceiling, which its client judge reports as `poll_without_backoff` (docs/client-findings.md).
   */
  readonly maxDelayMs?: number;
  /** Called after every poll, before waiting; for progress displays and logs. */
  readonly onPoll?: (event: PollEvent) => void;
  /** The time to poll by. Default: real time. Tests pass a virtual clock so nothing sleeps. */
  readonly clock?: PollClock;
}

function checkOptions(options: WaitForJobOptions): { initialDelayMs: number; maxDelayMs: number } {
  const { timeoutMs, initialDelayMs = 250, maxDelayMs = 5000 } = options;
  if (!(timeoutMs >= 0) || !Number.isFinite(timeoutMs))
    throw new RangeError(`waitForJob: timeoutMs must be a finite number ≥ 0, got ${timeoutMs}`);
  if (!(initialDelayMs > 0)) throw new RangeError(`waitForJob: initialDelayMs must be > 0, got ${initialDelayMs}`);
  if (!(maxDelayMs >= initialDelayMs)) {
    throw new RangeError(`waitForJob: maxDelayMs (${maxDelayMs}) must be at least initialDelayMs (${initialDelayMs})`);
  }
  return { initialDelayMs, maxDelayMs };
}

/**
 * Polls `GET /v0/jobs/{jobId}` until the job is COMPLETE or FAILED and returns it (a FAILED
 * job is a result, not an error). The first poll is immediate; no poll starts after the
 * deadline. Throws WaitForJobError on a timeout, an abort, a 404, any other answer that
 * polling again would not fix, or a failed request.
 *
 * @example
 * const job = await waitForJob(client, jobId, { timeoutMs: 30_000, onPoll: ({ job }) => console.log(job?.status) });
 * if (job.status === 'COMPLETE') console.log(job.evaluation);
 */
export async function waitForJob(client: EvidenceClient, jobId: string, options: WaitForJobOptions): Promise<Job> {
  const { initialDelayMs, maxDelayMs } = checkOptions(options);
  const { timeoutMs, signal, onPoll } = options;
  const clock = options.clock ?? realClock;
  const started = clock.now();
  const deadline = started + timeoutMs;
  let backoff = initialDelayMs;
  let attempts = 0;
  let lastJob: Job | undefined;

  const fail = (kind: WaitForJobErrorKind, message: string, extra: { status?: number; body?: ApiError; cause?: unknown } = {}) =>
    new WaitForJobError({ kind, message: `waitForJob: ${message}`, jobId, attempts, lastJob, ...extra });
  const aborted = () => fail('aborted', `stopped waiting for job '${jobId}': the signal aborted`, { cause: signal?.reason });
  const stillAt = () => (lastJob ? `still ${lastJob.status}` : 'not read successfully');

  for (;;) {
    if (signal?.aborted) throw aborted();
    attempts += 1;
    let outcome: Awaited<ReturnType<typeof getJob>>;
    try {
      outcome = await getJob(client, jobId, signal);
    } catch (error) {
      if (signal?.aborted) throw aborted();
      throw fail('request_failed', `could not read job '${jobId}': ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
    const { data, error, response } = outcome;
    const elapsedMs = clock.now() - started;

    let wait = backoff;
    let retryAfterMs: number | undefined;
    if (data) {
      lastJob = data;
      if (isFinalStatus(data.status)) {
        onPoll?.({ attempt: attempts, status: response.status, job: data, elapsedMs });
        return data;
      }
    } else if (retryableStatuses.includes(response.status)) {
      retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), { now: clock.now() });
      // The server knows its load better than our backoff does.
      if (retryAfterMs !== undefined) wait = retryAfterMs;
    } else {
      onPoll?.({ attempt: attempts, status: response.status, ...(error ? { error } : {}), elapsedMs });
      const detail = error?.message ? `: ${error.code} — ${error.message}` : '';
      if (response.status === 404) {
        throw fail('not_found', `job '${jobId}' is not available to this caller (404${detail})`, { status: 404, body: error });
      }
      throw fail('unexpected_response', `reading job '${jobId}' answered ${response.status}${detail}`, {
        status: response.status,
        body: error,
      });
    }
    backoff = Math.min(backoff * 2, maxDelayMs);

    const remaining = deadline - clock.now();
    // A last poll less than 100 ms after this one would be a tight loop (the mock's judge flags
    // it, and a real service may rate-limit it): the wait ends here instead.
    const tooSoon = remaining < Math.min(wait, finalPollMinimumMs) && retryAfterMs === undefined;
    if (remaining <= 0 || tooSoon || (retryAfterMs !== undefined && retryAfterMs > remaining)) {
      onPoll?.({ attempt: attempts, status: response.status, ...pollDetail(data, error, retryAfterMs), elapsedMs });
      const why =
        remaining > 0 && !tooSoon
          ? `the service asked to retry after ${retryAfterMs} ms, past the ${timeoutMs} ms timeout`
          : `the ${timeoutMs} ms timeout passed`;
      throw fail('timeout', `job '${jobId}' is ${stillAt()} after ${attempts} poll${attempts === 1 ? '' : 's'}; ${why}`);
    }
    // The last wait is cut short so one more poll happens at the deadline itself.
    const nextPollInMs = Math.min(wait, remaining);
    onPoll?.({ attempt: attempts, status: response.status, ...pollDetail(data, error, retryAfterMs), nextPollInMs, elapsedMs });
    await clock.sleep(nextPollInMs, signal);
  }
}

function pollDetail(data: Job | undefined, error: ApiError | undefined, retryAfterMs: number | undefined): Partial<PollEvent> {
  return { ...(data ? { job: data } : {}), ...(error ? { error } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

function getJob(client: EvidenceClient, jobId: string, signal: AbortSignal | undefined) {
  return client.GET('/v0/jobs/{jobId}', { params: { path: { jobId } }, ...(signal ? { signal } : {}) });
}
