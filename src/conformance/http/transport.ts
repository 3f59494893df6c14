/**
 * @module conformance/http/transport
 * The runner's only way to reach a server: HTTP through node:http (its own keep-alive agent) or
 * an injected Fetch function (such as an in-process engine). Every exchange is bounded
 * (bounded-client.ts): a per-request deadline, a cap on the body as sent and as decoded. On top
 * of that it spaces requests (--rate), retries a 429 once after its Retry-After, and never
 * follows a redirect to another origin. A request's redirects and its 429 retry share the
 * request's one deadline: following them never buys a server more time than --timeout.
 */
import { parseRetryAfter } from '../../contract/retry-after.js';
import type { OutboundConnectGuard } from '../../http/outbound-client.js';
import type { IncompleteBody, ReceivedResponse, SentRequest } from '../exchange.js';
import { BoundedNodeClient, boundedFetch, type FetchFunction, type RawOutcome, type TlsOptions } from './bounded-client.js';
import { createRateLimiter, type RateLimiter } from './rate-limiter.js';

export type { FetchFunction } from './bounded-client.js';

export interface TransportOptions {
  /** The target's base URL; contract paths are appended to it. */
  readonly baseUrl: string;
  /** How an https target's certificate is checked (node:http only). */
  readonly tls?: TlsOptions;
  /** Default: node:http. */
  readonly fetch?: FetchFunction;
  /** Every connection held to an address policy (node:http only; the MCP server's, A-45). */
  readonly connectGuard?: OutboundConnectGuard | undefined;
  /** Per-request deadline, headers and body included. */
  readonly timeoutMs: number;
  /** The most body bytes read from one answer, as sent and once decoded. Default 4 MiB. */
  readonly maxResponseBytes?: number;
  /** Requests per second; unlimited when absent. */
  readonly rate?: number;
  /** Connections open at once to the target (node:http only). Default 4. */
  readonly maxSockets?: number;
  /** The longest Retry-After the runner waits before its one retry of a 429. Default 5000. */
  readonly maxRetryAfterMs?: number;
  /** Aborting it cuts the request in flight and any wait (SIGINT, SIGTERM). */
  readonly signal?: AbortSignal;
  /**
   * Takes the run's credentials out of text (the run's Scrubber). Every answer's body and header
   * values pass through it as they are received, before anything is parsed, judged, cut to an
   * excerpt or quoted: an excerpt cut later could otherwise split a credential the final
   * scrub of the report no longer recognises.
   */
  readonly scrub?: (text: string) => string;
  /**
   * Called after an answer whose body was over 1 MiB has been read and parsed. A server that
   * answers megabytes to every request makes garbage faster than V8 collects it by default; the
   * CLI passes a collection here, so that peak memory follows what is kept, not what went by.
   */
  readonly afterLargeAnswer?: () => void;
}

/** The body size past which `afterLargeAnswer` is called: ten times the contract's largest valid answers. */
const largeAnswerBytes = 1024 * 1024;

/** A request to send: a path under the base URL (already filled and encoded). */
export interface OutgoingRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface TransportResult {
  readonly request: SentRequest;
  readonly response?: ReceivedResponse;
  readonly transportError?: string;
  readonly notes: string[];
  readonly rateLimited: boolean;
  readonly durationMs: number;
  /** How many HTTP requests went out (a 429 retry and followed redirects count). */
  readonly requestsSent: number;
  /** No answer, or no whole body, within the deadline. */
  readonly timedOut: boolean;
  /** Timed out at `runDeadline` rather than at the request's own deadline: nothing to say about the server. */
  readonly cutByRunDeadline: boolean;
  /** Cut by the run's own stop, not by the server: say nothing about the server. */
  readonly interrupted: boolean;
}

/** The default of --max-response-bytes: 4 MiB, above the contract's largest valid answer (about 1.5 MB, docs/conformance.md). */
export const defaultMaxResponseBytes = 4 * 1024 * 1024;

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const maxRedirects = 3;

/** The deepest nesting of arrays and objects an answer may have (the contract's answers nest 5 levels at most). */
export const maxJsonDepth = 64;
/**
 * The most values (counted as commas and opening brackets) an answer may hold. The contract's
 * largest valid answer (a Job with 64 limitations, a VerificationResult with 64 reasons) holds a
 * few hundred; 1.3 million `{}` in 4 MB took JSON.parse to 969 MB of RSS.
 */
export const maxJsonValues = 100_000;

/** What `jsonTooComplex` refuses past, and what it calls the text in its message. */
export interface JsonBounds {
  readonly maxDepth: number;
  readonly maxValues: number;
  /** The text's name in the message: "answer" (default), "pact file". */
  readonly what: string;
}

const answerBounds: JsonBounds = { maxDepth: maxJsonDepth, maxValues: maxJsonValues, what: 'answer' };

// Worded only when refused: toLocaleString costs microseconds, and the scan runs on every answer.
const tooDeep = (bounds: JsonBounds) => `${bounds.what} nested deeper than ${bounds.maxDepth} levels`;
const tooMany = (bounds: JsonBounds) => `${bounds.what} had more than ${bounds.maxValues.toLocaleString('en-US')} JSON values`;

