/**
 * Plain node:http servers for a test file, each on 127.0.0.1 port 0 and closed (its connections
 * first) after its test: the stand-in targets of the runner's transport tests, in the behaviour
 * project and in the slow one alike.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/**
 * Registers the closing hook and returns `serve`, which starts a server and gives its base URL;
 * `setup` sees the server before it listens (to count its connections, say).
 */
export function loopbackServersClosedAfterEach(): (handler: RequestListener, setup?: (server: Server) => void) => Promise<string> {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return async (handler, setup) => {
    const server = createServer(handler);
    servers.push(server);
    setup?.(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
}
