/**
 * A target on 127.0.0.1 that counts what reaches it, for tests of a run that must stop: each
 * request is counted as its headers arrive, a test awaits the Nth one (an event, never a sleep)
 * and acts inside that very event, answers from a chosen request on can be held (never sent, as
 * a server that went silent), and a test can await the moment every connection to it has closed.
 * Its answers say nothing of the contract: a runner judges them and goes on sending.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface CountingTargetOptions {
  /** From this request on (1-based), answers are held until the target closes. Default: none held. */
  readonly holdFrom?: number;
  /** Each answer not held; default 200 with `{}`. */
  readonly answer?: (request: IncomingMessage, count: number) => { status: number; headers?: Record<string, string>; body?: string };
}

export interface CountingTarget {
  readonly url: string;
  /** Requests received so far. */
  readonly requests: number;
  /** Connections accepted so far. */
  readonly connections: number;
  /** Connections open now. */
  readonly open: number;
  /**
   * Resolves when the `count`th request has arrived; `then` runs inside that request's own
   * event, before any later request can be counted.
   */
  nthRequest(count: number, then?: () => void): Promise<void>;
  /** Resolves once no connection to the target is open. */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

export async function startCountingTarget(options: CountingTargetOptions = {}): Promise<CountingTarget> {
  let requests = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const waiting: { count: number; arrived: () => void }[] = [];
  const whenClosed: (() => void)[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    requests += 1;
    const count = requests;
    for (const wait of waiting.filter((candidate) => candidate.count === count)) wait.arrived();
    if (options.holdFrom !== undefined && count >= options.holdFrom) {
      held.push(response);
      request.resume();
      return;
    }
    const answer = options.answer?.(request, count) ?? { status: 200, body: '{}' };
    request.resume();
    request.on('end', () => {
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body ?? '');
    });
  });
  server.on('connection', (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const done of whenClosed.splice(0)) done();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    get connections() {
      return connections;
    },
    get open() {
      return sockets.size;
    },
    nthRequest(count, then = () => {}) {
      if (requests >= count) throw new Error(`the target has already received ${requests} requests`);
      return new Promise((resolve) => {
        waiting.push({
          count,
          arrived: () => {
            then();
            resolve();
          },
        });
      });
    },
    allClosed() {
      if (sockets.size === 0) return Promise.resolve();
      return new Promise((resolve) => whenClosed.push(resolve));
    },
    async close() {
      for (const response of held) response.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
