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
 * Bounded: the head to `maxHeaderBytes`, the body to `maxBodyBytes`.
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

/** `name: value`, the name a token, the value without CR, LF or NUL; leading blanks of the value skipped (trailing ones are trimmed after: no backtracking). */
const headerLine = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([^\r\n\0]*)$/;
const statusLine = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
const hexSize = /^[0-9A-Fa-f]{1,15}$/;
const crlfcrlf = Buffer.from('\r\n\r\n');

type Framing = { kind: 'none' } | { kind: 'length'; remaining: number } | { kind: 'chunked' } | { kind: 'close' };

/** Reads one answer from the bytes of a connection, as they come. */
export class AnswerReader {
  private state: 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'close' | 'done' = 'head';
  private pending: Buffer | undefined;
  private chunkLeft = 0;
  private readonly chunks: Buffer[] = [];
  private bodyBytes = 0;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private rawHeaders: string[] = [];
  /** The connection may carry another exchange after this answer. */
  keepAlive = false;
  /** Bytes of the connection were read: a failure from here on is not a stale idle socket's. */
  started = false;

  constructor(
    private readonly method: string,
    private readonly limits: { readonly maxHeaderBytes: number; readonly maxBodyBytes: number },
  ) {}

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
            this.pending = data;
            return undefined;
          }
          if (end > this.limits.maxHeaderBytes)
            throw new UpstreamError('too-large', `the upstream's answer head is larger than ${this.limits.maxHeaderBytes} bytes`);
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
            if (data.length > 4096) throw new UpstreamError('malformed', 'a chunk-size line of the upstream’s answer is too long');
            this.pending = data;
            return undefined;
          }
          const line = data.toString('latin1', 0, end);
          const semicolon = line.indexOf(';');
          const size = (semicolon < 0 ? line : line.slice(0, semicolon)).replace(/[ \t]+$/, '');
          if (!hexSize.test(size)) throw new UpstreamError('malformed', 'the upstream’s answer has a malformed chunk size');
          this.chunkLeft = Number.parseInt(size, 16);
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
            this.pending = data;
            return undefined;
          }
          if (data[0] !== 13 || data[1] !== 10)
            throw new UpstreamError('malformed', 'a chunk of the upstream’s answer does not end in CRLF');
          data = data.subarray(2);
          this.state = 'chunk-size';
          break;
        }
        case 'trailers': {
          // Trailer fields are read and dropped, as node:http's client drops them from the headers.
          if (data.length >= 2 && data[0] === 13 && data[1] === 10) {
            data = data.subarray(2);
            this.state = 'done';
            break;
          }
          const end = data.indexOf(crlfcrlf);
          if (end < 0) {
            if (data.length > this.limits.maxHeaderBytes)
              throw new UpstreamError('too-large', `the upstream's answer trailers are larger than ${this.limits.maxHeaderBytes} bytes`);
            this.pending = data;
            return undefined;
          }
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

  private keep(part: Buffer): void {
    if (part.length === 0) return;
    this.bodyBytes += part.length;
    if (this.bodyBytes > this.limits.maxBodyBytes)
      throw new UpstreamError('too-large', `the upstream's answer is larger than ${this.limits.maxBodyBytes} bytes (--max-response-bytes)`);
    this.chunks.push(part);
  }

  private answer(): UpstreamAnswerParts {
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.bodyBytes);
    return { status: this.status, headers: this.headers, rawHeaders: this.rawHeaders, body };
  }

  private readHead(text: string): void {
    const lines = text.split('\r\n');
    const status = statusLine.exec(lines[0]!);
    if (!status) throw new UpstreamError('malformed', `the upstream's answer does not start with an HTTP/1.x status line`);
    const minor = status[1]!;
    const code = Number(status[2]);
    const headers: IncomingHttpHeaders = {};
    const raw: string[] = [];
    const lengths: string[] = [];
    let transferEncoding = '';
    let connection = '';
    for (let index = 1; index < lines.length; index += 1) {
      const field = headerLine.exec(lines[index]!);
      if (!field) throw new UpstreamError('malformed', `the upstream's answer has a malformed header line`);
      const name = field[1]!;
      let valueEnd = field[2]!.length;
      while (valueEnd > 0 && (field[2]!.charCodeAt(valueEnd - 1) === 32 || field[2]!.charCodeAt(valueEnd - 1) === 9)) valueEnd -= 1;
      const value = valueEnd === field[2]!.length ? field[2]! : field[2]!.slice(0, valueEnd);
      const lower = name.toLowerCase();
      raw.push(name, value);
      if (lower === 'content-length') lengths.push(...value.split(','));
      else if (lower === 'transfer-encoding') transferEncoding += `${transferEncoding ? ',' : ''}${value}`;
      else if (lower === 'connection') connection += `${connection ? ',' : ''}${value}`;
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
    this.status = code;
    this.headers = headers;
    this.rawHeaders = raw;
    const tokens = connection.toLowerCase().split(',');
    const said = (word: string) => tokens.some((part) => part.trim() === word);
    this.keepAlive = minor === '1' ? !said('close') : said('keep-alive');
    const framing = this.framing(code, transferEncoding, lengths);
    // Read to the close, or framed both ways (RFC 9112 §6.3: the connection is closed after such an answer).
    if (framing.kind === 'close' || (transferEncoding !== '' && lengths.length > 0)) this.keepAlive = false;
    if (framing.kind === 'none') this.state = 'done';
    else if (framing.kind === 'length') {
      this.chunkLeft = framing.remaining;
      if (framing.remaining > this.limits.maxBodyBytes)
        throw new UpstreamError(
          'too-large',
          `the upstream's answer is larger than ${this.limits.maxBodyBytes} bytes (--max-response-bytes)`,
        );
      this.state = framing.remaining === 0 ? 'done' : 'length';
    } else this.state = framing.kind === 'chunked' ? 'chunk-size' : 'close';
  }

  /** How the answer's body is delimited (RFC 9112 §6.3). */
  private framing(status: number, transferEncoding: string, lengths: readonly string[]): Framing {
    if (this.method === 'HEAD' || status === 204 || status === 304) return { kind: 'none' };
    if (transferEncoding !== '') {
      const codings = transferEncoding.toLowerCase().split(',');
      return codings[codings.length - 1]!.trim() === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
    }
    if (lengths.length === 0) return { kind: 'close' };
    const first = lengths[0]!.trim();
    if (!/^\d{1,15}$/.test(first) || lengths.some((length) => length.trim() !== first))
      throw new UpstreamError('malformed', `the upstream's answer has an invalid Content-Length`);
    return { kind: 'length', remaining: Number(first) };
  }
}

