/**
 * @module conformance/http/bounded-client
 * One HTTP exchange with hard bounds, whatever the server sends: the body is streamed and
 * counted (as sent and once decoded, so a compression bomb stops at the same cap), the socket
 * is destroyed the moment the cap or the deadline is hit, and what had arrived is kept with
 * the reason it is not whole. Two ways out: node:http with its own keep-alive agent (the
 * default; `close()` destroys every socket, so none keeps the process alive), or an injected
 * Fetch function (an in-process engine), read through the same cap.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { IncompleteBody, SentRequest } from '../exchange.js';
import { plainTransportError } from './plain-errors.js';

export type FetchFunction = (request: Request) => Promise<Response>;

/** What came back from one request, before any parsing. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly incomplete?: IncompleteBody;
}

export interface RawOutcome {
  readonly answer?: RawAnswer;
  /** Why no answer came, in plain words. */
  readonly error?: string;
  /** No answer, or no whole body, by the deadline. */
  readonly timedOut: boolean;
  /** Cut by the run's own stop (an interrupt), not by anything the server did. */
  readonly interrupted: boolean;
}

export interface ExchangeLimits {
  /** How long this attempt may take. */
  readonly timeoutMs: number;
  /**
   * The --timeout that messages name, when it differs from `timeoutMs`: a redirect or a retry
   * gets only what is left of its request's deadline, but the request had --timeout in all.
   */
  readonly statedTimeoutMs?: number;
  readonly maxResponseBytes: number;
  /** Aborting it destroys the request at once (SIGINT, SIGTERM). */
  readonly signal?: AbortSignal;
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The decoders for a Content-Encoding list, outermost last ("gzip, br" was gzipped, then brotli'd). */
function decodersFor(contentEncoding: string | undefined): Transform[] | undefined {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding && coding !== 'identity');
  if (codings.length === 0 || codings.length > 3) return undefined;
  const decoders: Transform[] = [];
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') decoders.push(zlib.createGunzip());
    else if (coding === 'deflate') decoders.push(zlib.createInflate());
    else if (coding === 'br') decoders.push(zlib.createBrotliDecompress());
    else return undefined; // unknown coding: keep the bytes as sent
  }
  return decoders;
}

const tooLarge = (limit: number): IncompleteBody['message'] => `answer larger than ${limit} bytes (--max-response-bytes)`;

/** What a 101 answer is reported as: the exchange is over, with no HTTP answer to judge. */
export const switchedProtocols = 'the server switched protocols (101 Switching Protocols); the runner does not follow upgrades';

function stated(limits: ExchangeLimits): number {
  return limits.statedTimeoutMs ?? limits.timeoutMs;
}

/**
 * Collects body chunks up to a cap, copied into one growing Buffer (doubling, never past the
 * cap): memory follows the bytes kept, not the number of chunks. Keeping each chunk as its own
 * view retained the socket's whole read buffer per chunk (1-byte chunks peaked at 3.3 GB).
 */
export class CappedBuffer {
  private store: Buffer = Buffer.alloc(0);
  private length = 0;
  /** Bytes received, kept or not. */
  bytes = 0;
  constructor(private readonly limit: number) {}
  /** Adds a chunk; false (keeping only what fits) once the cap is passed. */
  add(chunk: Uint8Array): boolean {
    const room = this.limit - this.length;
    this.bytes += chunk.length;
    const kept = Math.min(chunk.length, Math.max(0, room));
    if (kept > 0) {
      this.reserve(this.length + kept);
      this.store.set(kept === chunk.length ? chunk : chunk.subarray(0, kept), this.length);
      this.length += kept;
    }
    return chunk.length <= room;
  }
  private reserve(needed: number): void {
    if (needed <= this.store.length) return;
    let size = Math.max(this.store.length * 2, 1024);
    while (size < needed) size *= 2;
    const grown = Buffer.allocUnsafeSlow(Math.min(size, Math.max(this.limit, needed)));
    this.store.copy(grown, 0, 0, this.length);
    this.store = grown;
  }
  /** The bytes kept (a view of the store, which is released with the buffer). */
  get body(): Buffer {
    return this.store.subarray(0, this.length);
  }
  /**
   * The start of the body, for an answer that is not whole: reports show only its beginning,
   * and holding the rest (up to the cap) for every such answer is what made RSS grow.
   */
  get head(): Buffer {
    const head = Buffer.from(this.store.subarray(0, Math.min(this.length, incompleteHeadBytes)));
    this.store = Buffer.alloc(0);
    this.length = 0;
    return head;
  }
}

