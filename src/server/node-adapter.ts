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
 * The request body as chunks, read once by whichever of the two paths serves the request:
 * taken as they arrive, the socket paused after four unread ones; a client that leaves (or is
 * cut off by a timeout) before the end makes the body 'failed', so the engine never waits for
 * the rest forever; discarding drops what is queued and lets the rest flow away.
 */
interface BodySource {
  next(): Promise<Uint8Array | 'end' | 'failed'>;
  discard(): void;
}

function bodySource(incoming: IncomingMessage): BodySource {
  const queue: Uint8Array[] = [];
  let state: 'open' | 'ended' | 'failed' | 'discarded' = 'open';
  let wake: (() => void) | undefined;
  const notify = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  incoming.on('data', (chunk: Buffer) => {
    queue.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
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
  incoming.once('close', fail);
  return {
    async next() {
      for (;;) {
        if (state === 'failed') return 'failed';
        const chunk = queue.shift();
        if (chunk) return chunk;
        if (state !== 'open') return 'end';
        incoming.resume();
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    },
    discard() {
      if (state === 'open') state = 'discarded';
      queue.length = 0;
      incoming.removeAllListeners('data');
      incoming.resume();
    },
  };
}

/**
 * A ReadableStream over the request body. Cancelling it (the engine refusing a body) does not
 * destroy the socket — that would lose the 413 answer — but discards the rest as it arrives.
 */
function bodyStream(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  const source = bodySource(incoming);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = await source.next();
      if (chunk === 'end') controller.close();
      else if (chunk === 'failed') controller.error(new Error('the client closed the connection before the body was complete'));
      else controller.enqueue(chunk);
    },
    cancel() {
      source.discard();
    },
  });
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
const forbiddenInValue = /[\0\r\n]/;

function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/**
 * A header value without leading and trailing HTTP whitespace (tab, LF, CR, space), as Fetch's
 * Headers normalises it. Index loops, not a regex: the regex `/^[\t\n\r ]+|[\t\n\r ]+$/g`
 * retries its second branch from every inner whitespace character to the end of the run, so a
 * value with 16,000 spaces inside cost about half a second of CPU per request.
 */
export function trimHttpWhitespace(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start += 1;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/** The whole body, up to `limit` bytes: past it the rest is discarded and the answer is 'too_large'. */
async function readWhole(source: BodySource, limit: number): Promise<Uint8Array | 'too_large' | 'unreadable'> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (let chunk = await source.next(); chunk !== 'end'; chunk = await source.next()) {
    if (chunk === 'failed') return 'unreadable';
    total += chunk.byteLength;
    if (total > limit) {
      source.discard();
      return 'too_large';
    }
    chunks.push(chunk);
  }
  return joinChunks(chunks, total);
}

/** A Host header's authority: a reg-name or IPv4 address, or an IP literal, with an optional port. */
const hostAuthority = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9._~-]{1,253})(?::\d{1,5})?$/;

/**
 * The origin a client sent `incoming` to (`http://host:port`, from its Host header), or undefined
 * when the Host is missing or no plain authority: the engine fills a profile's Location
 * `{origin}` with it, so only a well-formed one may reach an answer's header.
 */
export function requestOrigin(incoming: IncomingMessage, options: { tls: boolean }): string | undefined {
  const host = incoming.headers.host;
  return host !== undefined && hostAuthority.test(host) ? `${options.tls ? 'https' : 'http'}://${host.toLowerCase()}` : undefined;
}

/**
 * IncomingMessage → the engine's EngineCall, for the requests whose Fetch form is plain:
 * GET, HEAD or POST to a target whose pathname needs no URL normalisation. Any other request
 * returns undefined and goes through toFetchRequest, so odd requests keep exactly the answers
 * Fetch's own parsing gives them.
 */
export function toEngineCall(incoming: IncomingMessage, options: { tls: boolean } = { tls: false }): EngineCall | undefined {
  const method = incoming.method;
  if (method !== 'GET' && method !== 'HEAD' && method !== 'POST') return undefined;
  const match = plainTarget.exec(incoming.url ?? '');
  if (!match) return undefined;
  let headers: Map<string, string> | undefined;
  // Built on first use, with Headers.get's semantics: names case-insensitive, values trimmed,
  // repeated names joined by ', ', values Fetch refuses dropped.
  const headerMap = (): Map<string, string> => {
    if (!headers) {
      headers = new Map();
      const raw = incoming.rawHeaders;
      for (let index = 0; index + 1 < raw.length; index += 2) {
        const key = raw[index]!;
        const value = trimHttpWhitespace(raw[index + 1]!);
        if (!token.test(key) || forbiddenInValue.test(value)) continue;
        const lower = key.toLowerCase();
        const previous = headers.get(lower);
        headers.set(lower, previous === undefined ? value : `${previous}, ${value}`);
      }
    }
    return headers;
  };
  const header = (name: string): string | null => headerMap().get(name) ?? null;
  const body = method === 'POST' ? bodySource(incoming) : undefined;
  return {
    method,
    pathname: match[1]!,
    header,
    headerNames: () => headerMap().keys(),
    async readBody(limit) {
      const declared = Number(header('content-length') ?? Number.NaN);
      if (Number.isFinite(declared) && declared > limit) {
        body?.discard();
        return 'too_large';
      }
      return body ? readWhole(body, limit) : new Uint8Array(0);
    },
    discardBody: () => body?.discard(),
    origin: () => requestOrigin(incoming, options),
  };
}

/**
 * The engine's answer → ServerResponse, with `extraHeaders` (CORS, say) first, as
 * sendFetchResponse writes it. One writeHead with a flat list of lines: on every request,
 * setHeader's map and its checks per header cost more than the answer's own work.
 */
export function sendAnswer(answer: EngineAnswer, outgoing: ServerResponse, extraHeaders: Record<string, string> = {}): void {
  const own = answer.headers;
  const length = answer.body === null ? undefined : String(Buffer.byteLength(answer.body));
  const lines: string[] = [];
  // As setHeader would: a name set twice keeps its first place and takes its last value.
  const lineValue = (name: string, fallback: string) =>
    name === 'content-length' && length !== undefined ? length : Object.hasOwn(own, name) ? own[name]! : fallback;
  for (const name in extraHeaders) lines.push(name, lineValue(name, extraHeaders[name]!));
  // Fetch's Headers iterates in name order; keep that order on the wire.
  const names = Object.keys(own);
  if (names.length > 1) names.sort();
  for (const name of names) if (!Object.hasOwn(extraHeaders, name)) lines.push(name, lineValue(name, own[name]!));
  if (length !== undefined && !Object.hasOwn(own, 'content-length') && !Object.hasOwn(extraHeaders, 'content-length'))
    lines.push('content-length', length);
  outgoing.writeHead(answer.status, lines);
  if (answer.body === null) outgoing.end();
  else outgoing.end(answer.body);
}
