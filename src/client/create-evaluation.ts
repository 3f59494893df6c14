/**
 * @module client/create-evaluation
 * Creates an evaluation, retried while the service is briefly unavailable: a create carries an
 * Idempotency-Key, so sending it again with the same key and body makes no second job (the
 * service answers the first one's 202 again). Retries on 429, 502, 503 and 504 and on a request
 * that failed before any answer (a dropped connection), with the server's Retry-After when it
 * gives one and exponential backoff when not, bounded in attempts and in time
 * (docs/assumptions.md A-62). Every way it gives up is a CreateEvaluationError whose `kind` says why.
 */
import { parseRetryAfter } from '../contract/retry-after.js';
import type { EvidenceClient } from './evidence-client.js';
import { type PollClock, realClock } from './poll-clock.js';
import { retryableStatuses } from './retryable.js';
import type { ApiError, EvaluationRequest, Job } from './types.js';

export type CreateEvaluationErrorKind =
  /** The service answered a status that sending again would not fix (400, 409, 413, 500, …). */
  | 'rejected'
  /** Every attempt allowed was made, each answered 429/502/503/504 or failed before an answer. */
  | 'attempts_exhausted'
  /** The time allowed passed, or the service asked to wait past it. */
  | 'timeout'
  /** `signal` aborted. */
  | 'aborted';

/** Why createEvaluation stopped without a job. */
export class CreateEvaluationError extends Error {
  override readonly name = 'CreateEvaluationError';
  readonly kind: CreateEvaluationErrorKind;
  /** The key every attempt carried: sending it again later still cannot make a second job. */
  readonly idempotencyKey: string;
  readonly attempts: number;
  /** The status of the last answer, when one came. */
  readonly status?: number;
  /** That answer's Error body, when it had one. */
  readonly body?: ApiError;

  constructor(options: {
    kind: CreateEvaluationErrorKind;
    message: string;
    idempotencyKey: string;
    attempts: number;
    status?: number | undefined;
    body?: ApiError | undefined;
    cause?: unknown;
  }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = options.kind;
    this.idempotencyKey = options.idempotencyKey;
    this.attempts = options.attempts;
    if (options.status !== undefined) this.status = options.status;
    if (options.body) this.body = options.body;
  }
}

/** What one attempt saw, given to `onAttempt`. */
export interface CreateAttemptEvent {
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** The HTTP status, or undefined when the request failed before an answer. */
  readonly status?: number;
  readonly error?: ApiError;
  /** The request's own failure (a dropped connection), when no answer came. */
  readonly failure?: unknown;
  readonly retryAfterMs?: number;
  /** How long until the next attempt; absent when this attempt ends it. */
  readonly nextAttemptInMs?: number;
}

export interface CreateEvaluationOptions {
  readonly body: EvaluationRequest;
  /** The Idempotency-Key every attempt carries. Default: a new random UUID. */
  readonly idempotencyKey?: string;
  /** At most this many attempts, the first included. Default 5. */
  readonly maxAttempts?: number;
  /** Give up when no job was created this many milliseconds after the start. Default 30000. */
  readonly timeoutMs?: number;
  /** The wait after the first failed attempt when the server gives no Retry-After; each later one doubles. Default 250. */
  readonly initialDelayMs?: number;
  /** The longest wait chosen by backoff (a Retry-After may ask for longer, within the timeout). Default 5000. */
  readonly maxDelayMs?: number;
  readonly signal?: AbortSignal;
  /** Called after every attempt, before waiting. */
  readonly onAttempt?: (event: CreateAttemptEvent) => void;
  /** The time to wait by. Default: real time. Tests pass a virtual clock so nothing sleeps. */
  readonly clock?: PollClock;
  /** Other headers to send with every attempt (say `Prefer`). */
  readonly headers?: Record<string, string>;
}

/** The created job, the 202's `response`, and how many attempts it took. */
export interface CreatedEvaluation {
  readonly job: Job;
  readonly response: Response;
  readonly idempotencyKey: string;
  readonly attempts: number;
}

