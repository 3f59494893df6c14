/**
 * @module conformance/http/transport
 * The runner's only way to reach a server: HTTP through a Fetch function (the global fetch, or
 * an injected one such as an in-process engine). It enforces the per-request timeout (a server
 * that never answers becomes a reported failure, not a hung run), the --rate spacing, one
 * retry after a 429, and never follows a redirect to another origin.
 */
import type { ReceivedResponse, SentRequest } from '../exchange.js';
import { createRateLimiter, type RateLimiter } from './rate-limiter.js';

export type FetchFunction = (request: Request) => Promise<Response>;

export interface TransportOptions {
  /** The target's base URL; contract paths are appended to it. */
  readonly baseUrl: string;
  /** Default: the global fetch. */
  readonly fetch?: FetchFunction;
  /** Per-request timeout, headers and body included. */
  readonly timeoutMs: number;
  /** Requests per second; unlimited when absent. */
  readonly rate?: number;
  /** The longest Retry-After the runner waits before its one retry of a 429. Default 5000. */
  readonly maxRetryAfterMs?: number;
}

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
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
const maxRedirects = 3;

class TimeoutError extends Error {}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Retry-After in milliseconds (delta-seconds or an HTTP-date); 1 s when absent or unreadable. */
function retryAfterMs(value: string | undefined): number {
  if (!value) return 1000;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : 1000;
}

export class Transport {
  private readonly limiter: RateLimiter;
  private readonly fetchFunction: FetchFunction;
  readonly baseUrl: string;

  constructor(private readonly options: TransportOptions) {
    this.limiter = createRateLimiter(options.rate === undefined ? {} : { perSecond: options.rate });
    this.fetchFunction = options.fetch ?? ((request) => fetch(request));
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  urlOf(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  async send(outgoing: OutgoingRequest): Promise<TransportResult> {
    const started = performance.now();
    const request: SentRequest = {
      method: outgoing.method,
      url: this.urlOf(outgoing.path),
      headers: outgoing.headers,
      ...(outgoing.body === undefined ? {} : { body: outgoing.body }),
    };
    const notes: string[] = [];
    let requestsSent = 0;
    let attempt = await this.follow(request, notes);
    requestsSent += attempt.sent;
    let rateLimited = false;
    if (attempt.response?.status === 429) {
      const wait = Math.min(retryAfterMs(attempt.response.headers['retry-after']), this.options.maxRetryAfterMs ?? 5000);
      notes.push(`429 answered; retried once after ${wait} ms (docs/assumptions.md A-11)`);
      await new Promise((resolve) => setTimeout(resolve, wait));
      attempt = await this.follow(request, notes);
      requestsSent += attempt.sent;
      rateLimited = attempt.response?.status === 429;
    }
    return {
      request,
      ...(attempt.response ? { response: attempt.response } : {}),
      ...(attempt.error ? { transportError: attempt.error } : {}),
      notes,
      rateLimited,
      durationMs: performance.now() - started,
      requestsSent,
    };
  }

  /** Sends one request, following same-origin redirects only. */
  private async follow(first: SentRequest, notes: string[]): Promise<{ response?: ReceivedResponse; error?: string; sent: number }> {
    let current = first;
    for (let hop = 0; ; hop += 1) {
      const outcome = await this.once(current);
      if (!outcome.response) return { ...outcome, sent: hop + 1 };
      const location = outcome.response.headers.location;
      if (!redirectStatuses.has(outcome.response.status) || !location) return { ...outcome, sent: hop + 1 };
      const target = new URL(location, current.url);
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

  private async once(request: SentRequest): Promise<{ response?: ReceivedResponse; error?: string }> {
    await this.limiter.wait();
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new TimeoutError());
      }, this.options.timeoutMs);
    });
    try {
      // Racing the timer as well as aborting: an injected fetch may ignore the signal.
      const exchange = (async () => {
        const response = await this.fetchFunction(
          new Request(request.url, {
            method: request.method,
            headers: request.headers,
            redirect: 'manual',
            signal: controller.signal,
            ...(request.body === undefined ? {} : { body: request.body }),
          }),
        );
        const bodyText = await response.text();
        return { response, bodyText };
      })();
      exchange.catch(() => undefined);
      const { response, bodyText } = await Promise.race([exchange, timeout]);
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        headers[name] = value;
      });
      return {
        response: {
          status: response.status,
          headers,
          contentType: response.headers.get('content-type'),
          bodyText,
          json: parseJson(bodyText),
        },
      };
    } catch (error) {
      if (error instanceof TimeoutError) return { error: `no answer within ${this.options.timeoutMs} ms (--timeout)` };
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      return { error: `request failed: ${cause?.code ?? cause?.message ?? (error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }
}

function withoutBodyHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^content-(type|length)$/i.test(name)));
}
