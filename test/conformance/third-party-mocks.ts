/**
 * Third-party mocks of the contract as acceptance targets for the runner: Prism 5 (installed,
 * prism-support.ts), Mockoon's CLI and an openapi-backend mock server. The last two are not
 * dependencies of this project; they are found in node_modules, or in the node_modules folder
 * named by EH_THIRD_PARTY_MODULES (e.g. after `npm install --prefix /tmp/tp @mockoon/cli@9.9.0
 * openapi-backend@5.20.1`), and their tests are skipped, saying why, where neither has them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { bundledSpecPath, packageRoot } from '../../src/openapi/package-root.js';
import { freePort } from './prism-support.js';

export interface RunningThirdParty {
  readonly url: string;
  stop(): Promise<void>;
}

/** The folder of an installed package, from this project's node_modules or EH_THIRD_PARTY_MODULES. */
export function thirdPartyPackage(name: string): string | undefined {
  const roots = [join(packageRoot(), 'node_modules'), ...(process.env.EH_THIRD_PARTY_MODULES ? [process.env.EH_THIRD_PARTY_MODULES] : [])];
  return roots.map((root) => join(root, name)).find((folder) => existsSync(join(folder, 'package.json')));
}

/** `mockoon-cli start --data spec/openapi.yaml` (Mockoon imports the OpenAPI document itself). */
export async function startMockoon(folder: string): Promise<RunningThirdParty> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(folder, 'bin', 'run.js'),
      'start',
      '--data',
      bundledSpecPath(),
      '--port',
      String(port),
      '--hostname',
      '127.0.0.1',
      '--disable-log-to-file',
      '--disable-admin-api',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => (output += String(chunk)));
  child.stderr?.on('data', (chunk) => (output += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 30_000;
  while (!/Server started on port/.test(output)) {
    if (child.exitCode !== null) throw new Error(`mockoon exited early:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`mockoon did not start within 30 s:\n${output}`);
    }
    // real-time: a child's start polled, bounded by the caller's hang bound, not by a margin.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      // real-time: a child that ignores SIGTERM is killed after 5 s; the outcome is the same.
      const timer = setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * A mock server built on openapi-backend the way its README shows: request validation, and
 * `mockResponseForOperation` (the documented examples) for every operation.
 */
export async function startOpenapiBackend(folder: string): Promise<RunningThirdParty> {
  const manifest = (await import(pathToFileURL(join(folder, 'package.json')).href, { with: { type: 'json' } })).default as { main: string };
  const module = await import(pathToFileURL(join(folder, manifest.main)).href);
  const OpenAPIBackend = module.OpenAPIBackend ?? module.default?.OpenAPIBackend ?? module.default;
  // Quick mode, with the document already parsed: otherwise openapi-backend validates it against
  // the OpenAPI 3.0 schema, which a 3.1 document fails, and then routes nothing.
  const api = new OpenAPIBackend({ definition: parse(readFileSync(bundledSpecPath(), 'utf8')), quick: true });
  api.register({
    notFound: () => [404, { code: 'route_not_found', message: 'Not found.' }],
    methodNotAllowed: () => [405, { code: 'method_not_allowed', message: 'Method not allowed.' }],
    validationFail: (context: { validation: { errors: unknown } }) => [
      400,
      { code: 'invalid_request', message: JSON.stringify(context.validation.errors).slice(0, 1000) },
    ],
    notImplemented: (context: { api: any; operation: { operationId: string } }) => {
      const { status, mock } = context.api.mockResponseForOperation(context.operation.operationId);
      return [status, mock];
    },
  });
  await api.init();
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' }).end('{"code":"invalid_json","message":"The body is not JSON."}');
      return;
    }
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const [status, answer] = await api.handleRequest({
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers as Record<string, string>,
      body,
    });
    response.writeHead(status, { 'content-type': 'application/json' }).end(answer === undefined ? '' : JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
