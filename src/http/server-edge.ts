/**
 * @module http/server-edge
 * The one node:http server setup, shared by the mock and the proxy: timeouts against slow
 * clients (checked often, not every 30 s), every early answer Node would give bare (malformed
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
  /** Time for a whole request. Default 30 s. */
  readonly requestMs?: number;
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

export function createServerEdge(options: ServerEdgeOptions): ServerEdge {
  const headersTimeout = options.timeouts?.headersMs ?? 10_000;
  const requestTimeout = options.timeouts?.requestMs ?? 30_000;
  const serverOptions: ServerOptions = {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: options.timeouts?.keepAliveMs ?? 5_000,
    // Node checks these timeouts only every connectionsCheckingInterval (30 s by default),
    // which would let a slow client hold a connection far past its limit.
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(Math.min(headersTimeout, requestTimeout) / 4))),
    // Node's own refusal of a request without Host is a bare 400; the handlers answer it with an Error body.
    requireHostHeader: false,
  };
  // An https.Server is a tls.Server whose requests and events are http.Server's.
  const server: Server = options.tls
    ? (createSecureServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key }, options.onRequest) as unknown as Server)
    : createServer(serverOptions, options.onRequest);
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    // Node hands a CONNECT socket over whole: nothing else closes it, and close() would wait on it.
    answerAndClose(socket, rawErrorResponse(options.connectRefusal));
  });
  if (options.onUnsupportedExpect) server.on('checkExpectation', options.onUnsupportedExpect);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || options.answered?.(socket as Socket)) return socket.destroy();
    answerAndClose(socket, rawErrorResponse(clientErrorAnswer(error)));
  });

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