function checkOptions(options: CreateEvaluationOptions) {
  const { maxAttempts = 5, timeoutMs = 30_000, initialDelayMs = 250, maxDelayMs = 5000 } = options;
  if (!(Number.isInteger(maxAttempts) && maxAttempts >= 1))
    throw new RangeError(`createEvaluation: maxAttempts must be a whole number ≥ 1, got ${maxAttempts}`);
  if (!(timeoutMs >= 0 && Number.isFinite(timeoutMs)))
    throw new RangeError(`createEvaluation: timeoutMs must be a finite number ≥ 0, got ${timeoutMs}`);
  if (!(initialDelayMs > 0)) throw new RangeError(`createEvaluation: initialDelayMs must be > 0, got ${initialDelayMs}`);
  if (!(maxDelayMs >= initialDelayMs)) {
    throw new RangeError(`createEvaluation: maxDelayMs (${maxDelayMs}) must be at least initialDelayMs (${initialDelayMs})`);
  }
  return { maxAttempts, timeoutMs, initialDelayMs, maxDelayMs };
}

/**
 * `POST /v0/evaluations`, sent again with the same Idempotency-Key while the service answers
 * 429/502/503/504 or the request fails before an answer. Resolves with the job of the 202;
 * throws CreateEvaluationError otherwise.
 *
 * @example
 * const { job } = await createEvaluation(client, { body, timeoutMs: 10_000 });
 * const final = await waitForJob(client, job.jobId, { timeoutMs: 30_000 });
 */
export async function createEvaluation(client: EvidenceClient, options: CreateEvaluationOptions): Promise<CreatedEvaluation> {
  const { maxAttempts, timeoutMs, initialDelayMs, maxDelayMs } = checkOptions(options);
  const { signal, onAttempt } = options;
  const clock = options.clock ?? realClock;
  const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
  const deadline = clock.now() + timeoutMs;
  let backoff = initialDelayMs;
  let attempts = 0;
  const fail = (kind: CreateEvaluationErrorKind, message: string, extra: { status?: number; body?: ApiError; cause?: unknown } = {}) =>
    new CreateEvaluationError({ kind, message: `createEvaluation: ${message}`, idempotencyKey, attempts, ...extra });
  const aborted = () => fail('aborted', 'the signal aborted', { cause: signal?.reason });

  for (;;) {
    if (signal?.aborted) throw aborted();
    attempts += 1;
    let status: number | undefined;
    let error: ApiError | undefined;
    let failure: unknown;
    let retryAfterMs: number | undefined;
    try {
      const answer = await client.POST('/v0/evaluations', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: options.body,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(signal ? { signal } : {}),
      });
      if (answer.data) {
        onAttempt?.({ attempt: attempts, status: answer.response.status });
        return { job: answer.data, response: answer.response, idempotencyKey, attempts };
      }
      status = answer.response.status;
      error = answer.error;
      if (!retryableStatuses.includes(status)) {
        onAttempt?.({ attempt: attempts, status, ...(error ? { error } : {}) });
        const detail = error?.message ? `: ${error.code} — ${error.message}` : '';
        throw fail('rejected', `the service answered ${status}${detail}`, { status, body: error });
      }
      retryAfterMs = parseRetryAfter(answer.response.headers.get('retry-after'), { now: clock.now() });
    } catch (thrown) {
      if (thrown instanceof CreateEvaluationError) throw thrown;
      if (signal?.aborted) throw aborted();
      // No answer came (a refused or dropped connection): the key makes sending again safe.
      failure = thrown;
    }
    const wait = retryAfterMs ?? backoff;
    backoff = Math.min(backoff * 2, maxDelayMs);
    const remaining = deadline - clock.now();
    const seen = status === undefined ? `failed: ${(failure as Error)?.message ?? String(failure)}` : `answered ${status}`;
    const event = {
      attempt: attempts,
      ...(status === undefined ? { failure } : { status }),
      ...(error ? { error } : {}),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
    const extra = { ...(status === undefined ? { cause: failure } : { status }), ...(error ? { body: error } : {}) };
    if (attempts >= maxAttempts) {
      onAttempt?.(event);
      throw fail('attempts_exhausted', `attempt ${attempts} of ${maxAttempts} ${seen}; no job was created (key ${idempotencyKey})`, extra);
    }
    if (wait > remaining) {
      onAttempt?.(event);
      const why =
        retryAfterMs === undefined
          ? `the ${timeoutMs} ms timeout passed`
          : `the service asked to retry after ${retryAfterMs} ms, past the ${timeoutMs} ms timeout`;
      throw fail('timeout', `attempt ${attempts} ${seen}; ${why} (key ${idempotencyKey})`, extra);
    }
    onAttempt?.({ ...event, nextAttemptInMs: wait });
    await clock.sleep(wait, signal);
  }
}
