/**
 * @module server/mock-server
 * The mock engine served over node:http: CORS for browser clients on other ports, the control
 * API under /__mock/ (for this machine and the origins listed only), one log line per request,
 * timeouts against slow clients, an Error body for every early answer, and a close that ends.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Scrubber } from '../contract/secrets.js';
import { isLoopbackHostName } from '../documents/address-guard.js';
import {
  buildEngineContract,
  bundledEngineContract,
  createMockEngine,
  type EngineCall,
  type EngineContract,
  errorAnswer,
  handleControl,
  isControlPath,
  type MockEngine,
  type MockEngineOptions,
} from '../engine/index.js';
import { connectRefused, expectationRefused, hostHeaderProblem } from '../http/early-answers.js';
import { createServerEdge } from '../http/server-edge.js';
import { type ControlGuard, createControlGuard } from './control-guard.js';
import { createMemoryRelease, type MemoryRelease } from './memory-release.js';
import { requestOrigin, sendAnswer, sendFetchResponse, toEngineCall, toFetchRequest } from './node-adapter.js';
import type { SharedState } from './redis/shared-state.js';
import { isRedisUrl } from './redis/store-url.js';

export interface MockServerOptions {
  /** The engine to serve; default: a new one from `engineOptions`. */
  readonly engine?: MockEngine;
  readonly engineOptions?: MockEngineOptions;
  /**
   * The contract to serve when no `engine` is given: an OpenAPI 3.1 document as an object (read
   * a file with `loadContract`) or a contract built with `contractFromDocument`; the same as
   * `engineOptions.spec`. Default: the bundled spec/openapi.yaml.
   */
  readonly spec?: unknown;
  /**
   * A server profile to answer by when no `engine` is given (docs/profiles.md): a parsed profile
   * document, or one read with `readProfileFile`. Shorthand for `engineOptions.profile`.
   */
  readonly profile?: unknown;
  /**
   * End the engine's latency waits when the server closes (engine.close()). Default: true for
   * an engine the server made, false for one passed in, which may still serve elsewhere.
   */
  readonly closeEngine?: boolean;
  /** Default 4010; 0 picks a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** The control API token; required (and generated when not given) beyond loopback. */
  readonly controlToken?: string;
  /**
   * Origins (`http://localhost:5173`) whose web pages may call the control API with CORS.
   * Default none: a request to /__mock/ carrying any other Origin is refused with 403.
   */
  readonly controlOrigins?: readonly string[];
  /**
   * After `POST /__mock/reset`, once no request has arrived for `quietMs` (default 5 s), ask V8
   * to compact its heap so that RSS falls back near where it started (server/memory-release).
   * Default off: a full collection of a large host process (a test runner that embeds the
   * server) can hold its event loop for a second; `evidence-harness mock` turns it on.
   */
  readonly releaseMemoryAfterReset?: boolean | { readonly quietMs?: number };
  /**
   * Serve HTTPS with this certificate and key (PEM), so a frontend served over https can call
   * the mock without mixed-content errors. Default: plain HTTP.
   */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /**
   * Keep jobs, idempotency keys, scenarios and the journal in Redis (`redis://HOST:PORT[/DB]`),
   * so several replicas serve one mock and a restart loses nothing (docs/scale-out.md). With a
   * `namespace`, several mocks share one Redis apart. Default: in memory, in this process.
   * Not with `engine` (an engine brings its own stores).
   */
  readonly store?: string | { readonly url: string; readonly namespace?: string; readonly commandTimeoutMs?: number };
  /**
   * A shared store already opened with `openSharedState`, whose `engineOptions` built `engine`:
   * the server serves its journal and closes it when it closes (how `evidence-harness mock
   * --store` runs, having made the engine itself).
   */
  readonly sharedState?: SharedState;
  /** Receives one line per request; default: none. */
  readonly log?: (line: string) => void;
  readonly timeouts?: {
    /** Time to receive a request's headers. Default 10 s. */
    readonly headersMs?: number;
    /**
     * The window a request body's progress is judged over: one that brings fewer than
     * `bodyMinBytes` in a window is cut with 408; a slow but moving body is not (A-41). Default 10 s.
     */
    readonly requestMs?: number;
    /** What a request body must bring in each `requestMs` window. Default 16 KiB. */
    readonly bodyMinBytes?: number;
    /** Idle keep-alive. Default 5 s. */
    readonly keepAliveMs?: number;
    /**
     * How long the rest of a refused body (413, say) is read and thrown away after the answer,
     * before the connection is cut. Default 2 s. A drain that stalls for a `requestMs` window
     * is cut sooner (without a second answer).
     */
    readonly discardMs?: number;
  };
}

