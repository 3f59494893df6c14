/**
 * @module engine/call
 * The engine's own view of an exchange: the few parts of a request it reads (method, path,
 * headers, a size-limited body) and the answer it gives (status, headers, JSON text). Fetch
 * Requests and Responses are converted at the edge (`callFromRequest`, `answerToResponse`),
 * so a server that is not Fetch-based (the node:http server) can call the engine without
 * building a Request, a Headers, an AbortSignal, a ReadableStream and a Response per request,
 * which profiling showed to cost more than the engine's own work.
 */

export interface EngineCall {
  /** The request method, as received. */
  readonly method: string;
  /** The request URL's pathname, exactly as `new URL(url).pathname` gives it. */
  readonly pathname: string;
  /** A header as Fetch's `Headers.get` gives it: every value of that name joined by ', ', or null. */
  header(name: string): string | null;
  /**
   * The names of the headers the request carries, in lower case. Optional: without it, a reader
   * looking for any of a list of headers (credentials.ts looks for about thirty) asks `header`
   * for each name of the list, which on a Fetch request is a `Headers.get` per name, where a
   * request carries a handful of headers.
   */
  headerNames?(): Iterable<string>;
  /**
   * The whole body, or 'too_large' as soon as more than `limit` bytes are declared or arrive
   * (the rest is then discarded unread), or 'unreadable' when the body failed before its end
   * (the client went away mid-body). Empty when there is no body.
   */
  readBody(limit: number): Promise<Uint8Array | 'too_large' | 'unreadable'>;
  /** Discards a body the engine will not read. Never awaited (see `discardBody`). */
  discardBody(): void;
  /**
   * The origin the request was sent to (`http://host:port`), as its client sees it: a profile's
   * Location `{origin}` is filled with it. Optional, read only then; unknown: undefined.
   */
  origin?(): string | undefined;
}

export interface EngineAnswer {
  readonly status: number;
  /** Lowercase header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body text (JSON), or null for none (answers to HEAD). */
  readonly body: string | null;
}

/**
 * Discards a body the engine will not read. Not awaited: under MSW the request body is a
 * stream whose cancel() may only settle when the interceptor finishes, after our answer.
 */
function discardRequestBody(request: Request): void {
  if (request.body && !request.bodyUsed && !request.body.locked) request.body.cancel().catch(() => undefined);
}

/** Reads a Fetch body up to `limit` bytes; an oversized one is never buffered whole. */
async function readLimited(request: Request, limit: number): Promise<Uint8Array | 'too_large' | 'unreadable'> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    discardRequestBody(request);
    return 'too_large';
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      // The body stream failed: the client went away mid-body, or the adapter gave up on it.
      return 'unreadable';
    }
    const { done, value } = chunk;
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Not awaited, as in discardRequestBody.
      reader.cancel().catch(() => undefined);
      return 'too_large';
    }
    chunks.push(value);
  }
  return joinChunks(chunks, total);
}

/** One Uint8Array from many, without a copy in the common case of a single chunk. */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** A Fetch Request as the engine reads it. */
export function callFromRequest(request: Request): EngineCall {
  return {
    method: request.method,
    pathname: new URL(request.url).pathname,
    header: (name) => request.headers.get(name),
    headerNames: () => request.headers.keys(),
    readBody: (limit) => readLimited(request, limit),
    discardBody: () => discardRequestBody(request),
    origin: () => originOf(request.url),
  };
}

/** An http(s) URL's origin, else undefined (an opaque origin is no place to send a client). */
function originOf(url: string): string | undefined {
  try {
    const { origin, protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:' ? origin : undefined;
  } catch {
    return undefined;
  }
}

/** The engine's answer as a Fetch Response. */
export function answerToResponse(answer: EngineAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
