/**
 * @module proxy/forward
 * One request passed to the upstream and its answer passed back, as a reverse proxy must:
 * method, path, query, status and end-to-end headers kept; hop-by-hop headers (RFC 9110 §7.6.1)
 * dropped both ways, with any header the Connection header names; `Host` set to the upstream's;
 * redirects passed back, never followed. Both bodies are bounded: the request body is streamed
 * to the upstream as it arrives (kept, up to a cap, for judging), and the answer is read whole,
 * up to `maxResponseBytes`, within `timeoutMs`, so that it can be judged before the client gets
 * it — which is what lets the proxy add a Contract-Violations header, or answer 502 instead.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';

/** Headers that describe one connection, not the message: never forwarded (RFC 9110 §7.6.1). */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The message's own headers: hop-by-hop ones and those the Connection header lists removed. */
export function endToEndHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const listed = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || hopByHop.has(name) || listed.has(name)) continue;
    kept[name] = value;
  }
  return kept;
}

export interface ForwardLimits {
  /** How long the upstream may take to answer, body included. */
  readonly timeoutMs: number;
  /** The largest answer body passed back; a larger one is cut and reported. */
  readonly maxResponseBytes: number;
  /** How much of the request body is kept for judging (all of it is forwarded). */
  readonly maxCapturedRequestBytes: number;
}

export interface ForwardedRequest {
  readonly method: string;
  /** Path and query, as the client sent them. */
  readonly target: string;
  readonly headers: IncomingHttpHeaders;
  /** The body as far as it was kept. */
  readonly body: Buffer;
  /** The body was longer than `maxCapturedRequestBytes`; `bytes` says how long. */
  readonly bodyCut: boolean;
  readonly bytes: number;
}

export interface UpstreamAnswer {
  readonly status: number;
  /** End-to-end headers of the answer, as the upstream sent them. */
  readonly headers: IncomingHttpHeaders;
  /** Raw headers (names in their case, repeated ones kept), for passing back unchanged. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

export type ForwardOutcome =
  | { readonly kind: 'answered'; readonly request: ForwardedRequest; readonly answer: UpstreamAnswer; readonly durationMs: number }
  | {
      readonly kind: 'failed';
      readonly request: ForwardedRequest;
      /** In plain words: "the upstream did not answer within 30000 ms", "answer larger than …". */
      readonly reason: string;
      readonly cause: 'timeout' | 'too-large' | 'unreachable' | 'closed' | 'client-left';
      readonly durationMs: number;
    };

export interface ForwardOptions {
  readonly incoming: IncomingMessage;
  /** The upstream's origin and base path, e.g. http://staging.internal:8080/api. */
  readonly upstream: URL;
  readonly limits: ForwardLimits;
  /** Keep-alive agents for http and https upstreams. */
  readonly agents: { readonly http: http.Agent; readonly https: https.Agent };
  /**
   * The request body already read whole (the proxy reads it first when it may refuse the request
   * without forwarding it, with --errors); otherwise it is streamed from `incoming`.
   */
  readonly bufferedBody?: Buffer;
  /** Aborted when the client has gone: the upstream request is cut at once. */
  readonly signal?: AbortSignal;
}

/** Sends the client's request to the upstream and reads its answer, within the limits. */
export function forward(options: ForwardOptions): Promise<ForwardOutcome> {
  const { incoming, upstream, limits } = options;
  const started = performance.now();
  const target = incoming.url ?? '/';
  const secure = upstream.protocol === 'https:';
  const basePath = upstream.pathname.replace(/\/+$/, '');
  const headers = endToEndHeaders(incoming.headers);
  headers.host = upstream.host;
  const captured: Buffer[] = [];
  let capturedBytes = 0;
  let bytes = 0;
  const keep = (chunk: Buffer) => {
    bytes += chunk.length;
    if (capturedBytes >= limits.maxCapturedRequestBytes) return;
    const part = chunk.subarray(0, limits.maxCapturedRequestBytes - capturedBytes);
    captured.push(part);
    capturedBytes += part.length;
  };
  const forwarded = (): ForwardedRequest => ({
    method: incoming.method ?? 'GET',
    target,
    headers: incoming.headers,
    body: Buffer.concat(captured),
    bodyCut: bytes > capturedBytes,
    bytes,
  });

  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: ForwardOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(outcome);
    };
    const failed = (cause: Extract<ForwardOutcome, { kind: 'failed' }>['cause'], reason: string) => {
      upstreamRequest.destroy();
      finish({ kind: 'failed', request: forwarded(), cause, reason, durationMs: performance.now() - started });
    };
    const upstreamRequest = (secure ? https : http).request({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port || (secure ? 443 : 80),
      method: incoming.method,
      path: `${basePath}${target}`,
      headers,
      agent: secure ? options.agents.https : options.agents.http,
    });
    const deadline = setTimeout(
      () => failed('timeout', `the upstream did not answer within ${limits.timeoutMs} ms (--timeout)`),
      limits.timeoutMs,
    );
    upstreamRequest.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      const unreachable = error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH';
      failed(
        unreachable ? 'unreachable' : 'closed',
        unreachable
          ? `the upstream ${upstream.origin} cannot be reached (${error.code})`
          : 'the upstream closed the connection before its answer was whole',
      );
    });
    upstreamRequest.on('response', (response) => {
      const chunks: Buffer[] = [];
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > limits.maxResponseBytes) {
          response.destroy();
          failed('too-large', `the upstream's answer is larger than ${limits.maxResponseBytes} bytes (--max-response-bytes)`);
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        finish({
          kind: 'answered',
          request: forwarded(),
          answer: {
            status: response.statusCode ?? 502,
            headers: response.headers,
            rawHeaders: response.rawHeaders,
            body: Buffer.concat(chunks),
          },
          durationMs: performance.now() - started,
        }),
      );
      response.on('aborted', () => failed('closed', 'the upstream closed the connection mid-answer'));
      response.on('error', () => failed('closed', 'the upstream closed the connection mid-answer'));
    });
    incoming.on('aborted', () => failed('client-left', 'the client left before its request was whole'));
    const leave = () => failed('client-left', 'the client left before its answer');
    if (options.signal?.aborted) leave();
    else options.signal?.addEventListener('abort', leave, { once: true });
    if (options.bufferedBody !== undefined) {
      keep(options.bufferedBody);
      upstreamRequest.end(options.bufferedBody);
    } else {
      incoming.on('data', keep);
      incoming.pipe(upstreamRequest);
    }
  });
}

/**
 * The upstream's raw headers for the client: end-to-end ones only (hop-by-hop headers and those
 * its Connection header lists dropped), names and repeats as the upstream sent them; the length
 * is set again from the body passed on.
 */
export function answerHeadersForClient(answer: UpstreamAnswer, options: { method: string }): [string, string][] {
  const listed = new Set(
    String(answer.headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const keepsStatedLength = options.method.toUpperCase() === 'HEAD' || answer.status === 304;
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2) {
    const name = answer.rawHeaders[index]!;
    const lower = name.toLowerCase();
    if (hopByHop.has(lower) || listed.has(lower)) continue;
    // A HEAD or 304 answer's length is the one the upstream stated for the body it did not send.
    if (lower === 'content-length' && !keepsStatedLength) continue;
    pairs.push([name, answer.rawHeaders[index + 1]!]);
  }
  // No length on an answer that never has a body (RFC 9110 §8.6); otherwise the body's own.
  if (!keepsStatedLength && answer.status !== 204 && answer.status >= 200) pairs.push(['Content-Length', String(answer.body.length)]);
  return pairs;
}