export interface RunningMockServer {
  /** Base URL, such as http://127.0.0.1:4010 (https:// with `tls`). */
  readonly url: string;
  readonly port: number;
  readonly engine: MockEngine;
  /** The control token in force, when the control API needs one. */
  readonly controlToken?: string;
  /** Redis commands this replica has sent, with `store` (benchmarks report them per operation). */
  readonly storeCommandsSent?: () => number;
  /**
   * Stops accepting connections, ends the engine's latency waits (so in-flight requests are
   * answered now) and waits for in-flight requests, at most `graceMs` (default 5 s), after
   * which the connections still open are cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * The control API's token for a server listening on `host`: the one given, else none on
 * loopback (only this machine can call), else a fresh random one, printed at start-up.
 */
export function controlTokenFor(options: { host: string; given?: string | undefined }): string | undefined {
  if (options.given !== undefined) return options.given;
  // Only this machine can call a server on loopback; the one address guard decides what that is.
  return isLoopbackHostName(options.host) ? undefined : randomBytes(18).toString('base64url');
}

/** CORS headers on every answer of the contract, so a browser app on another origin can call the mock (A-20). */
const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'Retry-After, Allow, Content-Length',
} as const;

/** The contract's preflight; the control API's own is the control guard's (control-guard.ts). */
const preflightHeaders = {
  ...corsHeaders,
  'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE',
  'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key, Prefer, X-Mock-Session',
  'access-control-max-age': '600',
} as const;

/** Methods the Fetch API refuses to construct a Request for (CONNECT is handled separately). */
const fetchForbiddenMethods = new Set(['TRACE', 'TRACK']);

/** A call for a request whose body the engine will never read (it answers 404 or 405). */
function bodilessCall(incoming: IncomingMessage, options: { method: string; pathname: string }): EngineCall {
  return {
    method: options.method,
    pathname: options.pathname,
    header: (name) => {
      const value = incoming.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    // Node gives header names in lower case.
    headerNames: () => Object.keys(incoming.headers),
    readBody: async () => new Uint8Array(0),
    discardBody: () => undefined,
  };
}

/**
 * After an answer sent before the request body was complete (a 413 refusing an oversized body,
 * or a 404 that never read it), the rest is read and thrown away — Node drains it — instead of
 * closing at once. Closing a socket with unread input makes the kernel send a reset, and a reset
 * makes the client's kernel drop the answer it has not read yet: the client would see
 * ECONNRESET or EPIPE instead of the 413 (the reason for nginx's lingering close and Go's
 * RST-avoidance delay). A client that keeps sending past `limitMs` is cut off; by then it has
 * had the time to read the answer. While a socket drains it is in `draining`, so that a timeout
 * or parse error in the rest is not answered a second time, and so that close() can end it.
 */
function discardRestOfBody(incoming: IncomingMessage, options: { limitMs: number; draining: Set<Socket> }): void {
  const socket = incoming.socket;
  if (incoming.complete || socket === null || socket.destroyed || options.draining.has(socket)) return;
  options.draining.add(socket);
  const cutOff = setTimeout(() => socket.destroy(), options.limitMs);
  cutOff.unref();
  const stop = () => {
    clearTimeout(cutOff);
    options.draining.delete(socket);
    // A keep-alive socket serves many requests: listeners left on it would pile up.
    incoming.off('end', stop);
    socket.off('close', stop);
  };
  incoming.once('end', stop);
  socket.once('close', stop);
  // The engine is done with the body, read or not (a 404 or 405 never reads it), but its
  // reader may still be listening and pausing the stream; nothing would then take the rest.
  incoming.removeAllListeners('data');
  incoming.resume();
}

/**
 * Longest path a log line shows: a request target may be nearly 16 KiB, a terminal line should
 * not be. (Node's parser refuses control characters and bytes ≥ 0x80 in a target, so what is
 * shown is printable ASCII.)
 */
const loggedPathLength = 200;

function loggedPath(path: string): string {
  return path.length > loggedPathLength ? `${path.slice(0, loggedPathLength)}…` : path;
}

/** The time of day of the last log line's second (`HH:MM:SS.`): formatted once a second, not once a request. */
let loggedSecond = { second: Number.NaN, text: '' };

/** `HH:MM:SS.mmm` (UTC) of now, for a log line. */
function timeOfDay(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== loggedSecond.second) loggedSecond = { second, text: new Date(now).toISOString().slice(11, 20) };
  const milliseconds = now - second * 1000;
  return `${loggedSecond.text}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}`;
}