interface Connection {
  readonly socket: net.Socket;
  /** The exchange under way on it, if any. */
  current: Call | undefined;
  /** Exchanges it carried before this one: a reused socket may have been closed by the upstream meanwhile. */
  served: number;
  idleSince: number;
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

const idempotent = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

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
    let retried = false;

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
            // A reused socket the upstream closed while it was idle: a bodiless idempotent request is sent again, once.
            if (reused && !reader.started && !retried && !streamed && request.body === undefined && idempotent.has(request.method)) {
              retried = true;
              start(true);
              return;
            }
            settled = true;
            rejectAnswer(outcome.error);
            return;
          }
          settled = true;
          // A body still being sent, or an answer the upstream may follow with anything, ends the socket's use.
          if (!bodyDone) current.socket.destroy();
          else this.release(current);
          resolveAnswer(outcome.answer);
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
      if (!connection.socket.destroyed && now - connection.idleSince < this.idleTimeoutMs) {
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
    const connection: Connection = { socket, current: undefined, served: 0, idleSince: 0 };
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
      const unreachable = error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH';
      call.settle({
        error: unreachable
          ? new UpstreamError('unreachable', `cannot be reached (${error.code})`, error.code)
          : new UpstreamError(
              'closed',
              call.reader.started
                ? 'the upstream closed the connection mid-answer'
                : 'the upstream closed the connection before its answer was whole',
              error.code,
            ),
      });
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

  private release(connection: Connection): void {
    if (this.closed || connection.socket.destroyed || this.idle.length >= this.maxIdle) {
      connection.socket.destroy();
      return;
    }
    connection.idleSince = performance.now();
    // An idle socket does not keep the process alive, as node:http's Agent does not.
    connection.socket.unref();
    this.idle.push(connection);
  }

  private sweep(): void {
    const now = performance.now();
    for (let index = this.idle.length - 1; index >= 0; index -= 1) {
      const connection = this.idle[index]!;
      if (now - connection.idleSince >= this.idleTimeoutMs) {
        this.idle.splice(index, 1);
        connection.socket.destroy();
      }
    }
  }
}
