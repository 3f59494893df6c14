/**
 * @module proxy/upstream-client
 * The proxy's HTTP/1.1 client to its upstream: keep-alive sockets of its own, each request's
 * head written together with its body in one write, and the answer read whole by a small,
 * strict parser. Why not node:http's client: on the bench's two cores, `http.request` with a
 * keep-alive Agent cost about as much CPU per exchange as the whole mock does to answer it
 * (ClientRequest and IncomingMessage objects, Agent bookkeeping, a dozen listeners added and
 * removed per request), which alone kept the proxy under half of the direct throughput
 * (docs/performance.md). The proxy reads every answer whole anyway (it is judged before the
 * client gets it), so a client that parses into one buffer is all it needs.
 *
 * The parser follows RFC 9112: a status line of HTTP/1.0 or HTTP/1.1; header lines `name: value`
 * with a token name, CRLF line ends and no obsolete line folding; the body framed by
 * Transfer-Encoding chunked, by Content-Length (all values equal), by the connection's close,
 * or absent (HEAD, 1xx, 204, 304); interim 1xx answers skipped, 101 refused (the proxy forwards
 * no upgrades). Anything else is a malformed answer: the socket is dropped, never reused.
 * Bounded: the head to `maxHeaderBytes`, the body to `maxBodyBytes`, every byte of the answer
 * (framing included) to 2 × (both) + 4 KiB; chunk extensions to 256 bytes.
 */
import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import tls from 'node:tls';

export interface UpstreamAnswerParts {
  readonly status: number;
  /** Lower-case names, repeated ones merged as node:http merges them. */
  readonly headers: IncomingHttpHeaders;
  /** Names in their case, in order, repeats kept: [name, value, name, value, …]. */
  readonly rawHeaders: string[];
  readonly body: Buffer;
}

/** Why an exchange with the upstream failed. */
export class UpstreamError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'closed' | 'too-large' | 'malformed',
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** node:http keeps only the first of these when repeated (IncomingMessage#_addHeaderLine). */
const firstOnly = new Set([
  'content-type',
  'content-length',
  'user-agent',
  'referer',
  'host',
  'authorization',
  'proxy-authorization',
  'if-modified-since',
  'if-unmodified-since',
  'from',
  'location',
  'max-forwards',
  'retry-after',
  'etag',
  'last-modified',
  'server',
  'age',
  'expires',
]);

/** `name:` with a token name; the value is checked apart (linear, no backtracking). */
const headerName = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):/;
/** A field value's bytes (RFC 9110 §5.5): tab, visible ASCII, space, obs-text; no other control byte. */
const fieldValue = /^[\t\x20-\x7e\x80-\xff]*$/;
const statusLine = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
/** A hex digit's value, or -1. */
function hexDigit(byte: number): number {
  if (byte >= 48 && byte <= 57) return byte - 48;
  if (byte >= 65 && byte <= 70) return byte - 55;
  if (byte >= 97 && byte <= 102) return byte - 87;
  return -1;
}
/** The longest chunk extension read (RFC 9112 §7.1.1 lets a recipient limit them). */
const maxExtensionBytes = 256;
const crlfcrlf = Buffer.from('\r\n\r\n');

type Framing = { kind: 'none' } | { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'close' };

/** Reads one answer from the bytes of a connection, as they come. */
export class AnswerReader {
  private state: 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'close' | 'done' = 'head';
  /** Bytes of an unfinished line, always a copy (never a view keeping a large read alive). */
  private pending: Buffer | undefined;
  private chunkLeft = 0;
  /** The body, copied into one growing buffer: its first `bodyBytes` bytes. */
  private body: Buffer = Buffer.alloc(0);
  private bodyBytes = 0;
  /** Every byte of the answer read so far (heads, chunk-size lines, extensions, CRLFs, trailers, body). */
  private wireBytes = 0;
  private readonly maxWireBytes: number;
  private status = 0;
  private headers: IncomingHttpHeaders = Object.create(null) as IncomingHttpHeaders;
  private rawHeaders: string[] = [];
  /** The connection may carry another exchange after this answer. */
  keepAlive = false;
  /** Bytes of the connection were read: a failure from here on is not a stale idle socket's. */
  started = false;
  /** The upstream's `Keep-Alive: timeout=N`, in ms, if it said one. */
  keepAliveTimeoutMs: number | undefined;

