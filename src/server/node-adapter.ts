/**
 * @module server/node-adapter
 * The two converters between node:http and the Fetch API that the engine speaks:
 * IncomingMessage → Request (the body streamed, not buffered, so the engine can refuse an
 * oversized one while reading) and Response → ServerResponse (multi-value headers kept, the
 * body streamed with backpressure).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type EngineAnswer, type EngineCall, joinChunks } from '../engine/index.js';

/**
 * A ReadableStream over the request body. Cancelling it (the engine refusing a body) does not
 * destroy the socket — that would lose the 413 answer — but discards the rest as it arrives.
 */
function bodyStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        incoming.on('data', (chunk: Buffer) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
        });
        let ended = false;
        incoming.once('end', () => {
          ended = true;
          if (!cancelled) controller.close();
        });
        incoming.once('error', (error) => {
          if (!cancelled) controller.error(error);
        });
        // A client that goes away (or is cut off by a timeout) mid-body: without this the
        // engine would wait for the rest forever, holding the request's memory.
        incoming.once('close', () => {
          if (!ended && !cancelled) controller.error(new Error('the client closed the connection before the body was complete'));
        });
      },
      pull() {
        incoming.resume();
      },
      cancel() {
        cancelled = true;
        incoming.removeAllListeners('data');
        incoming.resume();
      },
    },
    { highWaterMark: 4 },
  );
}

export interface ToRequestOptions {
  /** Origin for the Request URL; the Host header is not trusted to build it. */
  readonly origin: string;
}

/** IncomingMessage → Request. Throws a TypeError for a request line Fetch cannot represent. */
export function toFetchRequest(incoming: IncomingMessage, options: ToRequestOptions): Request {
  const target = incoming.url ?? '/';
  // Origin-form targets ('/v0/jobs') are joined as text: new URL('//x', base) would read a
  // doubled slash as a host name.
  const url = target.startsWith('/') ? new URL(`${options.origin}${target}`) : new URL(target);
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    try {
      headers.append(raw[index]!, raw[index + 1]!);
    } catch {
      // A header value Fetch refuses (control characters) is dropped rather than failing the request.
    }
  }
  const method = incoming.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(url, {
    method,
    headers,
    ...(hasBody ? { body: bodyStream(incoming), duplex: 'half' } : {}),
  } as RequestInit);
}

/** Response → ServerResponse, with `extraHeaders` (CORS, say) added. */
export async function sendFetchResponse(
  response: Response,
  outgoing: ServerResponse,
  extraHeaders: Record<string, string> = {},
): Promise<void> {
  outgoing.statusCode = response.status;
  for (const [name, value] of Object.entries(extraHeaders)) outgoing.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) outgoing.setHeader('set-cookie', cookies);
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') outgoing.setHeader(name, value);
  });
  if (!response.body) {
    outgoing.end();
    return;
  }
  const reader = response.body.getReader();
  const first = await reader.read();
  if (first.done) {
    outgoing.end();
    return;
  }
  const second = await reader.read();
  if (second.done) {
    // The common case, a small JSON body in one chunk: one write, with Content-Length.
    outgoing.setHeader('content-length', first.value.byteLength);
    outgoing.end(first.value);
    return;
  }
  outgoing.write(first.value);
  let chunk: ReadableStreamReadResult<Uint8Array> = second;
  while (!chunk.done) {
    if (!outgoing.write(chunk.value)) await new Promise((resolve) => outgoing.once('drain', resolve));
    chunk = await reader.read();
  }
  outgoing.end();
}

// ── the engine's own exchange, without Fetch objects ──────────────────────────────────────

/** Targets whose pathname `new URL` would return unchanged: no dot segments, no escapes, no odd characters. */
const plainTarget = /^(\/[A-Za-z0-9\-_~/]*)(?:\?.*)?$/s;
/** Header names and values as Fetch's Headers accepts them (others are dropped, as toFetchRequest drops them). */
const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const httpWhitespace = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const forbiddenInValue = /[\0\r\n]/;

