/**
 * @module app/flows
 * What the demo does, free of the DOM so tests run it under MSW's setupServer and against the
 * mock server: create an evaluation and follow its job, verify an artifact, and provoke each
 * error the contract can return. Every outcome is a value the page renders as it arrives.
 */
import {
  type EvaluationRequest,
  type EvidenceClient,
  type Job,
  type JobStatus,
  type PollClock,
  type PollEvent,
  type VerificationResult,
  WaitForJobError,
  waitForJob,
} from 'evidence-harness/client';
import { mintDemoArtifact } from './demo-artifact.js';
import { describeFailure, describeResponse, describeUnreachable, type ShownFailure } from './describe-failure.js';
import { conflictingEvaluation, invalidEvaluation, oversizedEvaluation, sampleEvaluation, verificationExpectation } from './sample-data.js';

export interface AppContext {
  readonly client: EvidenceClient;
  /** For messages about an unreachable API. */
  readonly apiBaseUrl: string;
  /** A mock scenario for created jobs, sent as `Prefer: scenario=NAME`. */
  readonly scenario?: string;
  /** Makes Idempotency-Keys. Default: crypto.randomUUID. */
  readonly newKey?: () => string;
  /** How waitForJob polls; tests pass a virtual clock. */
  readonly polling?: {
    readonly timeoutMs?: number;
    readonly initialDelayMs?: number;
    readonly maxDelayMs?: number;
    readonly clock?: PollClock;
  };
}

/** One state of the job, shown as it arrives. */
export interface JobStep {
  readonly jobId: string;
  readonly status: JobStatus;
  readonly evaluation?: Job['evaluation'];
  readonly limitations?: readonly string[];
  /** 'created' for the 202, else the poll that first saw this state. */
  readonly seenAt: 'created' | number;
}

export type EvaluationOutcome =
  /** The job reached COMPLETE or FAILED. */
  | { readonly kind: 'finished'; readonly job: Job }
  /** createEvaluation answered an error, or no answer came. */
  | { readonly kind: 'refused'; readonly failure: ShownFailure }
  /** The job was created but waiting for it ended without a final state. */
  | { readonly kind: 'gave-up'; readonly failure: ShownFailure; readonly lastJob?: Job };

type Answer<T> =
  | { readonly ok: true; readonly data: T; readonly response: Response }
  | { readonly ok: false; readonly failure: ShownFailure };

