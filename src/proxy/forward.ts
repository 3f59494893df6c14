/**
 * @module proxy/forward
 * One request passed to the upstream and its answer passed back, as a reverse proxy must:
 * method, path, query, status and end-to-end headers kept; hop-by-hop headers (RFC 9110 §7.6.1)
 * dropped both ways, with any header the Connection header names; `Host` set to the upstream's;
 * redirects passed back, never followed. The request body is streamed to the upstream as it
 * arrives (kept, up to a cap, for judging); the answer is read whole through the one outbound
 * client (src/http), within its caps and deadline, so that it can be judged before the client
 * gets it.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { CappedBuffer, readCapped } from '../http/capped-buffer.js';
import { connectionListed, hopByHopHeaders } from '../http/headers.js';
import type { OutboundClient } from '../http/outbound-client.js';

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
    // Expect is answered here, not upstream: the proxy reads the body itself.
    if (hopByHopHeaders.has(lower) || lower === 'host' || lower === 'content-length' || lower === 'expect' || listed?.has(lower)) continue;
    kept.push([name, rawHeaders[index + 1]!]);
  }
  return kept;
}

export interface ForwardLimits {
  /** How long the upstream may take to answer, body included. */
  readonly timeoutMs: number;
  /** The largest answer body passed back; a larger one is refused and reported. */
  readonly maxResponseBytes: number;
  /** How much of the request body is kept for judging (all of it is forwarded). */
  readonly maxCapturedRequestBytes: number;
}

export interface ForwardedRequest {
  readonly method: string;
  /** Path and query, origin-form. */
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
  /** One string per lower-case name. */
  readonly headers: Record<string, string>;
  /** Header pairs as the upstream sent them, repeats kept, for passing back unchanged. */
  readonly headerPairs: readonly [string, string][];
  /** As sent (not decoded). */
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
  /** Path and query to forward (origin-form, checked by targets.ts). */
  readonly target: string;
  /** The upstream's origin and base path, e.g. http://staging.internal:8080/api. */
  readonly upstream: URL;
  readonly limits: ForwardLimits;
  readonly client: OutboundClient;
  /**
   * The request body already read whole (the proxy reads it first when it may refuse the request
   * without forwarding it, with --errors); otherwise it is streamed from `incoming`.
   */
  readonly bufferedBody?: Buffer;
  /** Registers what to do when the client has gone: the upstream request is cut at once. */
  readonly onClientLeft: (leave: () => void) => void;
}

