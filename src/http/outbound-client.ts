/**
 * @module http/outbound-client
 * The project's one way out over HTTP (the conformance runner to a server under test, the proxy
 * to its upstream), on undici's Agent: keep-alive connections per origin, llhttp's strict
 * parser, TLS with a CA file or none. Every bound is an option checked once, in the
 * constructor: header bytes, body bytes as received, the time to the headers and between body
 * chunks, one overall deadline per request, connections per origin. Whatever the other side
 * sends, an exchange ends within its deadline and holds at most its caps; what had arrived is
 * kept with the reason it is not whole. Decoding the body is a second step (`decode`, within
 * the decoded-bytes budget and coding count), so the proxy can pass the bytes on as sent.
 */
import type { Socket } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { CappedBuffer, incompleteHeadBytes } from './capped-buffer.js';
import { type DecodeResult, decodeContent } from './content-decoding.js';
import { flattenHeaders, headerPairs } from './headers.js';
import { plainTransportError } from './plain-errors.js';

export interface OutboundLimits {
  /** Bytes of a status line and headers together (llhttp's bound). Default 16 KiB. */
  readonly maxHeaderBytes: number;
  /** Body bytes kept as received; past them the exchange ends 'too-large'. Default 4 MiB. */
  readonly maxBodyBytes: number;
  /** Bytes every decoding stage together may produce (`decode`). Default: maxBodyBytes. */
  readonly maxDecodedBytes: number;
  /** Content codings undone at most (`decode`); a longer list is not decoded. Default 3. */
  readonly maxCodings: number;
  /** Time to the answer's headers. Default: the deadline. */
  readonly headersTimeoutMs: number;
  /** Longest silence between two body chunks. Default: the deadline. */
  readonly bodyTimeoutMs: number;
  /** One request from its start to its last byte, whatever else. Default 30 s. */
  readonly deadlineMs: number;
  /** Connections open at once to one origin. Default 8. */
  readonly connectionsPerOrigin: number;
  /** Time to open a connection (TCP and TLS). Default 10 s, never past the deadline. */
  readonly connectTimeoutMs: number;
}

export interface OutboundTls {
  /** PEM certificates trusted in place of Node's bundled roots (a private CA, a self-signed server). */
  readonly ca?: string;
  /** Accept any certificate: the connection is encrypted, but the server is not authenticated. */
  readonly insecure?: boolean;
}

/**
 * Holds every connection to an address policy: `lookup` resolves names for the connector and
 * `wrap` judges a literal host before connecting and the socket's remote address once connected.
 * src/documents/address-guard.ts builds one (`connectGuard(policy)`); it is injected, so this
 * module stays free of the documents layer and of any policy of its own.
 */
export interface OutboundConnectGuard {
  readonly lookup: (...args: never[]) => void;
  /** The connector given, with the guard's checks around it (typed loosely: the guard names no HTTP client). */
  wrap(connector: never): unknown;
}

export type OutboundClientOptions = Partial<OutboundLimits> & {
  readonly tls?: OutboundTls;
  /** Every connection held to an address policy (the MCP server's runner and mock link). Default: none. */
  readonly connectGuard?: OutboundConnectGuard;
};

/** A bound given to the client that it cannot hold: named, with what it must be. */
export class OutboundOptionError extends RangeError {
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`OutboundClient: ${option} ${message}`);
  }
}

const defaults: OutboundLimits = {
  maxHeaderBytes: 16 * 1024,
  maxBodyBytes: 4 * 1024 * 1024,
  maxDecodedBytes: 4 * 1024 * 1024,
  maxCodings: 3,
  headersTimeoutMs: 30_000,
  bodyTimeoutMs: 30_000,
  deadlineMs: 30_000,
  connectionsPerOrigin: 8,
  connectTimeoutMs: 10_000,
};