/** Sends one request through the typed client; every way it can go wrong becomes a ShownFailure. */
async function call<T>(context: AppContext, send: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<Answer<T>> {
  try {
    const { data, error, response } = await send();
    if (response.ok && data !== undefined) return { ok: true, data, response };
    return { ok: false, failure: describeResponse(response, error) };
  } catch (error) {
    return { ok: false, failure: describeUnreachable({ apiBaseUrl: context.apiBaseUrl, error }) };
  }
}

const newKeyOf = (context: AppContext) => context.newKey ?? (() => crypto.randomUUID());

function createEvaluation(context: AppContext, options: { body: EvaluationRequest; key: string; prefer?: string }) {
  const prefer = options.prefer ?? (context.scenario ? `scenario=${context.scenario}` : undefined);
  return call(context, () =>
    context.client.POST('/v0/evaluations', {
      params: { header: { 'Idempotency-Key': options.key } },
      body: options.body,
      ...(prefer ? { headers: { Prefer: prefer } } : {}),
    }),
  );
}

function stepOf(job: Job, seenAt: JobStep['seenAt']): JobStep {
  return {
    jobId: job.jobId,
    status: job.status,
    seenAt,
    ...(job.evaluation ? { evaluation: job.evaluation } : {}),
    ...(job.limitations ? { limitations: job.limitations } : {}),
  };
}

/** What a person should read when waiting stopped without a final job. */
function describeGiveUp(error: WaitForJobError): ShownFailure {
  if (error.status !== undefined) return describeFailure({ status: error.status, body: error.body });
  const advice: Record<WaitForJobError['kind'], string> = {
    timeout: 'The job did not finish in time. It may still finish: read it again later.',
    aborted: 'Waiting was stopped.',
    request_failed: 'The API stopped answering while the job was followed. Check that it is running.',
    not_found: 'The job is no longer available.',
    unexpected_response: 'The service answered something the app cannot use.',
  };
  const headlines: Record<WaitForJobError['kind'], string> = {
    timeout: 'Timed out',
    aborted: 'Stopped',
    request_failed: 'No answer',
    not_found: 'Not found',
    unexpected_response: 'Unexpected answer',
  };
  return { status: 0, headline: headlines[error.kind], code: '', message: error.message, advice: advice[error.kind] };
}

/** A line for the page when a poll was refused and will be retried (429, 503). */
export function describePollNotice(event: PollEvent): string | undefined {
  if (event.job || event.nextPollInMs === undefined) return undefined;
  const code = event.error ? ` ${event.error.code}` : '';
  const seconds = Math.round(event.nextPollInMs / 100) / 10;
  return `Poll ${event.attempt}: ${event.status}${code}; polling again in ${seconds} s${event.retryAfterMs !== undefined ? ' (as Retry-After asks)' : ''}.`;
}

/**
 * Creates an evaluation and follows its job to a final state, reporting each new state (and
 * each refused poll) as it arrives.
 */
export async function runEvaluation(
  context: AppContext,
  options: {
    readonly request?: EvaluationRequest;
    readonly onStep: (step: JobStep) => void;
    readonly onNotice?: (text: string) => void;
    readonly signal?: AbortSignal;
  },
): Promise<EvaluationOutcome> {
  const created = await createEvaluation(context, { body: options.request ?? sampleEvaluation, key: newKeyOf(context)() });
  if (!created.ok) return { kind: 'refused', failure: created.failure };
  let shown = created.data.status;
  options.onStep(stepOf(created.data, 'created'));
  // Waits double up to 5 s, as waitForJob's own defaults do. The app capped them at 1 s before,
  // and the mock's client judge reported poll_without_backoff: a slow job was polled every
  // second for as long as it ran (docs/coverage.md, the worked example).
  const { timeoutMs = 60_000, initialDelayMs = 250, maxDelayMs = 5000, clock } = context.polling ?? {};
  try {
    const job = await waitForJob(context.client, created.data.jobId, {
      timeoutMs,
      initialDelayMs,
      maxDelayMs,
      ...(clock ? { clock } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onPoll: (event) => {
        if (event.job && event.job.status !== shown) {
          shown = event.job.status;
          options.onStep(stepOf(event.job, event.attempt));
        }
        const notice = describePollNotice(event);
        if (notice) options.onNotice?.(notice);
      },
    });
    return { kind: 'finished', job };
  } catch (error) {
    if (!(error instanceof WaitForJobError)) throw error;
    return { kind: 'gave-up', failure: describeGiveUp(error), ...(error.lastJob ? { lastJob: error.lastJob } : {}) };
  }
}

export type VerificationOutcome =
  | { readonly kind: 'verified'; readonly result: VerificationResult; readonly tampered: boolean }
  | { readonly kind: 'refused'; readonly failure: ShownFailure };

/** Mints a demo artifact (honest or with a broken signature) and asks the service to verify it. */
export async function verifyDemoArtifact(context: AppContext, options: { readonly tampered: boolean }): Promise<VerificationOutcome> {
  const artifact = await mintDemoArtifact({
    operationId: verificationExpectation.expectedOperationId,
    issuer: verificationExpectation.expectedIssuer,
    tampered: options.tampered,
  });
  const answer = await call(context, () => context.client.POST('/v0/verifications', { body: { artifact, ...verificationExpectation } }));
  return answer.ok ? { kind: 'verified', result: answer.data, tampered: options.tampered } : { kind: 'refused', failure: answer.failure };
}

/** One error of the contract, provoked on purpose. */
export interface ErrorDemo {
  /** The status the demo provokes; also its id in the page. */
  readonly status: 400 | 404 | 409 | 413 | 503;
  readonly title: string;
  /** What the demo sends, in a sentence. */
  readonly sends: string;
  run(context: AppContext): Promise<ErrorDemoOutcome>;
}

export type ErrorDemoOutcome =
  | { readonly kind: 'failure'; readonly failure: ShownFailure }
  /** The call succeeded, so the service did not return the error the demo expected. */
  | { readonly kind: 'succeeded'; readonly status: number };

function outcomeOf(answer: Answer<unknown>): ErrorDemoOutcome {
  return answer.ok ? { kind: 'succeeded', status: answer.response.status } : { kind: 'failure', failure: answer.failure };
}

export const errorDemos: readonly ErrorDemo[] = [
  {
    status: 400,
    title: 'Invalid request',
    sends: 'an evaluation whose policyDigest is not 64 hex characters',
    run: async (context) => outcomeOf(await createEvaluation(context, { body: invalidEvaluation, key: newKeyOf(context)() })),
  },
  {
    status: 409,
    title: 'Idempotency-Key conflict',
    sends: 'an evaluation, then a different one with the same Idempotency-Key',
    run: async (context) => {
      const key = newKeyOf(context)();
      const first = await createEvaluation(context, { body: sampleEvaluation, key });
      if (!first.ok) return { kind: 'failure', failure: first.failure };
      return outcomeOf(await createEvaluation(context, { body: conflictingEvaluation, key }));
    },
  },
  {
    status: 413,
    title: 'Input over a limit',
    sends: `an evaluation with ${oversizedEvaluation.evidence.length} evidence items`,
    run: async (context) => outcomeOf(await createEvaluation(context, { body: oversizedEvaluation, key: newKeyOf(context)() })),
  },
  {
    status: 404,
    title: 'Job not available',
    sends: 'a read of a job id nobody created',
    run: async (context) =>
      outcomeOf(await call(context, () => context.client.GET('/v0/jobs/{jobId}', { params: { path: { jobId: 'job-nobody-created' } } }))),
  },
  {
    status: 503,
    title: 'Service unavailable (a default response)',
    sends: 'an evaluation with Prefer: code=503, which the mock answers with 503 and Retry-After',
    run: async (context) =>
      outcomeOf(await createEvaluation(context, { body: sampleEvaluation, key: newKeyOf(context)(), prefer: 'code=503' })),
  },
];