/** How much of an answer that is not whole is kept (to show how it began). */
const incompleteHeadBytes = 8 * 1024;

/** How an https target's certificate is checked (--ca, --insecure). */
export interface TlsOptions {
  /** PEM certificates trusted in place of Node's bundled roots (a private CA, a self-signed server). */
  readonly ca?: string;
  /** Accept any certificate: the connection is encrypted, but the server is not authenticated. */
  readonly insecure?: boolean;
}

/** node:http with one keep-alive agent per protocol; `close()` ends every socket it opened. */
export class BoundedNodeClient {
  private readonly agents: { readonly 'http:': http.Agent; readonly 'https:': https.Agent };

  constructor(options: { maxSockets?: number; tls?: TlsOptions } = {}) {
    const maxSockets = options.maxSockets ?? 4;
    this.agents = {
      'http:': new http.Agent({ keepAlive: true, maxSockets }),
      'https:': new https.Agent({
        keepAlive: true,
        maxSockets,
        ...(options.tls?.ca === undefined ? {} : { ca: options.tls.ca }),
        ...(options.tls?.insecure ? { rejectUnauthorized: false } : {}),
      }),
    };
  }

  private readonly live = new Set<http.ClientRequest>();

  request(sent: SentRequest, limits: ExchangeLimits): Promise<RawOutcome> {
    const url = new URL(sent.url);
    const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
    const body = sent.body === undefined ? undefined : Buffer.from(sent.body);
    const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br', ...sent.headers };
    if (body && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length'))
      headers['content-length'] = String(body.length);
    return new Promise<RawOutcome>((resolve) => {
      let settled = false;
      let response: IncomingMessage | undefined;
      let status = 0;
      let responseHeaders: Record<string, string> = {};
      const buffer = new CappedBuffer(limits.maxResponseBytes);
      let decoders: Transform[] = [];
      const request = (protocol === 'https:' ? https : http).request(url, { method: sent.method, headers, agent: this.agents[protocol] });
      this.live.add(request);
      const stop = () => {
        for (const decoder of decoders) decoder.destroy();
        request.destroy();
      };
      const finish = (outcome: Omit<RawOutcome, 'timedOut' | 'interrupted'> & { timedOut?: boolean; interrupted?: boolean }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        limits.signal?.removeEventListener('abort', onAbort);
        this.live.delete(request);
        resolve({ timedOut: false, interrupted: false, ...outcome });
      };
      const partial = (reason: IncompleteBody['reason'], message: string): Pick<RawOutcome, 'answer'> => ({
        answer: { status, headers: responseHeaders, body: buffer.head, incomplete: { reason, bytes: buffer.bytes, message } },
      });
      const timer = setTimeout(() => {
        finish(
          response
            ? {
                ...partial('timeout', `the body was still arriving after ${stated(limits)} ms (${buffer.bytes} bytes received)`),
                timedOut: true,
              }
            : { error: `no answer within ${stated(limits)} ms (--timeout)`, timedOut: true },
        );
        stop();
      }, limits.timeoutMs);
      const onAbort = () => {
        finish({ error: 'the run was interrupted', interrupted: true });
        stop();
      };
      if (limits.signal?.aborted) {
        onAbort();
        return;
      }
      limits.signal?.addEventListener('abort', onAbort, { once: true });

      request.on('response', (incoming) => {
        response = incoming;
        status = incoming.statusCode ?? 0;
        responseHeaders = flatten(incoming.headers);
        let sentBytes = 0;
        const overCap = () => {
          finish(partial('too-large', tooLarge(limits.maxResponseBytes)));
          stop();
        };
        decoders = decodersFor(incoming.headers['content-encoding']) ?? [];
        // The bytes as sent are capped too: a compressed stream may decode to almost nothing.
        incoming.on('data', (chunk: Buffer) => {
          sentBytes += chunk.length;
          if (decoders.length > 0 && sentBytes > limits.maxResponseBytes) overCap();
        });
        let source: NodeJS.ReadableStream = incoming;
        for (const decoder of decoders) {
          decoder.on('error', () => {
            finish(partial('undecodable', `the ${incoming.headers['content-encoding']}-encoded body could not be decoded`));
            stop();
          });
          source = source.pipe(decoder);
        }
        source.on('data', (chunk: Buffer) => {
          if (!buffer.add(chunk)) overCap();
        });
        source.on('end', () => finish({ answer: { status, headers: responseHeaders, body: buffer.body } }));
        incoming.on('close', () => {
          if (!incoming.complete)
            finish(partial('closed', plainTransportError(undefined, { host: url.host, answerStarted: true, bytes: buffer.bytes })));
        });
      });
      // A 101 hands the connection to another protocol: node:http emits 'upgrade' (without a
      // listener it closes the socket and says nothing, which would read as a timeout).
      request.on('upgrade', (incoming: IncomingMessage, socket: { destroy(): void }) => {
        socket.destroy();
        response = incoming;
        status = incoming.statusCode ?? 101;
        responseHeaders = flatten(incoming.headers);
        finish(partial('switched-protocols', switchedProtocols));
      });
      request.on('error', (error) => {
        if (response) finish(partial('closed', plainTransportError(error, { host: url.host, answerStarted: true, bytes: buffer.bytes })));
        else finish({ error: plainTransportError(error, { host: url.host }) });
      });
      request.end(body);
    });
  }

  /** Destroys every open socket, in use or idle, so nothing keeps the process alive. */
  close(): void {
    for (const request of this.live) request.destroy();
    this.live.clear();
    for (const agent of Object.values(this.agents)) agent.destroy();
  }
}

/** One exchange through an injected Fetch function, with the same deadline and cap. */
export async function boundedFetch(fetchFunction: FetchFunction, sent: SentRequest, limits: ExchangeLimits): Promise<RawOutcome> {
  const controller = new AbortController();
  const host = new URL(sent.url).host;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  type Stop = { stop: 'timeout' | 'interrupted' };
  const stopped = new Promise<Stop>((resolve) => {
    timer = setTimeout(() => resolve({ stop: 'timeout' }), limits.timeoutMs);
    onAbort = () => resolve({ stop: 'interrupted' });
    if (limits.signal?.aborted) onAbort();
    else limits.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const interruptedOutcome: RawOutcome = { error: 'the run was interrupted', timedOut: false, interrupted: true };
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    // Racing the deadline as well as aborting: an injected fetch may ignore the signal.
    const started = fetchFunction(
      new Request(sent.url, {
        method: sent.method,
        headers: sent.headers,
        redirect: 'manual',
        signal: controller.signal,
        ...(sent.body === undefined ? {} : { body: sent.body }),
      }),
    );
    started.catch(() => undefined);
    const first = await Promise.race([started, stopped]);
    if ('stop' in first) {
      controller.abort();
      return first.stop === 'timeout'
        ? { error: `no answer within ${stated(limits)} ms (--timeout)`, timedOut: true, interrupted: false }
        : interruptedOutcome;
    }
    const response = first;
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const buffer = new CappedBuffer(limits.maxResponseBytes);
    const partial = (reason: IncompleteBody['reason'], message: string, extra: Partial<RawOutcome> = {}): RawOutcome => ({
      answer: { status: response.status, headers, body: buffer.head, incomplete: { reason, bytes: buffer.bytes, message } },
      timedOut: false,
      interrupted: false,
      ...extra,
    });
    reader = response.body?.getReader();
    while (reader) {
      const next = reader.read();
      next.catch(() => undefined);
      let step: ReadableStreamReadResult<Uint8Array> | Stop;
      try {
        step = await Promise.race([next, stopped]);
      } catch (error) {
        return partial('closed', plainTransportError(error, { host, answerStarted: true, bytes: buffer.bytes }));
      }
      if ('stop' in step) {
        if (step.stop === 'interrupted') return interruptedOutcome;
        return partial('timeout', `the body was still arriving after ${stated(limits)} ms (${buffer.bytes} bytes received)`, {
          timedOut: true,
        });
      }
      if (step.done) break;
      if (!buffer.add(step.value)) return partial('too-large', tooLarge(limits.maxResponseBytes));
    }
    reader = undefined;
    return { answer: { status: response.status, headers, body: buffer.body }, timedOut: false, interrupted: false };
  } catch (error) {
    return { error: plainTransportError(error, { host }), timedOut: false, interrupted: false };
  } finally {
    clearTimeout(timer);
    if (onAbort) limits.signal?.removeEventListener('abort', onAbort);
    reader?.cancel().catch(() => undefined);
    controller.abort();
  }
}
