/**
 * @module conformance/http/bounded-client
 * One exchange of the runner with hard bounds, whatever the server sends, through the project's
 * one outbound client (src/http/outbound-client.ts, undici): the body is capped as sent and once
 * decoded (content-decoding.ts: one budget, a few codings at most), the exchange ends at its
 * deadline, and what had arrived is kept with the reason it is not whole. An injected Fetch
 * function (an in-process engine) is read through the same cap.
 */
import { CappedBuffer } from '../../http/capped-buffer.js';
import { OutboundClient, type OutboundConnectGuard, type OutboundTls } from '../../http/outbound-client.js';
import { plainTransportError } from '../../http/plain-errors.js';
import type { IncompleteBody, SentRequest } from '../exchange.js';
import { burstParticipantHere, heldBackBody } from './burst-gate.js';

export { switchedProtocols } from '../../http/outbound-client.js';

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
  /**
   * Until when (a Date.now() time) a body still arriving at the deadline may be read on while
   * it keeps coming (16 KiB per --timeout at least: A-41). Absent: cut at the deadline.
   */
  readonly bodyProgressUntil?: number;
  readonly maxResponseBytes: number;
  /** Aborting it destroys the request at once (SIGINT, SIGTERM). */
  readonly signal?: AbortSignal;
}

/** What an answer's body must bring per --timeout window to be read on past the deadline. */
export const answerProgressBytes = 16 * 1024;

/**
 * How many windows past the deadline a moving body may take: a request costs at most 4 × --timeout,
 * so a server sending just enough (or a million one-byte chunks) cannot hold the run to its budget.
 */
export const answerProgressWindows = 3;

const tooLarge = (limit: number): IncompleteBody['message'] => `answer larger than ${limit} bytes (--max-response-bytes)`;

function stated(limits: ExchangeLimits): number {
  return limits.statedTimeoutMs ?? limits.timeoutMs;
}

/** How an https target's certificate is checked (--ca, --insecure). */
export type TlsOptions = OutboundTls;

/** The runner's client: the one outbound client, asking for compressed answers and decoding them within the cap. */
export class BoundedNodeClient {
  private readonly client: OutboundClient;

  constructor(
    options: { maxSockets?: number; tls?: TlsOptions; maxResponseBytes?: number; connectGuard?: OutboundConnectGuard | undefined } = {},
  ) {
    this.client = new OutboundClient({
      connectionsPerOrigin: options.maxSockets ?? 4,
      // The deadline is each request's (--timeout); the client's own is only an outer bound.
      deadlineMs: 2 ** 31 - 1,
      // As sent and once decoded (every stage together), at most 3 codings.
      ...(options.maxResponseBytes === undefined
        ? {}
        : { maxBodyBytes: options.maxResponseBytes, maxDecodedBytes: options.maxResponseBytes }),
      maxCodings: 3,
      ...(options.tls ? { tls: options.tls } : {}),
      ...(options.connectGuard ? { connectGuard: options.connectGuard } : {}),
    });
  }

  async request(sent: SentRequest, limits: ExchangeLimits): Promise<RawOutcome> {
    const hasLength = Object.keys(sent.headers).some((name) => name.toLowerCase() === 'content-length');
    const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br', ...sent.headers };
    const body = sent.body === undefined ? undefined : Buffer.from(sent.body);
    if (body && !hasLength) headers['content-length'] = String(body.length);
    const target = writtenTarget(sent.url);
    // A request of a burst (burst-gate.ts) is written but for its last byte, released with the others'.
    const burst = burstParticipantHere();
    const held = burst && body && body.length > 1 && burst.claim() ? heldBackBody(body, burst) : undefined;
    // One that cannot be held back (no body to split, a retry) does not keep the others waiting.
    if (burst && !held) burst.leave();
    const outcome = await this.client.send({
      method: sent.method,
      url: sent.url,
      ...(target ? { target } : {}),
      headers,
      ...(body ? { body: held ?? body } : {}),
      deadlineMs: Math.max(1, Math.ceil(limits.timeoutMs)),
      statedTimeout: { ms: stated(limits), flag: '--timeout' },
      ...(limits.bodyProgressUntil === undefined
        ? {}
        : { bodyProgress: { minBytes: answerProgressBytes, maxWindows: answerProgressWindows, until: limits.bodyProgressUntil } }),
      ...(limits.signal ? { signal: limits.signal } : {}),
    });
    if (outcome.interrupted) return { error: 'the run was interrupted', timedOut: false, interrupted: true };
    const answer = outcome.answer;
    if (!answer) return { error: outcome.failure?.message ?? 'no answer', timedOut: outcome.timedOut, interrupted: false };
    if (answer.partial) {
      const message = answer.partial.reason === 'too-large' ? tooLarge(limits.maxResponseBytes) : answer.partial.message;
      return {
        answer: { status: answer.status, headers: answer.headers, body: answer.body, incomplete: { ...answer.partial, message } },
        timedOut: outcome.timedOut,
        interrupted: false,
      };
    }
    const decoded = await this.client.decode(answer);
    if ('problem' in decoded) {
      // An encoding it does not know is kept as sent; a corrupt or oversized one is not whole.
      if (decoded.problem === 'unsupported')
        return { answer: { status: answer.status, headers: answer.headers, body: answer.body }, timedOut: false, interrupted: false };
      const message = decoded.problem === 'too-large' ? tooLarge(limits.maxResponseBytes) : decoded.message;
      const head = new CappedBuffer(limits.maxResponseBytes);
      head.add(answer.body);
      return {
        answer: {
          status: answer.status,
          headers: answer.headers,
          body: decoded.problem === 'too-large' ? Buffer.alloc(0) : head.head,
          incomplete: { reason: decoded.problem, bytes: decoded.bytes, message },
        },
        timedOut: false,
        interrupted: false,
      };
    }
    return { answer: { status: answer.status, headers: answer.headers, body: decoded.body }, timedOut: false, interrupted: false };
  }

  /** Ends every connection, in use or idle, so nothing keeps the process alive. */
  close(): void {
    void this.client.close();
  }
}

/**
 * The path and query of `url` as written, when `new URL` would send others: a dot segment
 * (`/v0/jobs/..`) is resolved by the URL parser, and the runner sends what it records. With an
 * injected Fetch function, Fetch's own URL parser resolves it first.
 */
export function writtenTarget(url: string): string | undefined {
  const parsed = new URL(url);
  if (!url.startsWith(parsed.origin)) return undefined;
  const written = url.slice(parsed.origin.length);
  return written !== `${parsed.pathname}${parsed.search}` && /^\/[!-~]*$/.test(written) ? written : undefined;
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
