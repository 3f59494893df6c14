/**
 * The MCP server's URLs (A-45, issue 40): an agent's URL is held to the strict address policy
 * unless the server was started with --allow-loopback / --allow-private, on the address
 * actually connected to; and a --mock-url's user name and password are sent as Authorization,
 * never shown to the agent nor printed on stderr. Loopback listeners only: every refused URL
 * here would reach 127.0.0.1, and each listener counts what reached it.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, expect, it } from 'vitest';
import { runConformance } from '../../src/conformance/index.js';
import { type AddressPolicy, connectGuard, strictAddressPolicy } from '../../src/documents/index.js';
import { createEvidenceMcpServer } from '../../src/mcp/server.js';
import { executablePath } from '../../src/openapi/package-root.js';

const password = 'PASSWORD-9c1e4b7d2a';
const agentPassword = 'AGENTPW-5f0a3e8c71';

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

const servers: Server[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A listener on 127.0.0.1 counting connections and keeping each request's headers. */
async function listener(answer: (headers: IncomingHttpHeaders) => { status: number; body: string } = () => ({ status: 200, body: '{}' })) {
  const requests: IncomingHttpHeaders[] = [];
  let connections = 0;
  const server = createServer((request, response) => {
    requests.push(request.headers);
    const { status, body } = answer(request.headers);
    response.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { port: (server.address() as AddressInfo).port, requests, connections: () => connections };
}

/** An MCP server and an SDK client over the in-memory pair. */
async function agentOn(options: { mockUrl: string; addresses: AddressPolicy }): Promise<Client> {
  const mcp = createEvidenceMcpServer({
    mockUrl: options.mockUrl,
    access: { projectRoot: process.cwd(), anyPath: false, addresses: options.addresses },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'address-agent', version: '1.0.0' });
  await Promise.all([mcp.server.connect(serverSide), client.connect(clientSide)]);
  closers.push(async () => {
    await client.close();
    await mcp.close();
  });
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

it('conformance refuses every spelling of this machine without --allow-loopback, and the listener hears nothing', async () => {
  const target = await listener();
  const privateOnly = await agentOn({ mockUrl: 'http://127.0.0.1:9', addresses: { allowLoopback: false, allowPrivate: true } });
  const strict = await agentOn({ mockUrl: 'http://127.0.0.1:9', addresses: strictAddressPolicy });
  const hosts = ['[::ffff:0:0]', '0.0.0.0', '[::ffff:127.0.0.1]', '127.0.0.2', 'localhost', `bob:${agentPassword}@127.0.0.1`];
  for (const client of [strict, privateOnly])
    for (const host of hosts) {
      const result = await call(client, 'conformance', { baseUrl: `http://${host}:${target.port}/` });
      const text = result.content[0]!.text;
      expect(result.isError, host).toBe(true);
      expect(text, host).toMatch(/baseUrl: .*(loopback|unspecified).*start the server with --allow-loopback/);
      expect(text).not.toContain(agentPassword);
    }
  const diff = await call(strict, 'diff', { old: `http://bob:${agentPassword}@0.0.0.0:${target.port}/a.yaml`, new: 'spec/openapi.yaml' });
  expect(diff.isError).toBe(true);
  expect(diff.content[0]!.text).toMatch(/old: 0\.0\.0\.0 is an unspecified address/);
  expect(diff.content[0]!.text).not.toContain(agentPassword);
  expect(target.connections()).toBe(0);
});

it('the runner itself connects only where the policy allows: no pre-check needed to keep it off this machine', async () => {
  const target = await listener();
  const outcome = await runConformance({
    baseUrl: `http://127.0.0.1:${target.port}`,
    connectGuard: connectGuard(strictAddressPolicy),
    maxRequests: 20,
    timeBudgetMs: 20_000,
  }).then(
    (report) => ({ report, error: undefined }),
    (error: Error) => ({ report: undefined, error }),
  );
  expect(outcome.error?.message ?? JSON.stringify(outcome.report?.notes)).toMatch(/--allow-loopback/);
  expect(target.connections()).toBe(0);
});

it('--mock-url with a password: sent as Basic credentials, never shown in a tool result or error', async () => {
  const mock = await listener((headers) => ({
    status: 400,
    // A mock that echoes what it was sent: the scrubber still takes the password out.
    body: JSON.stringify({ code: 'bad_request', message: `you sent ${headers.authorization} for alice:${password}` }),
  }));
  const client = await agentOn({ mockUrl: `http://alice:${password}@127.0.0.1:${mock.port}`, addresses: strictAddressPolicy });
  const echoed = await call(client, 'list_scenarios', {});
  expect(echoed.isError).toBe(true);
  expect(mock.requests[0]?.authorization).toBe(`Basic ${Buffer.from(`alice:${password}`).toString('base64')}`);
  expect(echoed.content[0]!.text).not.toContain(password);
  const closedPort = mock.port;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  const down = await call(client, 'reset', {});
  expect(down.isError).toBe(true);
  expect(down.content[0]!.text).toContain(`the mock at http://127.0.0.1:${closedPort} did not answer`);
  expect(down.content[0]!.text).not.toMatch(/PASSWORD|alice/);
});

it('mcp --mock-url with a password prints it on no stderr line, in no tool error, nor in a usage refusal', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [executablePath(), 'mcp', '--mock-url', `http://alice:${password}@127.0.0.1:9/`],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    const result = await call(client, 'list_scenarios', {});
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/the mock at http:\/\/127\.0\.0\.1:9 did not answer/);
    expect(result.content[0]!.text).not.toContain(password);
  } finally {
    await client.close();
  }
  expect(stderr).toMatch(/driving the mock at http:\/\/127\.0\.0\.1:9\b/);
  expect(stderr).not.toContain(password);
  const refused = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [executablePath(), 'mcp', '--mock-url', `ftp://alice:${password}@127.0.0.1:9/`]);
    let text = '';
    child.stderr.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    child.stdin.end();
    child.on('close', (code) => resolve({ code, stderr: text }));
  });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toMatch(/--mock-url must be an http\(s\) URL/);
  expect(refused.stderr).not.toContain(password);
}, 30_000);
