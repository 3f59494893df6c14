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
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { type UpstreamClient, UpstreamError } from './upstream-client.js';

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

/** The names a message's Connection header lists: hop-by-hop for that message too. */
function connectionListed(connection: string | string[] | undefined): Set<string> | undefined {
  if (connection === undefined) return undefined;
  return new Set(
    String(connection)
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
}

/**
 * The request's end-to-end header lines for the upstream, names and repeats as the client sent
 * them: hop-by-hop ones, those its Connection header lists, Host and Content-Length dropped (the
 * upstream client sets Host to the upstream's and frames the body itself).
 */
export function endToEndRequestHeaders(rawHeaders: readonly string[], connection: string | string[] | undefined): [string, string][] {
  const listed = connectionListed(connection);
  const kept: [string, string][] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!;
    const lower = name.toLowerCase();
    if (hopByHop.has(lower) || lower === 'host' || lower === 'content-length' || listed?.has(lower)) continue;
    kept.push([name, rawHeaders[index + 1]!]);
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
  /** Keep-alive connections to the upstream (its answers bounded by `limits.maxResponseBytes`). */
  readonly client: UpstreamClient;
  /**
   * The request body already read whole (the proxy reads it first when it may refuse the request
   * without forwarding it, with --errors); otherwise it is streamed from `incoming`.
   */
  readonly bufferedBody?: Buffer;
  /** Registers what to do when the client has gone: the upstream request is cut at once. */
  readonly onClientLeft?: (leave: () => void) => void;
}

/** Sends the client's request to the upstream and reads its answer, within the limits. */
export function forward(options: ForwardOptions): Promise<ForwardOutcome> {
  const { incoming, upstream, limits } = options;
  const started = performance.now();
  const target = incoming.url ?? '/';
  const method = incoming.method ?? 'GET';
  const basePath = upstream.pathname.length > 1 ? upstream.pathname.replace(/\/+$/, '') : '';
  const captured: Buffer[] = [];
  let capturedBytes = 0;
  let bytes = 0;
  const keep = (chunk: Buffer) => {
    bytes += chunk.length;
    if (capturedBytes >= limits.maxCapturedRequestBytes) return;
    const part =
      chunk.length <= limits.maxCapturedRequestBytes - capturedBytes
        ? chunk
        : chunk.subarray(0, limits.maxCapturedRequestBytes - capturedBytes);
    captured.push(part);
    capturedBytes += part.length;
  };
  const forwarded = (): ForwardedRequest => ({
    method,
    target,
    headers: incoming.headers,
    body: captured.length === 1 ? captured[0]! : Buffer.concat(captured, capturedBytes),
    bodyCut: bytes > capturedBytes,
    bytes,
  });
  const declaredLength = incoming.headers['content-length'];
  const streamed =
    options.bufferedBody === undefined && (declaredLength !== undefined || incoming.headers['transfer-encoding'] !== undefined);
  if (options.bufferedBody !== undefined) keep(options.bufferedBody);

  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: ForwardOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // An answer that came before the whole request: the rest of its body is read and dropped, so the client's connection stays usable.
      if (streamed && !incoming.complete) incoming.resume();
      resolve(outcome);
    };
    const failed = (cause: Extract<ForwardOutcome, { kind: 'failed' }>['cause'], reason: string) => {
      if (settled) return;
      call.abort();
      finish({ kind: 'failed', request: forwarded(), cause, reason, durationMs: performance.now() - started });
    };
    const call = options.client.request({
      method,
      path: `${basePath}${target}`,
      headers: endToEndRequestHeaders(incoming.rawHeaders, incoming.headers.connection),
      ...(options.bufferedBody !== undefined
        ? { body: options.bufferedBody }
        : streamed
          ? { body: { stream: true, ...(declaredLength === undefined ? {} : { length: Number(declaredLength) }) } }
          : {}),
    });
    const deadline = setTimeout(
      () => failed('timeout', `the upstream did not answer within ${limits.timeoutMs} ms (--timeout)`),
      limits.timeoutMs,
    );
    call.answer.then(
      (answer) => finish({ kind: 'answered', request: forwarded(), answer, durationMs: performance.now() - started }),
      (error: unknown) => {
        if (settled) return;
        const failure = error instanceof UpstreamError ? error : new UpstreamError('closed', String(error));
        if (failure.kind === 'unreachable') failed('unreachable', `the upstream ${upstream.origin} ${failure.message}`);
        else failed(failure.kind === 'too-large' ? 'too-large' : 'closed', failure.message);
      },
    );
    options.onClientLeft?.(() => failed('client-left', 'the client left before its answer'));
    if (streamed) {
      incoming.on('data', (chunk: Buffer) => {
        keep(chunk);
        if (!call.write(chunk)) {
          incoming.pause();
          call.onDrain(() => incoming.resume());
        }
      });
      incoming.on('end', () => call.end());
      incoming.on('aborted', () => failed('client-left', 'the client left before its request was whole'));
    } else if (options.bufferedBody === undefined) {
      // No body announced: whatever else arrives is not forwarded, and the stream must end for the connection to be reused.
      incoming.resume();
    }
  });
}

/**
 * The upstream's raw headers for the client: end-to-end ones only (hop-by-hop headers and those
 * its Connection header lists dropped), names and repeats as the upstream sent them; the length
 * is set again from the body passed on.
 */
export function answerHeadersForClient(answer: UpstreamAnswer, options: { method: string }): [string, string][] {
  const listed = connectionListed(answer.headers.connection);
  const keepsStatedLength = options.method.toUpperCase() === 'HEAD' || answer.status === 304;
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < answer.rawHeaders.length; index += 2) {
    const name = answer.rawHeaders[index]!;
    const lower = name.toLowerCase();
    if (hopByHop.has(lower) || listed?.has(lower)) continue;
    // The length is set below, once, from the body or (HEAD, 304) the value the upstream stated, checked and normalised.
    if (lower === 'content-length') continue;
    pairs.push([name, answer.rawHeaders[index + 1]!]);
  }
  // A HEAD or 304 answer's length is the one the upstream stated for the body it did not send.
  const stated = answer.headers['content-length'];
  if (keepsStatedLength && stated !== undefined) pairs.push(['Content-Length', stated]);
  // No length on an answer that never has a body (RFC 9110 §8.6); otherwise the body's own.
  if (!keepsStatedLength && answer.status !== 204 && answer.status >= 200) pairs.push(['Content-Length', String(answer.body.length)]);
  return pairs;
}