/**
 * One request's log line. The caller's parts (path, session name) are scrubbed of the credentials
 * the engine has seen (A-10), the path before it is cut, so a cut never leaves part of one.
 */
function formatLine(options: {
  method: string;
  path: string;
  status: number | 'aborted';
  ms: number;
  scenario: string;
  session?: string;
  scrubber: Scrubber | undefined;
}): string {
  const { scrubber } = options;
  const time = timeOfDay();
  const path = scrubber ? scrubber.scrub(options.path) : options.path;
  const session = options.session === undefined ? '' : ` session=${scrubber ? scrubber.scrub(options.session) : options.session}`;
  return `${time} ${options.method} ${loggedPath(path)} ${options.status} ${options.ms.toFixed(1)}ms scenario=${options.scenario}${session}`;
}

/**
 * The session a request named and the scenario in force in it, for its log line (A-60). Only a
 * live session is named: the line never makes one (a refused call must leave none behind), and
 * a name no session has is the caller's text, not echoed; the line then shows the default's scenario.
 */
function sessionOfLine(engine: MockEngine, named: string | string[] | undefined): { scenario: string; session?: string } {
  if (typeof named !== 'string') return { scenario: engine.control.scenario };
  const session = engine.control.findSession(named);
  return session ? { scenario: session.scenario, session: session.sessionName } : { scenario: engine.control.scenario };
}

/** Opens the shared store `options.store` names, or none. */
async function openStore(context: { options: MockServerOptions; contract: string }): Promise<SharedState | undefined> {
  const { options } = context;
  if (options.sharedState) {
    if (options.store !== undefined) throw new TypeError('startMockServer: give either store or sharedState, not both');
    return options.sharedState;
  }
  if (options.store === undefined) return undefined;
  if (options.engine) throw new TypeError('startMockServer: give either engine or store, not both (an engine has its own stores)');
  const store = typeof options.store === 'string' ? { url: options.store } : options.store;
  if (!isRedisUrl(store.url)) throw new TypeError('startMockServer: store must be a redis:// or rediss:// URL');
  // Loaded only here: a mock in memory never loads the Redis client.
  const { openSharedState } = await import('./redis/shared-state.js');
  return openSharedState({
    ...store,
    ...(options.engineOptions?.limits ? { limits: options.engineOptions.limits } : {}),
    ...(options.engineOptions?.journalCapacity ? { journalCapacity: options.engineOptions.journalCapacity } : {}),
    ...(options.engineOptions?.clock ? { clock: options.engineOptions.clock } : {}),
    ...(options.log ? { log: options.log } : {}),
    contract: context.contract,
  });
}

export async function startMockServer(options: MockServerOptions = {}): Promise<RunningMockServer> {
  // A document's patterns are compiled before the port opens: one RE2 refuses fails the start.
  const given = options.spec ?? options.engineOptions?.spec;
  const spec = given === undefined || options.engine ? undefined : await buildEngineContract(given);
  const shared = await openStore({ options, contract: (spec ?? bundledEngineContract).fingerprint });
  try {
    return await serve({ options, shared, spec });
  } catch (error) {
    // Whatever stopped the start (a bad option, an unknown scenario, a port in use), the store's
    // connections must not stay open, reconnecting for ever.
    await shared?.close();
    throw error;
  }
}

/** What every request of one server shares. */
interface Serving {
  readonly engine: MockEngine;
  readonly guard: ControlGuard;
  /** `http://host` or `https://host`, for the Fetch Requests of the control API. */
  readonly origin: string;
  readonly controlToken: string | undefined;
  readonly shared: SharedState | undefined;
  readonly memory: MemoryRelease | undefined;
  /** Sockets whose request was answered while its body was still arriving. */
  readonly draining: Set<Socket>;
  /** Answers not yet sent. */
  readonly inFlight: Set<ServerResponse>;
  readonly log: ((line: string) => void) | undefined;
  readonly discardMs: number;
  /** Set by close(): answers from then on close their connection instead of keeping it alive. */
  closing: boolean;
}

