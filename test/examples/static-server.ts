/**
 * A small static file server for the built example app: 127.0.0.1, a port the system picks,
 * the content types a service worker registration needs, and a record of every path asked for
 * (so a test can prove API calls never reached the network).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

export interface StaticServer {
  readonly url: string;
  /** Every request path, in order. */
  readonly requested: readonly string[];
  close(): Promise<void>;
}

export async function startStaticServer(options: { root: string; headers?: Readonly<Record<string, string>> }): Promise<StaticServer> {
  const requested: string[] = [];
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://static.local').pathname);
    requested.push(path);
    const file = normalize(join(options.root, path.endsWith('/') ? `${path}index.html` : path));
    if (file !== options.root && !file.startsWith(options.root + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(file);
      response.writeHead(200, {
        'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-store',
        ...options.headers,
      });
      response.end(body);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requested,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
