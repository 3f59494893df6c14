/**
 * @module conformance/profile/observe-timing
 * What exchanges show of the timing entries (A-3.progression, A-4.limitations, A-13.body-limits).
 * The learning step (learning/timing.ts) measures; its last exchange carries what it concluded,
 * which is learnt (`use: 'learn'`, never judged: a measurement has an uncertainty). Each of its
 * reads and body probes is judged on its own by `--profile` (`use: 'hold'`, never learnt), with
 * the send and answer times measured on the run's clock. Every final Job body of the run shows
 * whether it carries limitations, learnt and judged alike.
 */
import type { Exchange } from '../exchange.js';
import type { Observation } from './observe.js';

/** The questions of the timing step, as its intents name them. */
export const timingQuestions = { progression: 'job-progression', bodyLimit: 'body-limit' } as const;

function learningDetail(exchange: Exchange, question: string): Readonly<Record<string, string | number | boolean>> | undefined {
  const intent = exchange.intent;
  return intent.kind === 'learning' && intent.question === question ? (intent.detail ?? {}) : undefined;
}

function parsed(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A Job body's status and whether it carries limitations, when the answer is one. */
function jobOf(exchange: Exchange): { status: string; limitations: boolean } | undefined {
  const response = exchange.response;
  const body = response?.json as Record<string, unknown> | undefined;
  if (!response || response.status >= 300 || !body || typeof body !== 'object') return undefined;
  if (typeof body.jobId !== 'string' || typeof body.status !== 'string') return undefined;
  return { status: body.status, limitations: Array.isArray(body.limitations) && body.limitations.length > 0 };
}

/** Whether an answer to a body probe says nothing of the limit: a 429 or a 5xx. */
export function answersNothingOfLimit(status: number): boolean {
  return status === 429 || status >= 500;
}

/** `GET /v0/jobs/…` → 200 RUNNING at 1200 ms. */
function readLine(exchange: Exchange, state: string, detail: Readonly<Record<string, unknown>>): string {
  return `${exchange.request.method} ${exchange.operationId ?? ''} → ${exchange.response?.status ?? 'no answer'} ${state.slice(0, 20)}, sent at ${String(detail.sentMs)} ms, answered at ${String(detail.answeredMs)} ms after the create was sent`;
}

/** Everything `exchange` shows of the timing entries. */
export function observeTiming(exchange: Exchange): Observation[] {
  const observations: Observation[] = [];
  const job = jobOf(exchange);
  if (job && (job.status === 'COMPLETE' || job.status === 'FAILED'))
    observations.push({
      entry: 'A-4.limitations',
      value: { [job.status === 'COMPLETE' ? 'complete' : 'failed']: job.limitations ? 'present' : 'absent' },
      seen: `${exchange.request.method} ${exchange.operationId ?? ''} → ${exchange.response!.status} ${job.status}`,
    });
  const progression = learningDetail(exchange, timingQuestions.progression);
  if (progression) {
    if (job && typeof progression.sentMs === 'number' && typeof progression.answeredMs === 'number')
      observations.push({
        entry: 'A-3.progression',
        value: {
          state: job.status,
          read: progression.read ?? 0,
          sentMs: progression.sentMs,
          answeredMs: progression.answeredMs,
          createAnsweredMs: progression.createAnsweredMs ?? 0,
        },
        seen: readLine(exchange, job.status, progression),
        use: 'hold',
      });
    const concluded = parsed(progression.progression);
    if (concluded)
      observations.push({ entry: 'A-3.progression', value: concluded, seen: String(progression.measured ?? ''), use: 'learn' });
  }
  const limit = learningDetail(exchange, timingQuestions.bodyLimit);
  if (limit) {
    const response = exchange.response;
    // A 429 or 5xx says nothing of the limit (the run's rate or the server's health).
    if (typeof limit.bytes === 'number' && typeof limit.operation === 'string' && response && !answersNothingOfLimit(response.status))
      observations.push({
        entry: 'A-13.body-limits',
        value: {
          operation: limit.operation,
          bytes: limit.bytes,
          refused: response.status >= 400,
          status: response.status,
        },
        seen: `POST ${limit.operation}, a body of ${limit.bytes} bytes → ${response.status}`,
        use: 'hold',
      });
    const concluded = parsed(limit.limits);
    if (concluded && Object.keys(concluded).length > 0)
      observations.push({ entry: 'A-13.body-limits', value: concluded, seen: String(limit.measured ?? ''), use: 'learn' });
  }
  return observations;
}