/** Answers one request: the control API, a preflight, or the engine; logged once whatever happens. */
async function handle(serving: Serving, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
  const { engine, guard, origin, controlToken, shared, memory, draining, inFlight, log, discardMs } = serving;
  const started = performance.now();
  const method = incoming.method ?? 'GET';
  const path = (incoming.url ?? '/').split('?')[0] ?? '/';
  let status: number | 'aborted' = 500;
  const control = isControlPath(path);
  /** CORS headers of this answer: the contract's for every origin, the control API's for the listed ones. */
  let cors: Record<string, string> = control ? {} : corsHeaders;
  // A keep-alive connection left open after its answer would hold close() (and the process) to the grace time.
  if (serving.closing) outgoing.shouldKeepAlive = false;
  inFlight.add(outgoing);
  memory?.noteActivity();
  try {
    const preflight = method === 'OPTIONS' && incoming.headers['access-control-request-method'] !== undefined;
    const hostProblem = hostHeaderProblem(incoming);
    if (hostProblem) {
      const answer = errorAnswer(hostProblem);
      status = answer.status;
      outgoing.shouldKeepAlive = false;
      sendAnswer(answer, outgoing, cors);
      return;
    }
    if (control) {
      const verdict = guard.check({ host: incoming.headers.host, origin: incoming.headers.origin });
      if (!verdict.allowed) {
        status = verdict.answer.status;
        sendAnswer(verdict.answer, outgoing);
        return;
      }
      if (preflight) {
        outgoing.writeHead(204, verdict.preflightHeaders).end();
        status = 204;
        return;
      }
      cors = verdict.headers;
    } else if (preflight) {
      outgoing.writeHead(204, preflightHeaders).end();
      status = 204;
      return;
    }
    // The common case without Fetch objects (see engine/call): same answer, far less work.
    const call = engine.answerCall && !control ? toEngineCall(incoming, { tls: origin.startsWith('https:') }) : undefined;
    if (call && engine.answerCall) {
      const answer = await engine.answerCall(call);
      status = incoming.socket?.destroyed ? 'aborted' : answer.status;
      sendAnswer(answer, outgoing, cors);
      return;
    }
    let request: Request;
    try {
      // The engine's Requests carry the origin the client used (a profile's Location `{origin}`, A-3).
      const own = control ? undefined : requestOrigin(incoming, { tls: origin.startsWith('https:') });
      request = toFetchRequest(incoming, { origin: own ?? origin });
    } catch {
      // Fetch refuses TRACE and TRACK outright; the engine still has an answer for them
      // (405 with Allow on a contract path, 404 elsewhere: docs/assumptions.md A-20).
      if (fetchForbiddenMethods.has(method.toUpperCase()) && engine.answerCall) {
        incoming.resume();
        const answer = await engine.answerCall(bodilessCall(incoming, { method, pathname: path }));
        status = answer.status;
        sendAnswer(answer, outgoing, cors);
        return;
      }
      const answer = errorAnswer({ status: 400, code: 'invalid_request', message: 'The request target is not a valid URL.' });
      status = answer.status;
      sendAnswer(answer, outgoing, cors);
      return;
    }
    const response = control
      ? await handleControl(request, {
          engine,
          ...(controlToken === undefined ? {} : { token: controlToken }),
          ...(shared ? { journal: shared.journal, sessionJournal: shared.sessionJournal, sessions: shared.sessionList } : {}),
        })
      : await engine.handle(request);
    if (control && response.status === 200 && method === 'POST' && path === '/__mock/reset') memory?.afterReset();
    // The connection is gone (the client left, or a timeout cut it off with its own 408):
    // nobody will read this answer, so the log says so instead of showing a status never sent.
    status = incoming.socket?.destroyed ? 'aborted' : response.status;
    await sendFetchResponse(response, outgoing, cors);
  } catch (error) {
    status = 500;
    if (!outgoing.headersSent) {
      const message = `The mock server failed while answering: ${String((error as Error)?.message ?? error).slice(0, 300)}`;
      sendAnswer(errorAnswer({ status: 500, code: 'internal_error', message }), outgoing, cors);
    } else {
      outgoing.destroy();
    }
  } finally {
    inFlight.delete(outgoing);
    // Every way of answering (preflight, TRACE, a bad URL, a failure) may answer before the body is in.
    discardRestOfBody(incoming, { limitMs: discardMs, draining });
    log?.(
      formatLine({
        method,
        path,
        status,
        ms: performance.now() - started,
        ...sessionOfLine(engine, incoming.headers['x-mock-session']),
        scrubber: engine.scrubber,
      }),
    );
  }
}