  constructor(
    private readonly method: string,
    private readonly limits: { readonly maxHeaderBytes: number; readonly maxBodyBytes: number },
  ) {
    // One bound for all the bytes of an answer: its head and trailers, its body, and the chunked
    // framing around it (which, in tiny chunks, may be several times the body; past this, refused).
    this.maxWireBytes = 2 * (limits.maxHeaderBytes + limits.maxBodyBytes) + 4096;
  }

  /**
   * Feeds the next bytes; returns the answer once it is whole (with any bytes past its end,
   * which make the connection unusable), or undefined while more are due. Throws UpstreamError.
   */
  feed(chunk: Buffer): { answer: UpstreamAnswerParts; extra: boolean } | undefined {
    if (chunk.length > 0) this.started = true;
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (data.length > 0 || this.state === 'done') {
      switch (this.state) {
        case 'head': {
          const end = data.indexOf(crlfcrlf);
          if (end < 0) {
            if (data.length > this.limits.maxHeaderBytes)
              throw new UpstreamError('too-large', `the upstream's answer head is larger than ${this.limits.maxHeaderBytes} bytes`);
            this.wait(data);
            return undefined;
          }
          if (end > this.limits.maxHeaderBytes)
            throw new UpstreamError('too-large', `the upstream's answer head is larger than ${this.limits.maxHeaderBytes} bytes`);
          this.count(end + 4);
          const rest = data.subarray(end + 4);
          this.readHead(data.toString('latin1', 0, end));
          data = rest;
          break;
        }
        case 'length': {
          const take = Math.min(this.chunkLeft, data.length);
          this.keep(data.subarray(0, take));
          this.chunkLeft -= take;
          data = data.subarray(take);
          if (this.chunkLeft === 0) this.state = 'done';
          break;
        }
        case 'chunk-size': {
          const end = data.indexOf('\r\n');
          if (end < 0) {
            if (data.length > 64 + maxExtensionBytes)
              throw new UpstreamError('malformed', 'a chunk-size line of the upstream’s answer is too long');
            this.wait(data);
            return undefined;
          }
          if (end > 64 + maxExtensionBytes) throw new UpstreamError('malformed', 'a chunk-size line of the upstream’s answer is too long');
          this.count(end + 2);
          // Read from the bytes, without a string per chunk: hex digits, blanks, then `;` and the extensions.
          let size = 0;
          let at = 0;
          for (; at < end && at <= 15; at += 1) {
            const digit = hexDigit(data[at]!);
            if (digit < 0) break;
            size = size * 16 + digit;
          }
          if (at === 0 || at > 15) throw new UpstreamError('malformed', 'the upstream’s answer has a malformed chunk size');
          while (at < end && (data[at] === 32 || data[at] === 9)) at += 1;
          if (at < end) {
            if (data[at] !== 59) throw new UpstreamError('malformed', 'the upstream’s answer has a malformed chunk size');
            if (end - at > maxExtensionBytes)
              throw new UpstreamError('malformed', `a chunk extension of the upstream’s answer is longer than ${maxExtensionBytes} bytes`);
            for (let index = at; index < end; index += 1) {
              const byte = data[index]!;
              if ((byte < 32 && byte !== 9) || byte === 127)
                throw new UpstreamError('malformed', 'a chunk extension of the upstream’s answer has a control byte');
            }
          }
          this.chunkLeft = size;
          if (this.bodyBytes + this.chunkLeft > this.limits.maxBodyBytes) this.tooLarge();
          data = data.subarray(end + 2);
          this.state = this.chunkLeft === 0 ? 'trailers' : 'chunk-data';
          break;
        }
        case 'chunk-data': {
          const take = Math.min(this.chunkLeft, data.length);
          this.keep(data.subarray(0, take));
          this.chunkLeft -= take;
          data = data.subarray(take);
          if (this.chunkLeft === 0) this.state = 'chunk-end';
          break;
        }
        case 'chunk-end': {
          if (data.length < 2) {
            this.wait(data);
            return undefined;
          }
          if (data[0] !== 13 || data[1] !== 10)
            throw new UpstreamError('malformed', 'a chunk of the upstream’s answer does not end in CRLF');
          this.count(2);
          data = data.subarray(2);
          this.state = 'chunk-size';
          break;
        }
        case 'trailers': {
          // Trailer fields are read and dropped, as node:http's client drops them from the headers.
          if (data.length >= 2 && data[0] === 13 && data[1] === 10) {
            this.count(2);
            data = data.subarray(2);
            this.state = 'done';
            break;
          }
          const end = data.indexOf(crlfcrlf);
          if (end < 0) {
            if (data.length > this.limits.maxHeaderBytes)
              throw new UpstreamError('too-large', `the upstream's answer trailers are larger than ${this.limits.maxHeaderBytes} bytes`);
            this.wait(data);
            return undefined;
          }
          if (end > this.limits.maxHeaderBytes)
            throw new UpstreamError('too-large', `the upstream's answer trailers are larger than ${this.limits.maxHeaderBytes} bytes`);
          this.count(end + 4);
          data = data.subarray(end + 4);
          this.state = 'done';
          break;
        }
        case 'close':
          this.keep(data);
          data = data.subarray(data.length);
          break;
        case 'done':
          return { answer: this.answer(), extra: data.length > 0 };
      }
    }
    return undefined;
  }

