/**
 * A fault-zoo server: a node:http server on 127.0.0.1 (port 0) whose answers come from a
 * fault's handler, which usually asks a fresh mock engine and then breaks one rule in its
 * answer. Kept separate from src/server so the zoo depends only on the engine's handle().
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockEngine, type MockEngine } from '../../../src/engine/index.js';

export type FaultHandler = (request: Request, engine: MockEngine) => Promise<Response>;

export interface RunningFaultServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startFaultServer(handler: FaultHandler): Promise<RunningFaultServer> {
  const engine = createMockEngine({ seed: 7 });
  const server = createServer(async (incoming, outgoing) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (let index = 0; index < incoming.rawHeaders.length; index += 2)
        headers.append(incoming.rawHeaders[index]!, incoming.rawHeaders[index + 1]!);
      const method = incoming.method ?? 'GET';
      const request = new Request(`http://127.0.0.1${incoming.url ?? '/'}`, {
        method,
        headers,
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: Buffer.concat(chunks) }),
      });
      const response = await handler(request, engine);
      const responseHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        responseHeaders[name] = value;
      });
      outgoing.writeHead(response.status, responseHeaders);
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    } catch (error) {
      outgoing.writeHead(500, { 'content-type': 'application/json' });
      outgoing.end(JSON.stringify({ code: 'internal_error', message: `fault server: ${(error as Error).message}` }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // A fault that never answers leaves requests open: cut them, then stop.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
