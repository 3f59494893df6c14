/**
 * @module server/node-adapter
 * The two converters between node:http and the Fetch API that the engine speaks:
 * IncomingMessage → Request (the body streamed, not buffered, so the engine can refuse an
 * oversized one while reading) and Response → ServerResponse (multi-value headers kept, the
 * body streamed with backpressure).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

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