  /** The connection ended: the answer, if it was framed by the close; otherwise an error. */
  end(): UpstreamAnswerParts {
    if (this.state === 'close') return this.answer();
    throw new UpstreamError(
      'closed',
      this.started ? 'the upstream closed the connection mid-answer' : 'the upstream closed the connection before its answer was whole',
    );
  }

  /** Keeps the start of a line still unfinished: a copy, counted against the bound. */
  private wait(data: Buffer): void {
    if (this.wireBytes + data.length > this.maxWireBytes) this.tooLargeOnTheWire();
    this.pending = Buffer.from(data);
  }

  private count(bytes: number): void {
    this.wireBytes += bytes;
    if (this.wireBytes > this.maxWireBytes) this.tooLargeOnTheWire();
  }

  private tooLargeOnTheWire(): never {
    throw new UpstreamError(
      'too-large',
      `the upstream's answer, with its framing, is larger than ${this.maxWireBytes} bytes (2 × (head limit + --max-response-bytes) + 4 KiB)`,
    );
  }

  private tooLarge(): never {
    throw new UpstreamError('too-large', `the upstream's answer is larger than ${this.limits.maxBodyBytes} bytes (--max-response-bytes)`);
  }

  /** Copies a part of the body into the body's buffer (never a view of the read it came in). */
  private keep(part: Buffer): void {
    if (part.length === 0) return;
    this.count(part.length);
    const size = this.bodyBytes + part.length;
    if (size > this.limits.maxBodyBytes) this.tooLarge();
    if (size > this.body.length) {
      const grown = Buffer.allocUnsafe(Math.min(this.limits.maxBodyBytes, Math.max(size, 2 * this.body.length, 1024)));
      this.body.copy(grown, 0, 0, this.bodyBytes);
      this.body = grown;
    }
    part.copy(this.body, this.bodyBytes);
    this.bodyBytes = size;
  }

  private answer(): UpstreamAnswerParts {
    // The body's exact bytes: a view when the buffer is full, a copy otherwise (no spare room kept alive).
    const body = this.bodyBytes === this.body.length ? this.body : Buffer.from(this.body.subarray(0, this.bodyBytes));
    return { status: this.status, headers: this.headers, rawHeaders: this.rawHeaders, body };
  }

