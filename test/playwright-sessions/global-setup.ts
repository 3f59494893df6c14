/**
 * Starts the one mock every worker shares, and a page server of another origin (the app under
 * test, as `localhost:3000` beside a mock on `:4010` would be), each on a free loopback port,
 * and hands their addresses to the workers through the environment (Playwright starts the
 * workers after the global setup).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startMockServer } from '../../src/server/index.js';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const mock = await startMockServer({ port: 0, host: '127.0.0.1' });
  const app = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  process.env.EVIDENCE_MOCK_URL = mock.url;
  process.env.EVIDENCE_APP_URL = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
  return async () => {
    await mock.close({ graceMs: 100 });
    await new Promise((resolve) => app.close(resolve));
  };
}
