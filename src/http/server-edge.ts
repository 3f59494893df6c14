/**
 * @module http/server-edge
 * The one node:http server setup, shared by the mock and the proxy: timeouts against slow
 * clients (checked often, not every 30 s; a body is cut for stalling, not for being large on a
 * slow link: docs/assumptions.md A-41), every early answer Node would give bare (malformed
 * HTTP, oversized headers, timeouts, CONNECT) answered with the contract's Error body, listen
 * with its error surfaced, and a close that ends: idle connections at once, the rest after a
 * grace time.
 */
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { createServer as createSecureServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { clientErrorAnswer, type EarlyError, rawErrorResponse } from './early-answers.js';

export interface EdgeTimeouts {
  /** Time for a request's headers. Default 10 s. */
  readonly headersMs?: number;
  /**
   * The window a request body's progress is judged over: a body that brings fewer than
   * `bodyMinBytes` in one window is cut with 408 (as nginx's client_body_timeout is per read,
   * not per body), so the largest valid body arrives over a slow link or on a loaded machine
   * and a client trickling bytes is still cut. Default 10 s.
   */
  readonly requestMs?: number;
  /** What a request body must bring in each `requestMs` window. Default 16 KiB (1.6 kB/s at 10 s). */
  readonly bodyMinBytes?: number;
  /** An idle keep-alive connection is closed after it. Default 5 s. */
  readonly keepAliveMs?: number;
}

export interface ServerEdgeOptions {
  readonly onRequest: (incoming: IncomingMessage, outgoing: ServerResponse) => void;
  /** The answer to CONNECT (Node hands such a socket over for tunnelling; neither server tunnels). */
  readonly connectRefusal: EarlyError;
  readonly timeouts?: EdgeTimeouts;
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Node answers an Expect other than 100-continue with a bare 417 unless this is given. */
  readonly onUnsupportedExpect?: (incoming: IncomingMessage, outgoing: ServerResponse) => void;
  /** A socket that has had its answer while the rest of its body drains: a later error is not answered again. */
  readonly answered?: (socket: Socket) => boolean;
}

export interface ServerEdge {
  readonly server: Server;
  /** Listens; resolves with the port (0 picks a free one), rejects with the listen error (EADDRINUSE). */
  listen(options: { port: number; host: string }): Promise<number>;
  /** Stops accepting, closes idle connections now and the rest after `graceMs`; resolves once all are closed. */
  close(options: { graceMs: number }): Promise<void>;
}

/** How long a refused socket may take to read its Error answer before it is cut. */
const lingerMs = 2000;

/**
 * Writes a last answer and closes the socket, lingering as nginx does: what the client still
 * sends is read and dropped (closing on unread bytes would reset the connection and could lose
 * the answer), and after `lingerMs` the socket is cut whatever the client does (a half-open
 * socket that never closes would otherwise stay open, and hold close()).
 */
function answerAndClose(socket: Duplex, text: string): void {
  const cut = setTimeout(() => socket.destroy(), lingerMs);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
  socket.on('error', () => socket.destroy());
  socket.resume();
  socket.end(text);
}

/** The error Node gives a request it timed out, so a stalled body is answered as Node's timeouts are. */
function requestTimeoutError(): NodeJS.ErrnoException {
  return Object.assign(new Error('the request body stalled'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
}

/**
 * Cuts a request whose body stalls: every `windowMs` until the body is whole, the connection
 * must have brought `minBytes` more (counted on the socket, so however the handler reads). A
 * body the handler has not taken yet (buffered, or paused by it) is the server's wait, not the
 * client's: never cut for it. After an answer (an early 413 whose rest drains), a stall ends
 * the connection without a second answer (`stalled` sees `answered`).
 */
function watchBodyProgress(options: {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  windowMs: number;
  minBytes: number;
  stalled: (socket: Duplex) => void;
}): void {
  const { incoming, outgoing } = options;
  const socket = incoming.socket;
  // No body to wait for (most requests: GETs): no timer on the hot path.
  const declared = incoming.headers['content-length'];
  const hasBody = incoming.headers['transfer-encoding'] !== undefined || (declared !== undefined && declared !== '0');
  if (!hasBody || incoming.complete || !socket) return;
  let seen = socket.bytesRead;
  const check = setInterval(() => {
    if (incoming.complete || socket.destroyed) return stop();
    const now = socket.bytesRead;
    const brought = now - seen;
    seen = now;
    if (brought >= options.minBytes || incoming.readableLength > 0 || incoming.isPaused()) return;
    stop();
    if (outgoing.headersSent) socket.destroy();
    else options.stalled(socket);
  }, options.windowMs);
  check.unref();
  const stop = () => clearInterval(check);
  incoming.once('end', stop);
  incoming.once('close', stop);
}

export function createServerEdge(options: ServerEdgeOptions): ServerEdge {
  const headersTimeout = options.timeouts?.headersMs ?? 10_000;
  const progress = { windowMs: options.timeouts?.requestMs ?? 10_000, minBytes: options.timeouts?.bodyMinBytes ?? 16 * 1024 };
  const serverOptions: ServerOptions = {
    headersTimeout,
    // Node's requestTimeout is a deadline for the whole request, which cuts a large body on a
    // slow link as readily as a stalled one: the body's progress is watched instead (below).
    requestTimeout: 0,
    keepAliveTimeout: options.timeouts?.keepAliveMs ?? 5_000,
    // Node checks the headers timeout only every connectionsCheckingInterval (30 s by default),
    // which would let a slow client hold a connection far past its limit.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    // Node's own refusal of a request without Host is a bare 400; the handlers answer it with an Error body.
    requireHostHeader: false,
  };
  const refuse = (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || options.answered?.(socket as Socket)) return socket.destroy();
    answerAndClose(socket, rawErrorResponse(clientErrorAnswer(error)));
  };
  const onRequest = (incoming: IncomingMessage, outgoing: ServerResponse) => {
    watchBodyProgress({ incoming, outgoing, ...progress, stalled: (socket) => refuse(requestTimeoutError(), socket) });
    options.onRequest(incoming, outgoing);
  };
  // An https.Server is a tls.Server whose requests and events are http.Server's.
  const server: Server = options.tls
    ? (createSecureServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key }, onRequest) as unknown as Server)
    : createServer(serverOptions, onRequest);
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    // Node hands a CONNECT socket over whole: nothing else closes it, and close() would wait on it.
    answerAndClose(socket, rawErrorResponse(options.connectRefusal));
  });
  if (options.onUnsupportedExpect) server.on('checkExpectation', options.onUnsupportedExpect);
  server.on('clientError', refuse);

  return {
    server,
    listen: ({ port, host }) =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      }),
    close: ({ graceMs }) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