  private readHead(text: string): void {
    const lines = text.split('\r\n');
    const status = statusLine.exec(lines[0]!);
    if (!status) throw new UpstreamError('malformed', `the upstream's answer does not start with an HTTP/1.x status line`);
    const minor = status[1]!;
    const code = Number(status[2]);
    // No prototype: a header named `constructor` or `__proto__` is a header like any other.
    const headers = Object.create(null) as IncomingHttpHeaders;
    const raw: string[] = [];
    const lengths: string[] = [];
    let transferEncoding = '';
    let connection = '';
    let keepAliveHeader = '';
    for (let index = 1; index < lines.length; index += 1) {
      const line = lines[index]!;
      const field = headerName.exec(line);
      if (!field) throw new UpstreamError('malformed', `the upstream's answer has a malformed header line`);
      const name = field[1]!;
      let valueStart = name.length + 1;
      let valueEnd = line.length;
      while (valueStart < valueEnd && (line.charCodeAt(valueStart) === 32 || line.charCodeAt(valueStart) === 9)) valueStart += 1;
      while (valueEnd > valueStart && (line.charCodeAt(valueEnd - 1) === 32 || line.charCodeAt(valueEnd - 1) === 9)) valueEnd -= 1;
      const value = line.slice(valueStart, valueEnd);
      if (!fieldValue.test(value))
        throw new UpstreamError('malformed', `the upstream's answer has a control character in the value of its ${name} header`);
      const lower = name.toLowerCase();
      raw.push(name, value);
      if (lower === 'content-length') lengths.push(...value.split(','));
      else if (lower === 'transfer-encoding') transferEncoding += `${transferEncoding ? ',' : ''}${value}`;
      else if (lower === 'connection') connection += `${connection ? ',' : ''}${value}`;
      else if (lower === 'keep-alive') keepAliveHeader += `${keepAliveHeader ? ',' : ''}${value}`;
      const earlier = headers[lower];
      if (lower === 'set-cookie') headers['set-cookie'] = [...(headers['set-cookie'] ?? []), value];
      else if (earlier === undefined) headers[lower] = value;
      else if (!firstOnly.has(lower)) headers[lower] = `${earlier}, ${value}`;
    }
    if (code < 200) {
      if (code === 101) throw new UpstreamError('malformed', 'the upstream switched protocols (101); the proxy forwards no upgrades');
      // An interim answer (100 Continue, 103 Early Hints): the final one follows on the same connection.
      this.state = 'head';
      return;
    }
    // Content-Length is checked whatever the status (HEAD and 304 pass it on): one valid value, or a malformed answer.
    let length: number | undefined;
    if (lengths.length > 0) {
      const values = lengths.map((each) => each.trim());
      if (values.some((each) => !/^\d{1,15}$/.test(each)) || values.some((each) => Number(each) !== Number(values[0])))
        throw new UpstreamError('malformed', `the upstream's answer has an invalid Content-Length`);
      length = Number(values[0]);
      // One normalised value ("5, 5" and leading zeros become "5").
      headers['content-length'] = String(length);
    }
    // Only `chunked` is read: any other coding would be lost, as Transfer-Encoding is not passed on.
    const codings = transferEncoding
      .toLowerCase()
      .split(',')
      .map((coding) => coding.trim())
      .filter((coding) => coding !== '');
    if (transferEncoding !== '' && (codings.length !== 1 || codings[0] !== 'chunked'))
      throw new UpstreamError('malformed', `the upstream's answer has a transfer coding other than chunked (${transferEncoding})`);
    this.status = code;
    this.headers = headers;
    this.rawHeaders = raw;
    const tokens = connection.toLowerCase().split(',');
    const said = (word: string) => tokens.some((part) => part.trim() === word);
    this.keepAlive = minor === '1' ? !said('close') : said('keep-alive');
    const timeout = /(?:^|[,;\s])timeout\s*=\s*(\d{1,9})(?:$|[,;\s])/i.exec(keepAliveHeader);
    if (timeout) this.keepAliveTimeoutMs = Number(timeout[1]) * 1000;
    const framing = this.framing(code, codings.length > 0, length);
    // Read to the close; framed both ways (RFC 9112 §6.3); an HTTP/1.0 answer with Transfer-Encoding
    // (§6.1); and an answer whose framing says a body may follow where none is read (HEAD, a 204 or
    // 304 with a length or a coding): the connection is not used again.
    if (framing.kind === 'close' || (codings.length > 0 && length !== undefined) || (codings.length > 0 && minor === '0'))
      this.keepAlive = false;
    if (this.method === 'HEAD' || ((code === 204 || code === 304) && (codings.length > 0 || (length ?? 0) > 0))) this.keepAlive = false;
    if (framing.kind === 'none') this.state = 'done';
    else if (framing.kind === 'length') {
      this.chunkLeft = framing.remaining;
      if (framing.remaining > this.limits.maxBodyBytes) this.tooLarge();
      // The size is known: one buffer of it, filled as the bytes come.
      this.body = Buffer.allocUnsafe(framing.remaining);
      this.state = framing.remaining === 0 ? 'done' : 'length';
    } else this.state = framing.kind === 'chunked' ? 'chunk-size' : 'close';
  }