/** Sends the client's request to the upstream and reads its answer, within the limits. */
export async function forward(options: ForwardOptions): Promise<ForwardOutcome> {
  const { incoming, upstream, limits } = options;
  const started = performance.now();
  const method = incoming.method ?? 'GET';
  const basePath = upstream.pathname.length > 1 ? upstream.pathname.replace(/\/+$/, '') : '';
  const captured = new CappedBuffer(limits.maxCapturedRequestBytes);
  const declaredLength = incoming.headers['content-length'];
  let bufferedBody = options.bufferedBody;
  // A body of a stated length the proxy keeps whole anyway is read first and sent as one buffer:
  // a stream per small body costs more than it saves (docs/performance.md, proxy section).
  if (bufferedBody === undefined && declaredLength !== undefined && incoming.headers['transfer-encoding'] === undefined) {
    const length = Number(declaredLength);
    if (Number.isInteger(length) && length <= limits.maxCapturedRequestBytes) {
      try {
        bufferedBody = (await readCapped(incoming, limits.maxCapturedRequestBytes)).body;
      } catch {
        const request: ForwardedRequest = {
          method,
          target: options.target,
          headers: incoming.headers,
          body: Buffer.alloc(0),
          bodyCut: true,
          bytes: 0,
        };
        return {
          kind: 'failed',
          request,
          cause: 'client-left',
          reason: 'the client left before its request was whole',
          durationMs: performance.now() - started,
        };
      }
    }
  }
  const streamed = bufferedBody === undefined && (declaredLength !== undefined || incoming.headers['transfer-encoding'] !== undefined);
  if (bufferedBody !== undefined) captured.add(bufferedBody);
  else if (!streamed) incoming.resume(); // no body announced: the stream must end for the connection to be reused
  const forwarded = (): ForwardedRequest => ({
    method,
    target: options.target,
    headers: incoming.headers,
    body: captured.body,
    bodyCut: captured.cut,
    bytes: captured.bytes,
  });
  const headers = endToEndRequestHeaders(incoming.rawHeaders, incoming.headers.connection);
  if (streamed && declaredLength !== undefined) headers.push(['content-length', declaredLength]);
  const stream = streamed ? streamBody(incoming, captured) : undefined;
  const outcome = await options.client.send({
    method,
    url: `${upstream.origin}${basePath}/`,
    // The target as the client wrote it: resolving `..` or `%2e%2e` here could leave the base path.
    target: `${basePath}${visibleAscii(options.target)}`,
    headers,
    ...(bufferedBody !== undefined ? { body: bufferedBody } : stream ? { body: stream.body } : {}),
    onCancel: options.onClientLeft,
  });
  // An answer that came before the whole request: the rest of its body is read and dropped, so the client's connection stays usable.
  stream?.release();
  const durationMs = performance.now() - started;
  if (outcome.interrupted)
    return { kind: 'failed', request: forwarded(), cause: 'client-left', reason: 'the client left before its answer', durationMs };
  const answer = outcome.answer;
  if (answer && !answer.partial)
    return {
      kind: 'answered',
      request: forwarded(),
      answer: { status: answer.status, headers: answer.headers, headerPairs: answer.headerPairs, body: answer.body },
      durationMs,
    };
  if (answer?.partial?.reason === 'too-large')
    return {
      kind: 'failed',
      request: forwarded(),
      cause: 'too-large',
      reason: `the upstream's answer is larger than ${limits.maxResponseBytes} bytes (--max-response-bytes)`,
      durationMs,
    };
  if (outcome.timedOut)
    return {
      kind: 'failed',
      request: forwarded(),
      cause: 'timeout',
      reason: `the upstream did not answer within ${limits.timeoutMs} ms (--timeout)`,
      durationMs,
    };
  const message = answer?.partial?.message ?? outcome.failure?.message ?? 'no answer';
  if (outcome.failure?.kind === 'unreachable')
    return {
      kind: 'failed',
      request: forwarded(),
      cause: 'unreachable',
      reason: `the upstream ${upstream.origin}: ${message}`,
      durationMs,
    };
  return { kind: 'failed', request: forwarded(), cause: 'closed', reason: `the upstream's answer: ${message}`, durationMs };
}

/** A target's bytes outside visible ASCII (Node reads the target as latin1) percent-encoded, as RFC 3986 writes them. */
function visibleAscii(target: string): string {
  return target.replace(/[^\x21-\x7e]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/**
 * The client's body as it arrives, kept (up to the cap) for judging while it is forwarded, with
 * backpressure. `release()` once the exchange is over: whatever is still to come is read and
 * dropped, so the client's connection can carry its next request.
 */
function streamBody(incoming: IncomingMessage, captured: CappedBuffer): { body: PassThrough; release(): void } {
  const body = new PassThrough();
  let forwarding = true;
  const resume = () => incoming.resume();
  body.on('drain', resume);
  incoming.on('data', (chunk: Buffer) => {
    captured.add(chunk);
    if (forwarding && !body.write(chunk)) incoming.pause();
  });
  incoming.on('end', () => body.end());
  incoming.on('error', (error) => body.destroy(error));
  return {
    body,
    release: () => {
      forwarding = false;
      body.off('drain', resume);
      if (!body.destroyed) body.destroy();
      if (!incoming.complete) incoming.resume();
    },
  };
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
  for (const [name, value] of answer.headerPairs) {
    const lower = name.toLowerCase();
    if (hopByHopHeaders.has(lower) || listed?.has(lower)) continue;
    // The length is set below, once, from the body or (HEAD, 304) the value the upstream stated, checked and normalised.
    if (lower === 'content-length') continue;
    pairs.push([name, value]);
  }
  // A HEAD or 304 answer's length is the one the upstream stated for the body it did not send.
  const stated = answer.headers['content-length'];
  if (keepsStatedLength && stated !== undefined) pairs.push(['Content-Length', stated]);
  // No length on an answer that never has a body (RFC 9110 §8.6); otherwise the body's own.
  if (!keepsStatedLength && answer.status !== 204 && answer.status >= 200) pairs.push(['Content-Length', String(answer.body.length)]);
  return pairs;
}
