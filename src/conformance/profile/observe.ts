/**
 * @module conformance/profile/observe
 * Which profile entry an exchange shows, and what it shows of it (A-50): the one reading shared
 * by `--write-profile` (which learns each entry from these observations) and `--profile`
 * (whose checks hold each declared entry to them). An exchange sent for one situation (a
 * malformed body, an unknown job…) shows that situation's entry; any 429, 500 or 503 shows the
 * rate-limit and failure entries; every Job body shows the timeline and when evaluation appears.
 */
import type { EntryName } from '../../profile/entries.js';
import { conditionsOf, operationsWithout413, profileOperations } from '../../profile/entry-parts.js';
import type { Exchange } from '../exchange.js';
import { challengeOf, observeCredentialsAndHeaders } from './observe-credentials.js';
import { observeMethods } from './observe-methods.js';
import { observeTiming } from './observe-timing.js';

/**
 * A condition a client can tell apart that no entry of profile format 2 declares: seen and
 * reported by the learner (learn.ts `notExpressible`), judged by no entry. None today: an
 * operation's path with an empty parameter (`GET /v0/jobs/`) is now A-20.unknown-route's
 * condition `empty-path-parameter` (A-52).
 */
export type Condition = never;

/** What one exchange showed of one entry: the parts it could see, and a line saying what was seen. */
export interface Observation {
  readonly entry: EntryName | Condition;
  /** The parts seen (an error's status and code; a replay's comparison…). */
  readonly value: Readonly<Record<string, unknown>> | 'anonymous';
  /** e.g. `POST /v0/evaluations, text/plain → 400 INVALID_REQUEST`. */
  readonly seen: string;
  /**
   * `learn`: a learning step's conclusion, learnt and never judged (a measurement has an
   * uncertainty); `hold`: one answer judged by --profile, never learnt. Default: both.
   */
  readonly use?: 'learn' | 'hold';
  /** The operation of the request, when it is one of the contract's (an error entry may answer per operation). */
  readonly operation?: string;
  /** The condition of the entry the request was sent for, when the entry covers several (entry-parts.ts `conditionsOf`). */
  readonly condition?: string;
}

function pathOf(exchange: Exchange): string {
  try {
    return new URL(exchange.request.url).pathname;
  } catch {
    return exchange.request.url;
  }
}

/**
 * The answer's Error code, cut one past the contract's 80 characters: a longer code is then
 * still longer than any a profile declares (never a declared code's match), and the learner
 * refuses it rather than write a code the server never sent.
 */
function errorCode(exchange: Exchange): string | undefined {
  const json = exchange.response?.json as { code?: unknown } | undefined;
  return json && typeof json === 'object' && typeof json.code === 'string' ? json.code.slice(0, 81) : undefined;
}

/** `POST /v0/evaluations, text/plain → 400 INVALID_REQUEST`. */
function seenLine(exchange: Exchange, what?: string): string {
  const response = exchange.response!;
  const code = errorCode(exchange);
  return `${exchange.request.method} ${pathOf(exchange).slice(0, 60)}${what ? `, ${what}` : ''} → ${response.status}${code ? ` ${code}` : ''}`;
}

/** The error entry an exchange was sent to show, from its intent. */
function situationOf(exchange: Exchange): { entry: EntryName | Condition; what: string; condition?: string } | undefined {
  const intent = exchange.intent;
  switch (intent.kind) {
    case 'malformed-json':
      return { entry: 'A-21.malformed-json', what: intent.description ?? 'truncated JSON' };
    case 'media-type':
      return { entry: 'A-21.media-type', what: intent.contentType ?? 'no Content-Type' };
    case 'missing-header':
      return intent.header.toLowerCase() === 'idempotency-key'
        ? { entry: 'A-16.missing-key', what: `no ${intent.header}`, condition: 'required' }
        : undefined;
    case 'negative': {
      const what = intent.description;
      const condition = intent.constraint;
      // An empty jobId is A-20.unknown-route's own condition, not a path outside the contract (A-52).
      if (intent.location === 'path')
        return intent.constraint === 'minLength'
          ? {
              entry: 'A-20.unknown-route',
              what: `an empty ${intent.pointer.replace(/^\//, '') || 'path parameter'}`,
              condition: 'empty-path-parameter',
            }
          : { entry: 'A-23.invalid-job-id', what, condition };
      if (intent.overMaximum) return { entry: 'A-2.over-maximum', what, condition };
      if (intent.location === 'header' && intent.pointer.toLowerCase() === 'idempotency-key')
        return { entry: 'A-16.missing-key', what, condition };
      if (intent.location === 'body' && (intent.pointer === '' || intent.pointer === '/') && intent.constraint === 'type')
        return { entry: 'A-21.not-an-object', what };
      return { entry: 'A-7.invalid-request', what, condition };
    }
    case 'oversized-body':
      return { entry: 'A-13.body-too-large', what: `a body of ${intent.bytes} bytes` };
    case 'conflict':
      return { entry: 'A-16.conflict', what: 'a used key with another body' };
    case 'unknown-job':
      return intent.description || intent.dotSegment ? undefined : { entry: 'A-10.unknown-job', what: 'a jobId no job has' };
    case 'second-caller':
      return { entry: 'A-10.other-callers-job', what: "another caller's job" };
    case 'undeclared-method':
      return { entry: 'A-20.undeclared-method', what: 'a method the path does not declare' };
    case 'undeclared-path':
      return { entry: 'A-20.unknown-route', what: 'a path outside the contract' };
    default:
      return undefined;
  }
}

