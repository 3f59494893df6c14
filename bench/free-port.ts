/**
 * @module bench/free-port
 * A free loopback port for servers that must be told their port up front (Prism has no
 * "port 0"). Probing leaves a tiny window for another process to take the port; startChild
 * reports a server that never answers, so such a race shows as an error, not a wrong figure.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}