/**
 * Scans the text once (linear, strings skipped) and says why it is refused before JSON.parse:
 * too deep (a 4 MB `[[[…]]]` took JSON.parse to 1.3 GB) or too many values. Undefined when it
 * may be parsed. Other readers of untrusted JSON (a pact file) pass their own bounds.
 */
export function jsonTooComplex(text: string, bounds: JsonBounds = answerBounds): string | undefined {
  // Only a body that would parse as an array or object can be costly to parse.
  const first = /\S/.exec(text.slice(0, 1024))?.[0];
  if (first !== '[' && first !== '{') return undefined;
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c)
        index += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      depth += 1;
      values += 1;
      if (depth > bounds.maxDepth) return tooDeep(bounds);
      if (values > bounds.maxValues) return tooMany(bounds);
    } else if (code === 0x5d || code === 0x7d) depth -= 1;
    else if (code === 0x2c) {
      values += 1;
      if (values > bounds.maxValues) return tooMany(bounds);
    }
  }
  return undefined;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Retry-After in milliseconds, read as src/contract/retry-after.ts reads it; 1 s when absent or
 * unreadable (the runner's policy: a 429 always buys some pause).
 */
export function retryAfterMs(value: string | undefined): number {
  return parseRetryAfter(value, { now: Date.now() }) ?? 1000;
}

/** Waits `ms`, or less when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted || ms <= 0) {
      resolve();
      return;
    }
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * An answer as the checks judge it: its body as text (scrubbed), parsed as JSON unless it is
 * nested or numerous past the runner's bounds. The proxy builds its judged answers here too.
 */
export function toReceived(answer: NonNullable<RawOutcome['answer']>, scrub?: (text: string) => string): ReceivedResponse {
  const bodyText = scrub ? scrub(answer.body.toString('utf8')) : answer.body.toString('utf8');
  const headers = scrub ? Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, scrub(value)])) : answer.headers;
  const refused = answer.incomplete ? undefined : jsonTooComplex(bodyText);
  const incomplete: IncompleteBody | undefined =
    answer.incomplete ?? (refused === undefined ? undefined : { reason: 'too-complex', bytes: answer.body.length, message: refused });
  return {
    status: answer.status,
    headers,
    contentType: headers['content-type'] ?? null,
    // An answer refused as too complex keeps only its start: nothing reads the rest.
    bodyText: refused === undefined ? bodyText : bodyText.slice(0, 8 * 1024),
    json: incomplete ? undefined : parseJson(bodyText),
    ...(incomplete ? { incomplete } : {}),
  };
}

interface Attempt {
  readonly response?: ReceivedResponse;
  readonly error?: string;
  readonly timedOut: boolean;
  readonly interrupted: boolean;
}

/** The one deadline a request's redirects and retry share, and the --timeout it was set from (for messages). */
interface Deadline {
  /** Date.now() at which the request (redirects and retry included) is cut. */
  readonly at: number;
  /** The --timeout, named in "no answer within … ms". */
  readonly statedMs: number;
  /** The run's own end (--time-budget): a body still coming is read on at most until then. */
  readonly runAt: number;
}

export class Transport {
  private readonly limiter: RateLimiter;
  private readonly client: BoundedNodeClient | undefined;
  readonly baseUrl: string;
  readonly maxResponseBytes: number;

  constructor(private readonly options: TransportOptions) {
    this.limiter = createRateLimiter(options.rate === undefined ? {} : { perSecond: options.rate });
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.maxResponseBytes = options.maxResponseBytes ?? defaultMaxResponseBytes;
    this.client = options.fetch
      ? undefined
      : new BoundedNodeClient({
          maxSockets: options.maxSockets ?? 4,
          maxResponseBytes: this.maxResponseBytes,
          ...(options.tls ? { tls: options.tls } : {}),
          ...(options.connectGuard ? { connectGuard: options.connectGuard } : {}),
        });
  }