/** The error entry for an answer's status alone, whatever was sent. */
const entryOfStatus: Readonly<Record<number, EntryName>> = { 429: 'A-11.rate-limited', 500: 'A-8.server-failure', 503: 'A-8.unavailable' };

function errorObservation(exchange: Exchange, entry: EntryName | Condition, what?: string, condition?: string): Observation | undefined {
  const response = exchange.response!;
  const code = errorCode(exchange);
  if (response.status < 400 || code === undefined) return undefined;
  const value: Record<string, unknown> = { status: response.status, code };
  // Where the operation has no 413, its status says nothing of the entry's (it is 400 by the contract).
  if ((entry === 'A-2.over-maximum' || entry === 'A-13.body-too-large') && operationsWithout413.has(exchange.operationId ?? ''))
    delete value.status;
  if (entry === 'A-11.rate-limited' || entry === 'A-8.unavailable') value.retryAfter = response.headers['retry-after'] !== undefined;
  if (entry === 'A-20.undeclared-method') value.allow = response.headers.allow !== undefined;
  const operation = (profileOperations as readonly string[]).includes(exchange.operationId ?? '') ? exchange.operationId : undefined;
  // A condition the entry does not cover is the entry's own answer.
  const known = condition !== undefined && (conditionsOf[entry] ?? []).includes(condition);
  return {
    entry,
    value,
    seen: seenLine(exchange, what),
    ...(operation ? { operation } : {}),
    ...(known ? { condition } : {}),
  };
}

/** A Job body's status and evaluation, when the answer carries one. */
function jobOf(exchange: Exchange): { status: string; evaluation?: unknown } | undefined {
  const body = exchange.response?.json as Record<string, unknown> | undefined;
  if (!exchange.response || exchange.response.status >= 300 || !body || typeof body !== 'object') return undefined;
  return typeof body.jobId === 'string' && typeof body.status === 'string'
    ? { status: body.status, evaluation: body.evaluation }
    : undefined;
}

/** Timeline and evaluation (A-3, A-4) from a Job body. */
function jobObservations(exchange: Exchange): Observation[] {
  const job = jobOf(exchange);
  if (!job) return [];
  const observations: Observation[] = [];
  const line = `${seenLine(exchange)} ${job.status.slice(0, 20)}${job.evaluation === undefined ? '' : `/${String(job.evaluation).slice(0, 20)}`}`;
  const kind = exchange.intent.kind;
  if (kind === 'create') observations.push({ entry: 'A-3.timeline', value: { first: job.status }, seen: line });
  if (kind === 'create' || kind === 'read-created' || kind === 'poll' || kind === 'replay')
    observations.push({ entry: 'A-3.timeline', value: { state: job.status }, seen: line });
  if (job.status === 'COMPLETE')
    observations.push({ entry: 'A-4.evaluation', value: { complete: job.evaluation === undefined ? 'absent' : 'present' }, seen: line });
  if (job.status === 'FAILED')
    observations.push({ entry: 'A-4.evaluation', value: { failed: job.evaluation === undefined ? 'absent' : 'present' }, seen: line });
  return observations;
}

/** Everything `exchange` shows of the profile's entries (none when it has no whole answer). */
export function observe(exchange: Exchange): Observation[] {
  const response = exchange.response;
  if (!response || response.incomplete) return [];
  const intent = exchange.intent;
  const observations: Observation[] = [];
  const situation = situationOf(exchange);
  const byStatus = entryOfStatus[response.status];
  // A 429, 500 or 503 shows the rate limit or the failure, whatever the request was sent for.
  if (byStatus) {
    const observed = errorObservation(exchange, byStatus);
    if (observed) observations.push(observed);
  } else if (situation && !exchange.rateLimited) {
    const observed = errorObservation(exchange, situation.entry, situation.what, situation.condition);
    if (observed) observations.push(observed);
  }
  if (intent.kind === 'reserialized-replay' && (response.status < 300 || response.status === 409))
    observations.push({
      entry: 'A-5.replay',
      value: { compare: response.status === 409 ? 'raw-bytes' : 'canonical-json' },
      seen: seenLine(exchange, 'an equal body re-serialised under its key'),
    });
  if (intent.kind === 'without-credentials') {
    const code = errorCode(exchange);
    if ((response.status === 401 || response.status === 403) && code)
      observations.push({
        entry: 'A-10.without-credentials',
        value: { status: response.status, code, ...challengeOf(exchange) },
        seen: seenLine(exchange, `without ${intent.removed.join(', ')}`),
      });
    // Without credentials, its own job is another caller's: one anonymous caller of its own.
    else if (response.status === 404)
      observations.push({
        entry: 'A-10.without-credentials',
        value: 'anonymous',
        seen: seenLine(exchange, `without ${intent.removed.join(', ')}`),
      });
  }
  if (intent.kind === 'preflight' && response.status === 200 && pathOf(exchange).endsWith('/health')) {
    const body = response.json;
    if (body && typeof body === 'object' && !Array.isArray(body))
      observations.push({ entry: 'A-9.health', value: { body }, seen: `GET /health → 200 ${response.bodyText.slice(0, 120)}` });
  }
  observations.push(...jobObservations(exchange));
  observations.push(...observeCredentialsAndHeaders(exchange));
  observations.push(...observeMethods(exchange));
  observations.push(...observeTiming(exchange));
  return observations;
}