  /** How the answer's body is delimited (RFC 9112 §6.3). */
  private framing(status: number, chunked: boolean, length: number | undefined): Framing {
    if (this.method === 'HEAD' || status === 204 || status === 304) return { kind: 'none' };
    if (chunked) return { kind: 'chunked' };
    if (length === undefined) return { kind: 'close' };
    return { kind: 'length', remaining: length };
  }
}

interface Connection {
  readonly socket: net.Socket;
  /** The exchange under way on it, if any. */
  current: Call | undefined;
  /** Exchanges it carried before this one: a reused socket may have been closed by the upstream meanwhile. */
  served: number;
  idleSince: number;
  /** How long it may stay idle: the client's limit, or the upstream's `Keep-Alive: timeout` if smaller. */
  idleLimitMs: number;
}

interface Call {
  readonly reader: AnswerReader;
  /** Settles the call once (answer or error); later calls are ignored. */
  settle(outcome: { answer: UpstreamAnswerParts } | { error: UpstreamError }): void;
}

export interface UpstreamRequest {
  readonly method: string;
  /** Path and query as sent on the request line. */
  readonly path: string;
  /** Header lines to send, [name, value] pairs, Host and the framing headers excepted (the client sets them). */
  readonly headers: readonly (readonly [string, string])[];
  /**
   * The body: the whole of it, or 'stream' with its Content-Length if known (then `write` and
   * `end` send it, chunked when the length is unknown), or undefined for none.
   */
  readonly body?: Buffer | { readonly stream: true; readonly length?: number };
}

export interface UpstreamCall {
  /** The answer, read whole; rejects with UpstreamError. */
  readonly answer: Promise<UpstreamAnswerParts>;
  /** Sends a part of a streamed body; false when the socket's buffer is full (wait for `onDrain`). */
  write(chunk: Buffer): boolean;
  onDrain(listener: () => void): void;
  /** The streamed body is complete. */
  end(): void;
  /** Drops the exchange and its socket (timeout, a client that left). */
  abort(): void;
}

export interface UpstreamClientOptions {
  readonly maxHeaderBytes?: number;
  readonly maxBodyBytes: number;
  /** An idle socket older than this is closed, not reused: under the 5 s keep-alive most servers keep. */
  readonly idleTimeoutMs?: number;
  /** Idle sockets kept for reuse at most. */
  readonly maxIdle?: number;
}

/** Sent again on a new socket when a reused one turns out closed: safe methods only (not PUT or DELETE, whose effect may have happened). */
const retried = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Keep-alive HTTP/1.1 connections to one upstream origin. */
export class UpstreamClient {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly secure: boolean;
  private readonly host: string;
  private readonly port: number;
  private readonly hostHeader: string;
  private readonly maxHeaderBytes: number;
  private readonly idleTimeoutMs: number;
  private readonly maxIdle: number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(
    origin: URL,
    private readonly options: UpstreamClientOptions,
  ) {
    this.secure = origin.protocol === 'https:';
    this.host = origin.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(origin.port || (this.secure ? 443 : 80));
    this.hostHeader = origin.host;
    this.maxHeaderBytes = options.maxHeaderBytes ?? 16 * 1024;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 4_000;
    this.maxIdle = options.maxIdle ?? 256;
    // One timer for every idle socket, not one per socket or per request.
    this.sweeper = setInterval(() => this.sweep(), Math.max(250, Math.floor(this.idleTimeoutMs / 4)));
    this.sweeper.unref();
  }