async function serve(context: {
  options: MockServerOptions;
  shared: SharedState | undefined;
  spec: EngineContract | undefined;
}): Promise<RunningMockServer> {
  const { options, shared, spec } = context;
  const engine =
    options.engine ??
    createMockEngine({
      ...(options.log ? { log: options.log } : {}),
      ...options.engineOptions,
      ...(spec === undefined ? {} : { spec }),
      ...(options.profile === undefined ? {} : { profile: options.profile }),
      ...shared?.engineOptions,
    });
  // Adopt the scenario state the other replicas share before answering anyone.
  if (shared && !options.sharedState) await engine.control.synced();
  const closeEngine = options.closeEngine ?? options.engine === undefined;
  const host = options.host ?? '127.0.0.1';
  if (options.controlToken === '') throw new RangeError('startMockServer: controlToken must not be empty (it would let anyone in)');
  const controlToken = controlTokenFor({ host, given: options.controlToken });
  const guard = createControlGuard({
    listeningHost: host,
    origins: options.controlOrigins ?? [],
    tokenInForce: controlToken !== undefined,
  });
  const origin = `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}`;
  const log = options.log;
  const headersTimeout = options.timeouts?.headersMs ?? 10_000;
  const discardMs = options.timeouts?.discardMs ?? 2_000;
  if (!(Number.isFinite(discardMs) && discardMs >= 0)) {
    throw new RangeError(`startMockServer: timeouts.discardMs must be a number of milliseconds ≥ 0, got ${discardMs}`);
  }
  const memoryOption = options.releaseMemoryAfterReset ?? false;
  const memory = memoryOption === false ? undefined : createMemoryRelease(memoryOption === true ? {} : { ...memoryOption });
  const serving: Serving = {
    engine,
    guard,
    origin,
    controlToken,
    shared,
    memory,
    draining: new Set(),
    inFlight: new Set(),
    log,
    discardMs,
    closing: false,
  };
  const { draining, inFlight } = serving;

  const edge = createServerEdge({
    onRequest: (incoming, outgoing) => void handle(serving, incoming, outgoing),
    connectRefusal: connectRefused('mock'),
    timeouts: {
      headersMs: headersTimeout,
      ...(options.timeouts?.requestMs === undefined ? {} : { requestMs: options.timeouts.requestMs }),
      ...(options.timeouts?.bodyMinBytes === undefined ? {} : { bodyMinBytes: options.timeouts.bodyMinBytes }),
      ...(options.timeouts?.keepAliveMs === undefined ? {} : { keepAliveMs: options.timeouts.keepAliveMs }),
    },
    ...(options.tls ? { tls: options.tls } : {}),
    onUnsupportedExpect: (incoming, outgoing) => {
      incoming.resume();
      outgoing.shouldKeepAlive = false;
      sendAnswer(errorAnswer(expectationRefused), outgoing, isControlPath((incoming.url ?? '/').split('?')[0] ?? '/') ? {} : corsHeaders);
      log?.(
        formatLine({
          method: incoming.method ?? 'GET',
          // Without the query, as every other line: it may carry credential parameters.
          path: (incoming.url ?? '/').split('?')[0] ?? '/',
          status: 417,
          ms: 0,
          scenario: engine.control.scenario,
          scrubber: engine.scrubber,
        }),
      );
    },
    answered: (socket) => draining.has(socket),
  });
  const port = await edge.listen({ port: options.port ?? 4010, host });

  return {
    url: `${origin}:${port}`,
    port,
    engine,
    ...(controlToken === undefined ? {} : { controlToken }),
    ...(shared ? { storeCommandsSent: shared.commandsSent } : {}),
    close: ({ graceMs = 5000 } = {}) =>
      new Promise<void>((resolve) => {
        serving.closing = true;
        memory?.close();
        for (const outgoing of inFlight) if (!outgoing.headersSent) outgoing.shouldKeepAlive = false;
        // Requests waiting out a scenario's latency are answered now instead of holding the close
        // (and the process) open. Only an engine this server made, or one it was told to close:
        // closing ends latency for good, and an engine passed in may serve elsewhere too.
        if (closeEngine) engine.close?.();
        const closed = edge.close({ graceMs });
        // Their answers are sent: flush them and close, rather than wait for the rest of a refused body.
        for (const socket of draining) socket.destroySoon();
        // The store last: answers still in flight may need it.
        closed.then(() => (shared ? shared.close() : undefined)).then(resolve, resolve);
      }),
  };
}