/** The client's limits with defaults filled in, each checked once. */
export function checkOutboundLimits(options: Partial<OutboundLimits>): OutboundLimits {
  const deadlineMs = options.deadlineMs ?? defaults.deadlineMs;
  const limits: OutboundLimits = {
    ...defaults,
    maxDecodedBytes: options.maxBodyBytes ?? defaults.maxDecodedBytes,
    headersTimeoutMs: deadlineMs,
    bodyTimeoutMs: deadlineMs,
    connectTimeoutMs: Math.min(defaults.connectTimeoutMs, deadlineMs),
    ...withoutUndefined(options),
  };
  const integer = (name: keyof OutboundLimits, minimum: number, maximum: number) => {
    const value = limits[name];
    if (!Number.isInteger(value) || value < minimum || value > maximum)
      throw new OutboundOptionError(name, `must be a whole number from ${minimum} to ${maximum}, got ${String(value)}`);
  };
  integer('maxHeaderBytes', 1024, 1024 * 1024);
  integer('maxBodyBytes', 0, 2 ** 31 - 1);
  integer('maxDecodedBytes', 0, 2 ** 31 - 1);
  integer('maxCodings', 0, 16);
  integer('deadlineMs', 1, 2 ** 31 - 1);
  integer('headersTimeoutMs', 1, 2 ** 31 - 1);
  integer('bodyTimeoutMs', 1, 2 ** 31 - 1);
  integer('connectTimeoutMs', 1, 2 ** 31 - 1);
  integer('connectionsPerOrigin', 1, 1024);
  return limits;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

export interface OutboundRequest {
  readonly method: string;
  /** Absolute http(s) URL: origin, path and query. */
  readonly url: string | URL;
  /**
   * The request target sent instead of the URL's path and query, as written (`/v0/jobs/..`):
   * `new URL` resolves dot segments, which a runner probing how a server reads them must send.
   * Origin-form, visible ASCII only; anything else is refused as malformed.
   */
  readonly target?: string;
  /** Header pairs in order (names as given), or one value per name. Host is the URL's unless given. */
  readonly headers: Readonly<Record<string, string>> | readonly (readonly [string, string])[];
  /** Whole, or streamed (an async iterable of chunks: the proxy's request body as it arrives). */
  readonly body?: string | Uint8Array | AsyncIterable<Uint8Array>;
  /** Aborting it ends the exchange at once ('interrupted'). */
  readonly signal?: AbortSignal;
  /**
   * Another way to interrupt, without an AbortController per request (the proxy's hot path):
   * called once with the function that interrupts the exchange.
   */
  readonly onCancel?: (cancel: () => void) => void;
  /** This request's overall deadline, when shorter than the client's (a retry's remaining time). */
  readonly deadlineMs?: number;
  /** The timeout named in messages when it differs from the deadline ("no answer within 5000 ms (--timeout)"). */
  readonly statedTimeout?: { readonly ms: number; readonly flag: string };
  /**
   * A body still arriving at the deadline is read on, a window (the stated timeout) at a time,
   * while each window brings `minBytes`, for at most `maxWindows` more windows and never past
   * `until` (a Date.now() time): a large answer on a slow link or a loaded machine is read whole,
   * a trickle is still cut, and no server holds a request longer than a few deadlines (A-41).
   */
  readonly bodyProgress?: { readonly minBytes: number; readonly maxWindows: number; readonly until: number };
}

/** Why an answer is not whole. The runner's IncompleteBody has the same shape. */
export interface PartialBody {
  readonly reason: 'too-large' | 'timeout' | 'closed' | 'switched-protocols';
  /** Body bytes received before reading stopped. */
  readonly bytes: number;
  readonly message: string;
}

export interface OutboundAnswer {
  readonly status: number;
  /** One string per lower-case name (no prototype). */
  readonly headers: Record<string, string>;
  /** Pairs in the order received, repeats kept (Set-Cookie). */
  readonly headerPairs: readonly [string, string][];
  /** As received, not decoded: the whole body, or for a partial answer its first 8 KiB. */
  readonly body: Buffer;
  readonly partial?: PartialBody;
}

/** `refused`: the client's connect guard (an address policy) refused the address, nothing was sent. */
export type FailureKind = 'timeout' | 'unreachable' | 'refused' | 'closed' | 'tls' | 'malformed' | 'interrupted';

export interface OutboundOutcome {
  readonly answer?: OutboundAnswer;
  /** Why no answer came. */
  readonly failure?: { readonly kind: FailureKind; readonly message: string };
  /** No answer, or no whole body, by the deadline. */
  readonly timedOut: boolean;
  /** Ended by the caller's signal, not by anything the other side did. */
  readonly interrupted: boolean;
  /** Times the request went out (a bodiless GET or HEAD is sent again once on a fresh connection). */
  readonly attempts: number;
}

/** What a 101 answer is reported as: the exchange is over, with no HTTP answer to judge. */
export const switchedProtocols = 'the server switched protocols (101 Switching Protocols), which is not followed';

/** Methods sent again, once, when a connection closed before any byte of their answer (RFC 9110 §9.2.2: safe, no body). */
const resendable = new Set(['GET', 'HEAD', 'OPTIONS']);

class StopError extends Error {
  constructor(readonly stop: 'deadline' | 'interrupted' | 'too-large') {
    super(stop);
  }
}

export class OutboundClient {
  readonly limits: OutboundLimits;
  private readonly agent: Agent;
  private closed = false;

  constructor(options: OutboundClientOptions = {}) {
    const { tls, connectGuard, ...bounds } = options;
    this.limits = checkOutboundLimits(bounds);
    if (tls?.ca !== undefined && typeof tls.ca !== 'string') throw new OutboundOptionError('tls.ca', 'must be PEM text');
    const built = buildConnector({
      timeout: this.limits.connectTimeoutMs,
      ...(tls?.ca === undefined ? {} : { ca: tls.ca }),
      ...(tls?.insecure ? { rejectUnauthorized: false } : {}),
      ...(connectGuard ? { lookup: connectGuard.lookup as never } : {}),
    });
    const connector = connectGuard ? (connectGuard.wrap(built as never) as buildConnector.connector) : built;
    const maxHeaderBytes = this.limits.maxHeaderBytes;
    this.agent = new Agent({
      connections: this.limits.connectionsPerOrigin,
      pipelining: 1,
      // An idle connection is let go 4 s before the server says it will close it (undici's margin
      // is 2 s), and after 1 s when it says nothing: on a loaded machine this process's timers ran
      // seconds late, and it reused connections the server had just closed, "closed without
      // answering", blamed on the server (issue 33). A new connection costs a millisecond.
      keepAliveTimeout: 1000,
      keepAliveTimeoutThreshold: 4000,
      maxHeaderSize: maxHeaderBytes,
      headersTimeout: this.limits.headersTimeoutMs,
      bodyTimeout: this.limits.bodyTimeoutMs,
      connect: (options, callback) =>
        connector(options, (error, socket) => {
          if (socket) skipUnaskedContinue(socket as Socket, { maxHeaderBytes });
          callback(error as Error, socket as never);
        }),
    });
  }

  /** One request and its answer, within the bounds; never rejects. */
  async send(request: OutboundRequest): Promise<OutboundOutcome> {
    let url: URL;
    try {
      url = typeof request.url === 'string' ? new URL(request.url) : request.url;
    } catch {
      return { failure: { kind: 'malformed', message: 'the request URL is not valid' }, timedOut: false, interrupted: false, attempts: 0 };
    }
    if (request.target !== undefined && !/^\/[!-~]*$/.test(request.target))
      return {
        failure: { kind: 'malformed', message: 'the request target is not origin-form visible ASCII' },
        timedOut: false,
        interrupted: false,
        attempts: 0,
      };
    const first = await this.attempt(request, url);
    const method = request.method.toUpperCase();
    if (
      first.retryable &&
      request.body === undefined &&
      resendable.has(method) &&
      !request.signal?.aborted &&
      Date.now() < first.deadlineAt - 1
    ) {
      const second = await this.attempt({ ...request, deadlineMs: first.deadlineAt - Date.now() }, url);
      return { ...second.outcome, attempts: 2 };
    }
    return first.outcome;
  }

  /** Undoes an answer's Content-Encoding within the client's decoding bounds (content-decoding.ts). */
  decode(answer: { readonly body: Buffer; readonly headers: Readonly<Record<string, string>> }): Promise<DecodeResult> {
    return decodeContent({
      body: answer.body,
      contentEncoding: answer.headers['content-encoding'],
      maxDecodedBytes: this.limits.maxDecodedBytes,
      maxCodings: this.limits.maxCodings,
    });
  }

  /** Ends every connection, in use or idle, so nothing keeps the process alive. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.agent.destroy().catch(() => undefined);
  }

  private attempt(request: OutboundRequest, url: URL): Promise<{ outcome: OutboundOutcome; retryable: boolean; deadlineAt: number }> {
    const deadlineMs = Math.min(request.deadlineMs ?? this.limits.deadlineMs, this.limits.deadlineMs);
    const deadlineAt = Date.now() + deadlineMs;
    const stated = request.statedTimeout ?? { ms: deadlineMs, flag: '' };
    const within = `${stated.ms} ms${stated.flag ? ` (${stated.flag})` : ''}`;
    const host = url.host;
    const maxBodyBytes = this.limits.maxBodyBytes;

    return new Promise((resolve) => {
      let settled = false;
      let controller: Dispatcher.DispatchController | undefined;
      let stopWith: StopError | undefined;
      let status = 0;
      let headers: Record<string, string> = {};
      let pairs: [string, string][] = [];
      let started = false;
      let buffer = new CappedBuffer(maxBodyBytes);

      const finish = (
        outcome: Omit<OutboundOutcome, 'attempts' | 'timedOut' | 'interrupted'> & Partial<OutboundOutcome>,
        retryable = false,
      ) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        resolve({ outcome: { timedOut: false, interrupted: false, attempts: 1, ...outcome }, retryable, deadlineAt });
      };
      const partial = (reason: PartialBody['reason'], message: string): OutboundAnswer => ({
        status,
        headers,
        headerPairs: pairs,
        body: buffer.head,
        partial: { reason, bytes: buffer.bytes, message },
      });
      const stop = (error: StopError) => {
        stopWith = error;
        if (error.stop === 'deadline')
          finish(
            started
              ? { answer: partial('timeout', stillArriving(Date.now() - attemptStart)), timedOut: true }
              : { failure: { kind: 'timeout', message: `no answer within ${within}` }, timedOut: true },
          );
        else if (error.stop === 'interrupted')
          finish({ failure: { kind: 'interrupted', message: 'the request was interrupted' }, interrupted: true });
        else finish({ answer: partial('too-large', `answer larger than ${maxBodyBytes} bytes`) });
        // Before the request is on a connection there is no controller yet: onRequestStart aborts it.
        controller?.abort(error);
      };
      const attemptStart = Date.now();
      const progress = request.bodyProgress;
      let windowStartBytes = 0;
      let extended = false;
      let windows = 0;
      const stillArriving = (elapsedMs: number) =>
        extended
          ? `the body was still arriving after ${elapsedMs} ms, with fewer than ${progress?.minBytes} bytes in the last ${stated.ms} ms (${buffer.bytes} bytes received)`
          : `the body was still arriving after ${stated.ms} ms (${buffer.bytes} bytes received)`;
      // At the deadline: a body that is moving gets another window (A-41); anything else is cut.
      const onDeadline = () => {
        const windowLeft = progress ? Math.min(stated.ms, progress.until - Date.now()) : 0;
        const moving = progress !== undefined && buffer.bytes - windowStartBytes >= progress.minBytes;
        if (started && progress && moving && windowLeft > 0 && windows < progress.maxWindows) {
          windowStartBytes = buffer.bytes;
          windows += 1;
          extended = true;
          timer = setTimeout(onDeadline, windowLeft);
          return;
        }
        stop(new StopError('deadline'));
      };
      let timer = setTimeout(onDeadline, deadlineMs);
      const onAbort = () => stop(new StopError('interrupted'));
      if (request.signal?.aborted) {
        onAbort();
        return;
      }
      request.signal?.addEventListener('abort', onAbort, { once: true });
      request.onCancel?.(() => {
        if (!settled) onAbort();
      });

      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (dispatchController) => {
          controller = dispatchController;
          if (stopWith) dispatchController.abort(stopWith);
        },
        onResponseStart: (dispatchController, statusCode, parsedHeaders) => {
          // Interim answers (100 Continue, 103 Early Hints) are not the answer.
          if (statusCode < 200) return;
          started = true;
          status = statusCode;
          headers = flattenHeaders(parsedHeaders as Record<string, string | string[]>);
          const raw = dispatchController.rawHeaders;
          pairs = Array.isArray(raw) ? headerPairs(raw) : Object.entries(headers);
          // A body declared over the cap is cut once its head is in: the rest would only be
          // buffered to be dropped, and a server answering every request that way held
          // megabytes per request until a collection caught up.
          const declared = Number(headers['content-length']);
          if (declared > maxBodyBytes) buffer = new CappedBuffer(Math.min(maxBodyBytes, incompleteHeadBytes));
        },
        onResponseData: (dispatchController, chunk) => {
          if (settled) return;
          if (!buffer.add(chunk)) {
            const tooLarge = new StopError('too-large');
            stopWith = tooLarge;
            finish({ answer: partial('too-large', `answer larger than ${maxBodyBytes} bytes`) });
            dispatchController.abort(tooLarge);
          }
        },
        onResponseEnd: () => {
          finish({ answer: { status, headers, headerPairs: pairs, body: buffer.body } });
        },
        onResponseError: (_dispatchController, error) => {
          if (settled || error instanceof StopError) return;
          const code = (error as { code?: string }).code ?? '';
          if (/bad upgrade/i.test(error.message)) {
            finish({
              answer: {
                status: 101,
                headers,
                headerPairs: pairs,
                body: Buffer.alloc(0),
                partial: { reason: 'switched-protocols', bytes: 0, message: switchedProtocols },
              },
            });
            return;
          }
          if (code === 'UND_ERR_HEADERS_TIMEOUT') {
            finish({ failure: { kind: 'timeout', message: `no headers within ${this.limits.headersTimeoutMs} ms` }, timedOut: true });
            return;
          }
          if (code === 'UND_ERR_BODY_TIMEOUT' && started) {
            finish({
              answer: partial('timeout', `the body stopped arriving for ${this.limits.bodyTimeoutMs} ms (${buffer.bytes} bytes received)`),
              timedOut: true,
            });
            return;
          }
          const described = describeFailure(error, { host, maxHeaderBytes: this.limits.maxHeaderBytes });
          if (started && described.kind !== 'malformed') {
            finish({ answer: partial('closed', plainTransportError(error, { host, answerStarted: true, bytes: buffer.bytes })) });
            return;
          }
          finish({ failure: described }, !started && isClosedBeforeAnswer(code, error));
        },
      };
      try {
        this.agent.dispatch(
          {
            origin: url.origin,
            path: request.target ?? `${url.pathname}${url.search}`,
            method: request.method as Dispatcher.HttpMethod,
            headers: dispatchHeaders(request.headers),
            // undici takes an async iterable as a streamed body, though its types list only Readable.
            body: (request.body ?? null) as Dispatcher.DispatchOptions['body'],
          },
          handler,
        );
      } catch (error) {
        finish({ failure: { kind: 'malformed', message: `the request could not be sent: ${(error as Error).message.slice(0, 200)}` } });
      }
    });
  }
}

const requestLine = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+ \S+ HTTP\/1\.1\r\n/;
const statusPrefix = 'HTTP/1.1 1';

/**
 * What `bytes` begin with: an interim `100` status line, another interim (1xx) one, anything
 * else ('final': a final status line, or bytes the parser will judge), or too few bytes to say.
 */
function statusKind(bytes: Buffer): 'continue' | 'interim' | 'final' | 'unknown' {
  for (let index = 0; index < statusPrefix.length; index += 1) {
    if (index >= bytes.length) return 'unknown';
    const byte = bytes[index]!;
    if (index === 7 ? byte !== 0x30 && byte !== 0x31 : byte !== statusPrefix.charCodeAt(index)) return 'final';
  }
  // "HTTP/1.x 1" read: two digits and a space or CR follow.
  if (bytes.length < statusPrefix.length + 3) return 'unknown';
  const tens = bytes[statusPrefix.length]!;
  const units = bytes[statusPrefix.length + 1]!;
  const after = bytes[statusPrefix.length + 2]!;
  if (tens < 0x30 || tens > 0x39 || units < 0x30 || units > 0x39 || (after !== 0x20 && after !== 0x0d)) return 'final';
  return tens === 0x30 && units === 0x30 ? 'continue' : 'interim';
}

/**
 * undici refuses any 100 Continue (it never sends Expect), where RFC 9110 §15.2 asks a client
 * to read past interim answers it did not ask for, and servers do send them (Node's
 * `writeContinue`). Between a request's head going out and its final status line, every 100
 * with its header block is dropped from what the parser reads; other interim answers (103) and
 * every other byte reach it as sent. Past that point the only cost is one flag test per read.
 */
function skipUnaskedContinue(socket: Socket, options: { maxHeaderBytes: number }): void {
  const read = socket.read.bind(socket);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  let awaitingStatus = false;
  let pending: Buffer | undefined;
  socket.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === 'string' && requestLine.test(chunk)) awaitingStatus = true;
    return write(chunk, ...rest);
  }) as Socket['write'];
  socket.read = ((size?: number) => {
    if (!awaitingStatus) return read(size);
    const passed: Buffer[] = [];
    for (;;) {
      if (pending) {
        const kind = statusKind(pending);
        if (kind === 'final') {
          passed.push(pending);
          pending = undefined;
          awaitingStatus = false;
          break;
        }
        if (kind !== 'unknown') {
          const end: number = pending.indexOf('\r\n\r\n');
          if (end !== -1) {
            if (kind === 'interim') passed.push(pending.subarray(0, end + 4));
            pending = end + 4 < pending.length ? pending.subarray(end + 4) : undefined;
            continue;
          }
          // An interim answer past the header bound goes to the parser, which refuses it.
          if (pending.length > options.maxHeaderBytes) {
            passed.push(pending);
            pending = undefined;
            awaitingStatus = false;
            break;
          }
        }
      }
      const chunk = read(size) as Buffer | null;
      if (chunk === null) break;
      pending = pending ? Buffer.concat([pending, chunk]) : chunk;
    }
    return passed.length === 0 ? null : passed.length === 1 ? passed[0]! : Buffer.concat(passed);
  }) as Socket['read'];
}