  request(request: UpstreamRequest): UpstreamCall {
    if (this.closed) throw new Error('UpstreamClient: closed');
    const head = this.head(request);
    const streamed = request.body !== undefined && !Buffer.isBuffer(request.body);
    const chunked = streamed && (request.body as { length?: number }).length === undefined;
    let resolveAnswer!: (answer: UpstreamAnswerParts) => void;
    let rejectAnswer!: (error: UpstreamError) => void;
    const answer = new Promise<UpstreamAnswerParts>((resolve, reject) => {
      resolveAnswer = resolve;
      rejectAnswer = reject;
    });
    let settled = false;
    let headSent = false;
    let bodyDone = !streamed;
    let connection: Connection;
    let again = false;

    const start = (fresh: boolean) => {
      connection = fresh ? this.connect() : this.take();
      const reused = connection.served > 0;
      const reader = new AnswerReader(request.method, { maxHeaderBytes: this.maxHeaderBytes, maxBodyBytes: this.options.maxBodyBytes });
      connection.current = {
        reader,
        settle: (outcome) => {
          if (settled) return;
          const current = connection;
          current.current = undefined;
          if ('error' in outcome) {
            current.socket.destroy();
            // A reused socket the upstream closed while it was idle, before a byte of the answer: a bodiless
            // GET, HEAD or OPTIONS is sent again, once, on a new socket.
            if (reused && !reader.started && !again && !streamed && request.body === undefined && retried.has(request.method)) {
              again = true;
              start(true);
              return;
            }
            settled = true;
            rejectAnswer(outcome.error);
            return;
          }
          settled = true;
          // A body still being sent, or an answer the upstream may follow with anything, ends the socket's use.
          if (!bodyDone || current.socket.destroyed) {
            current.socket.destroy();
            resolveAnswer(outcome.answer);
          } else this.release(current, reader.keepAliveTimeoutMs, () => resolveAnswer(outcome.answer));
        },
      };
      if (!streamed) {
        const socket = connection.socket;
        socket.cork();
        socket.write(head, 'latin1');
        if (request.body) socket.write(request.body as Buffer);
        socket.uncork();
        headSent = true;
      }
    };
    start(false);

    const sendHead = () => {
      if (headSent) return;
      headSent = true;
      connection.socket.write(head, 'latin1');
    };
    return {
      answer,
      write: (chunk) => {
        if (settled || chunk.length === 0) return true;
        const socket = connection.socket;
        socket.cork();
        sendHead();
        if (chunked) socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
        const room = socket.write(chunk);
        if (chunked) socket.write('\r\n', 'latin1');
        socket.uncork();
        return room;
      },
      onDrain: (listener) => connection.socket.once('drain', listener),
      end: () => {
        if (settled || bodyDone) return;
        const socket = connection.socket;
        socket.cork();
        sendHead();
        if (chunked) socket.write('0\r\n\r\n', 'latin1');
        socket.uncork();
        bodyDone = true;
      },
      abort: () => {
        if (settled) return;
        settled = true;
        connection.current = undefined;
        connection.socket.destroy();
        rejectAnswer(new UpstreamError('closed', 'aborted'));
      },
    };
  }

  /** Closes every socket, idle or busy. */
  destroy(): void {
    this.closed = true;
    clearInterval(this.sweeper);
    for (const connection of this.all) connection.socket.destroy();
    this.all.clear();
    this.idle.length = 0;
  }

  private head(request: UpstreamRequest): string {
    let head = `${request.method} ${request.path} HTTP/1.1\r\nHost: ${this.hostHeader}\r\n`;
    for (const [name, value] of request.headers) head += `${name}: ${value}\r\n`;
    const body = request.body;
    if (Buffer.isBuffer(body)) head += `Content-Length: ${body.length}\r\n`;
    else if (body !== undefined)
      head += body.length === undefined ? 'Transfer-Encoding: chunked\r\n' : `Content-Length: ${body.length}\r\n`;
    return `${head}\r\n`;
  }

  private take(): Connection {
    const now = performance.now();
    for (let connection = this.idle.pop(); connection; connection = this.idle.pop()) {
      if (!connection.socket.destroyed && now - connection.idleSince < connection.idleLimitMs) {
        connection.served += 1;
        connection.socket.ref();
        return connection;
      }
      connection.socket.destroy();
    }
    return this.connect();
  }