  urlOf(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /**
   * Sends one request, its same-origin redirects and its one 429 retry, all within one
   * deadline: `timeoutMs` (default: the transport's) from the moment the first attempt may go
   * (after --rate's spacing), and never past `runDeadline` (a Date.now() time: the end of the
   * run's --time-budget).
   */
  async send(outgoing: OutgoingRequest, sendOptions: { timeoutMs?: number; runDeadline?: number } = {}): Promise<TransportResult> {
    let started = performance.now();
    const request: SentRequest = {
      method: outgoing.method,
      url: this.urlOf(outgoing.path),
      headers: outgoing.headers,
      ...(outgoing.body === undefined ? {} : { body: outgoing.body }),
    };
    const timeoutMs = sendOptions.timeoutMs ?? this.options.timeoutMs;
    const notes: string[] = [];
    let requestsSent = 0;
    // The runner's own spacing before the first attempt is not the server's time.
    await this.limiter.wait(this.options.signal);
    // The time an answer took starts when the request may go: --rate's spacing is the runner's.
    started = performance.now();
    const ownDeadline = Date.now() + timeoutMs;
    const runDeadline = sendOptions.runDeadline ?? Number.POSITIVE_INFINITY;
    const deadline: Deadline = { at: Math.min(ownDeadline, runDeadline), statedMs: timeoutMs, runAt: runDeadline };
    let attempt = await this.follow(request, notes, { deadline, paced: true });
    requestsSent += attempt.sent;
    let rateLimited = false;
    if (attempt.response?.status === 429 && !attempt.interrupted) {
      const wait = Math.min(retryAfterMs(attempt.response.headers['retry-after']), this.options.maxRetryAfterMs ?? 5000);
      if (Date.now() + wait >= deadline.at) {
        notes.push(
          `429 answered; not retried, as its Retry-After of ${wait} ms ends after the request's deadline (--timeout ${timeoutMs} ms; docs/assumptions.md A-11)`,
        );
        rateLimited = true;
      } else {
        notes.push(`429 answered; retried once after ${wait} ms (docs/assumptions.md A-11)`);
        await sleep(wait, this.options.signal);
        // Stopped during the wait: the retry is not sent, and the 429 says nothing more.
        if (this.options.signal?.aborted) attempt = { error: 'the run was interrupted', timedOut: false, interrupted: true, sent: 0 };
        else {
          attempt = await this.follow(request, notes, { deadline, paced: false });
          requestsSent += attempt.sent;
          rateLimited = attempt.response?.status === 429;
        }
      }
    }
    return {
      request,
      ...(attempt.response ? { response: attempt.response } : {}),
      ...(attempt.error ? { transportError: attempt.error } : {}),
      notes,
      rateLimited,
      durationMs: performance.now() - started,
      requestsSent,
      timedOut: attempt.timedOut,
      cutByRunDeadline: attempt.timedOut && runDeadline < ownDeadline,
      interrupted: attempt.interrupted,
    };
  }

  /** Ends every connection the transport opened (call once the run is over). */
  close(): void {
    this.client?.close();
  }

  /** Sends one request, following same-origin redirects only, every hop within `timing.deadline`. */
  private async follow(
    first: SentRequest,
    notes: string[],
    timing: { deadline: Deadline; paced: boolean },
  ): Promise<Attempt & { sent: number }> {
    let current = first;
    for (let hop = 0; ; hop += 1) {
      const outcome = await this.once(current, { deadline: timing.deadline, paced: timing.paced && hop === 0 });
      if (!outcome.response || outcome.response.incomplete) return { ...outcome, sent: hop + 1 };
      const location = outcome.response.headers.location;
      if (!redirectStatuses.has(outcome.response.status) || !location) return { ...outcome, sent: hop + 1 };
      let target: URL;
      try {
        target = new URL(location, current.url);
      } catch {
        notes.push(`redirect to an unreadable Location not followed`);
        return { ...outcome, sent: hop + 1 };
      }
      if (target.origin !== new URL(current.url).origin) {
        // A redirect to another host could carry the caller's credentials away: never follow it.
        notes.push(`redirect to another origin (${target.origin}) not followed`);
        return { ...outcome, sent: hop + 1 };
      }
      if (hop + 1 > maxRedirects) {
        notes.push(`more than ${maxRedirects} redirects; stopped`);
        return { ...outcome, sent: hop + 1 };
      }
      notes.push(`followed ${outcome.response.status} redirect to ${target.pathname}`);
      const keepsMethod = outcome.response.status === 307 || outcome.response.status === 308;
      current = keepsMethod
        ? { ...current, url: target.href }
        : { method: current.method === 'HEAD' ? 'HEAD' : 'GET', url: target.href, headers: withoutBodyHeaders(current.headers) };
    }
  }

  /** One attempt, within what is left of the deadline; `paced`: --rate's wait is already done. */
  private async once(request: SentRequest, timing: { deadline: Deadline; paced: boolean }): Promise<Attempt> {
    if (!timing.paced) await this.limiter.wait(this.options.signal);
    const left = timing.deadline.at - Date.now();
    if (left <= 0) return { error: `no answer within ${timing.deadline.statedMs} ms (--timeout)`, timedOut: true, interrupted: false };
    const limits = {
      timeoutMs: left,
      statedTimeoutMs: timing.deadline.statedMs,
      // Read on while the body keeps coming, but never past the run's end (a number, not Infinity, for the timer).
      bodyProgressUntil: Math.min(timing.deadline.runAt, Date.now() + 2 ** 31 - 1),
      maxResponseBytes: this.maxResponseBytes,
      ...(this.options.signal ? { signal: this.options.signal } : {}),
    };
    const outcome = this.client ? await this.client.request(request, limits) : await boundedFetch(this.options.fetch!, request, limits);
    if ((outcome.answer?.body.length ?? 0) > largeAnswerBytes) this.options.afterLargeAnswer?.();
    return {
      ...(outcome.answer ? { response: toReceived(outcome.answer, this.options.scrub) } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
      timedOut: outcome.timedOut,
      interrupted: outcome.interrupted,
    };
  }
}

function withoutBodyHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-(type|length)$/i.test(name)));
}
