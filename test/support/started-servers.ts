/**
 * Mock servers for a test file: each started on 127.0.0.1, port 0, and closed after its test.
 */
import { afterEach } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';

/** Registers the closing hook and returns `start`, which starts a server closed after the test. */
export function mockServersClosedAfterEach(): (options?: Parameters<typeof startMockServer>[0]) => Promise<RunningMockServer> {
  const running: RunningMockServer[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close({ graceMs: 100 })));
  });
  return async (options = {}) => {
    const server = await startMockServer({ port: 0, host: '127.0.0.1', ...options });
    running.push(server);
    return server;
  };
}