function dispatchHeaders(headers: OutboundRequest['headers']): string[] {
  const flat: string[] = [];
  if (Array.isArray(headers)) {
    for (const [name, value] of headers as readonly (readonly [string, string])[]) flat.push(name, value);
  } else {
    const record = headers as Readonly<Record<string, string>>;
    for (const name in record) flat.push(name, record[name]!);
  }
  return flat;
}

/** A connection closed before any byte of the answer: a reused keep-alive connection the other side had just closed. */
function isClosedBeforeAnswer(code: string, error: Error): boolean {
  return code === 'ECONNRESET' || /other side closed/i.test(error.message);
}

/**
 * A failure in words, with its kind. llhttp and undici refuse what RFC 9112 forbids or leaves
 * dangerous (docs/proxy.md, "What the upstream may send"): these are named as what the server did.
 */
export function describeFailure(error: Error, options: { host: string; maxHeaderBytes: number }): { kind: FailureKind; message: string } {
  const code = (error as { code?: string }).code ?? '';
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')
    return {
      kind: 'malformed',
      message: "the answer's framing is invalid: its Content-Length does not match its body, or comes with Transfer-Encoding",
    };
  if (code === 'UND_ERR_SOCKET' && /bad response/.test(error.message))
    return { kind: 'malformed', message: 'the server sent a 100 Continue the request did not ask for (refused as malformed)' };
  if (code === 'UND_ERR_HEADERS_OVERFLOW')
    return { kind: 'malformed', message: `the answer's status line and headers are larger than ${options.maxHeaderBytes} bytes` };
  if (/Expected HTTP\//.test(error.message))
    return { kind: 'malformed', message: 'the answer is not HTTP: it does not start with an HTTP/1.x status line' };
  if (error.name === 'HTTPParserError' || code.startsWith('HPE_'))
    return {
      kind: 'malformed',
      message: `the answer is not valid HTTP/1.1 (${error.message
        .replace(/^Response does not match the HTTP\/1\.1 protocol\s*/, '')
        .replace(/^\((.*)\)$/, '$1')
        .slice(0, 200)})`,
    };
  const message = plainTransportError(error, { host: options.host });
  return { kind: failureKind(code, message), message };
}
function failureKind(code: string, message: string): FailureKind {
  if (code === 'ERR_REFUSED_ADDRESS') return 'refused';
  if (/CERT|SSL|TLS/.test(code) || message.includes('TLS certificate')) return 'tls';
  if (code.startsWith('HPE_') || code === 'UND_ERR_HEADERS_OVERFLOW' || code === 'UND_ERR_INFO') return 'malformed';
  if (
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return 'unreachable';
  return 'closed';
}