/**
 * A request body read straight from the IncomingMessage, with the web-stream adapter's
 * semantics: chunks are taken as they arrive (pausing the socket after four unread ones), a
 * client that leaves before the end makes the body unreadable, and discarding drops the rest.
 */
function nodeBody(incoming: IncomingMessage): { read(limit: number): Promise<Uint8Array | 'too_large' | 'unreadable'>; discard(): void } {
  const queue: Uint8Array[] = [];
  let state: 'open' | 'ended' | 'failed' | 'discarded' = 'open';
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  incoming.on('data', (chunk: Buffer) => {
    queue.push(chunk);
    if (queue.length >= 4) incoming.pause();
    notify();
  });
  incoming.once('end', () => {
    if (state === 'open') state = 'ended';
    notify();
  });
  const fail = () => {
    if (state === 'open') state = 'failed';
    notify();
  };
  incoming.once('error', fail);
  // As in bodyStream: without this a client leaving mid-body would leave the engine waiting forever.
  incoming.once('close', fail);
  const discard = () => {
    if (state === 'open') state = 'discarded';
    queue.length = 0;
    incoming.removeAllListeners('data');
    incoming.resume();
  };
  return {
    discard,
    async read(limit) {
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        if (state === 'failed') return 'unreadable';
        const chunk = queue.shift();
        if (chunk) {
          total += chunk.byteLength;
          if (total > limit) {
            discard();
            return 'too_large';
          }
          chunks.push(chunk);
          continue;
        }
        if (state !== 'open') break;
        incoming.resume();
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      return joinChunks(chunks, total);
    },
  };
}

/**
 * IncomingMessage → the engine's EngineCall, for the requests whose Fetch form is plain:
 * GET, HEAD or POST to a target whose pathname needs no URL normalisation. Any other request
 * returns undefined and goes through toFetchRequest, so odd requests keep exactly the answers
 * Fetch's own parsing gives them.
 */
export function toEngineCall(incoming: IncomingMessage): EngineCall | undefined {
  const method = incoming.method;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return undefined;
  const match = plainTarget.exec(incoming.url ?? '');
  if (!match) return undefined;
  let headers: Map<string, string> | undefined;
  // Built on first use, with Headers.get's semantics: names case-insensitive, values trimmed,
  // repeated names joined by ', ', values Fetch refuses dropped.
  const header = (name: string): string | null => {
    if (!headers) {
      headers = new Map();
      const raw = incoming.rawHeaders;
      for (let index = 0; index + 1 < raw.length; index += 2) {
        const key = raw[index]!;
        const value = raw[index + 1]!.replace(httpWhitespace, '');
        if (!token.test(key) || forbiddenInValue.test(value)) continue;
        const lower = key.toLowerCase();
        const previous = headers.get(lower);
        headers.set(lower, previous === undefined ? value : `${previous}, ${value}`);
      }
    }
    return headers.get(name) ?? null;
  };
  const body = method === 'POST' ? nodeBody(incoming) : undefined;
  return {
    method,
    pathname: match[1]!,
    header,
    async readBody(limit) {
      const declared = Number(header('content-length') ?? Number.NaN);
      if (Number.isFinite(declared) && declared > limit) {
        body?.discard();
        return 'too_large';
      }
      return body ? body.read(limit) : new Uint8Array(0);
    },
    discardBody: () => body?.discard(),
  };
}

/** The engine's answer → ServerResponse, with `extraHeaders` (CORS, say) first, as sendFetchResponse writes it. */
export function sendAnswer(answer: EngineAnswer, outgoing: ServerResponse, extraHeaders: Record<string, string> = {}): void {
  outgoing.statusCode = answer.status;
  for (const name in extraHeaders) outgoing.setHeader(name, extraHeaders[name]!);
  // Fetch's Headers iterates in name order; keep that order on the wire.
  const names = Object.keys(answer.headers);
  if (names.length > 1) names.sort();
  for (const name of names) outgoing.setHeader(name, answer.headers[name]!);
  if (answer.body === null) {
    outgoing.end();
    return;
  }
  outgoing.setHeader('content-length', Buffer.byteLength(answer.body));
  outgoing.end(answer.body);
}