  private connect(): Connection {
    const socket = this.secure
      ? tls.connect({
          host: this.host,
          port: this.port,
          ALPNProtocols: ['http/1.1'],
          ...(net.isIP(this.host) ? {} : { servername: this.host }),
        })
      : net.connect({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    const connection: Connection = { socket, current: undefined, served: 0, idleSince: 0, idleLimitMs: this.idleTimeoutMs };
    this.all.add(connection);
    // The socket's listeners are added once, for every exchange it carries.
    socket.on('data', (chunk: Buffer) => {
      const call = connection.current;
      if (!call) {
        // Bytes nobody asked for: the connection is out of step; drop it.
        socket.destroy();
        return;
      }
      try {
        const done = call.reader.feed(chunk);
        if (!done) return;
        if (done.extra || !call.reader.keepAlive) socket.destroy();
        call.settle({ answer: done.answer });
      } catch (error) {
        call.settle({ error: error instanceof UpstreamError ? error : new UpstreamError('malformed', String(error)) });
      }
    });
    socket.on('end', () => {
      const call = connection.current;
      if (!call) return socket.destroy();
      try {
        const answer = call.reader.end();
        socket.destroy();
        call.settle({ answer });
      } catch (error) {
        call.settle({ error: error as UpstreamError });
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const call = connection.current;
      if (!call) return;
      call.settle({ error: socketError(error, call.reader.started) });
    });
    socket.on('close', () => {
      this.all.delete(connection);
      const index = this.idle.indexOf(connection);
      if (index >= 0) this.idle.splice(index, 1);
      connection.current?.settle({
        error: new UpstreamError(
          'closed',
          connection.current.reader.started
            ? 'the upstream closed the connection mid-answer'
            : 'the upstream closed the connection before its answer was whole',
        ),
      });
    });
    return connection;
  }

  /**
   * Returns a socket to the pool, after a turn of the event loop: bytes that came after the
   * answer's end meanwhile (an upstream out of step) have dropped it by then, and are never read
   * as the next exchange's answer.
   */
  private release(connection: Connection, upstreamTimeoutMs: number | undefined, then: () => void): void {
    connection.idleLimitMs = Math.min(this.idleTimeoutMs, upstreamTimeoutMs ?? Number.POSITIVE_INFINITY);
    // An idle socket does not keep the process alive, as node:http's Agent does not.
    connection.socket.unref();
    // The answer is handed on after the check, so the next request can find the socket idle.
    setImmediate(() => {
      if (this.closed || connection.socket.destroyed || connection.current || this.idle.length >= this.maxIdle) {
        if (!connection.current) connection.socket.destroy();
      } else {
        connection.idleSince = performance.now();
        this.idle.push(connection);
      }
      then();
    });
  }

  private sweep(): void {
    const now = performance.now();
    for (let index = this.idle.length - 1; index >= 0; index -= 1) {
      const connection = this.idle[index]!;
      if (now - connection.idleSince >= connection.idleLimitMs) {
        this.idle.splice(index, 1);
        connection.socket.destroy();
      }
    }
  }
}

/** TLS certificate failures: the upstream was reached, but not trusted. */
const certificateCodes = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** A socket's error as a plain reason that names its code. */
export function socketError(error: NodeJS.ErrnoException, started: boolean): UpstreamError {
  const code = error.code ?? 'unknown';
  if (certificateCodes.has(code)) return new UpstreamError('unreachable', `refused its TLS certificate (${code}: ${error.message})`, code);
  switch (code) {
    case 'ECONNREFUSED':
      return new UpstreamError('unreachable', `cannot be reached: the connection was refused (${code})`, code);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UpstreamError('unreachable', `cannot be reached: its host name did not resolve (${code})`, code);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new UpstreamError('unreachable', `cannot be reached: no route to its host (${code})`, code);
    case 'ETIMEDOUT':
      return new UpstreamError('unreachable', `cannot be reached: the connection timed out (${code})`, code);
    case 'ECONNRESET':
      return new UpstreamError(
        'closed',
        `the upstream reset the connection ${started ? 'mid-answer' : 'before its answer was whole'} (${code})`,
        code,
      );
    default:
      return new UpstreamError(
        'closed',
        `the upstream closed the connection ${started ? 'mid-answer' : 'before its answer was whole'} (${code}: ${error.message})`,
        code,
      );
  }
}
