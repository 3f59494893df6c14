/**
 * A conformance run started by the MCP `conformance` tool stops when its caller goes
 * (docs/reliability.md, MCP): on the client's cancel (notifications/cancelled), when the client
 * closes the connection or stdin, and on SIGTERM to the server. A counting target on 127.0.0.1
 * says what reached it: every wait is one of its events or the server's own end, and the
 * assertion is on requests, never on time. At most the requests already on their way when the
 * caller went may still arrive: the runner's connections to one origin, max(4, concurrency 5).
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, it } from 'vitest';
import { createEvidenceMcpServer, type EvidenceMcp } from '../../src/mcp/server.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { type CountingTarget, startCountingTarget } from '../support/counting-target.js';
import { testTimeout } from '../support/time-limits.js';

const inFlightAtMost = 5;
/** The control tools' mock: never called here (the conformance tool talks to its target only). */
const unusedMockUrl = 'http://127.0.0.1:9';

const spawnCli = cliChildrenKilledAfterEach();
const closing: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close().catch(() => undefined);
});

async function target(options: Parameters<typeof startCountingTarget>[0] = {}): Promise<CountingTarget> {
  const started = await startCountingTarget(options);
  closing.push(() => started.close());
  return started;
}

async function inMemory(): Promise<{ mcp: EvidenceMcp; client: Client }> {
  const mcp = createEvidenceMcpServer({
    mockUrl: unusedMockUrl,
    access: { projectRoot: process.cwd(), anyPath: false, addresses: { allowLoopback: true, allowPrivate: false } },
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'cancel-test', version: '1.0.0' });
  await Promise.all([mcp.server.connect(serverSide), client.connect(clientSide)]);
  closing.push(
    () => mcp.close(),
    () => client.close(),
  );
  return { mcp, client };
}

/** The SDK client's side of a child's stdio, leaving the child's stdin and life to the test. */
class ChildStdio implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {}

  async start(): Promise<void> {
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (let message = this.buffer.readMessage(); message; message = this.buffer.readMessage()) this.onmessage?.(message);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.child.stdin.writable) this.child.stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.onclose?.();
  }
}

const conformanceCall = (baseUrl: string) => ({ name: 'conformance', arguments: { baseUrl, seed: 7 } });

it("stops the run on the client's cancel: nothing new reaches the target", async () => {
  const server = await target();
  const { mcp, client } = await inMemory();
  const cancel = new AbortController();
  const cancelled = server.nthRequest(12, () => cancel.abort('the agent gave up'));
  const call = client.callTool(conformanceCall(server.url), undefined, { signal: cancel.signal });
  await expect(call).rejects.toThrow(/gave up/);
  await cancelled;
  await mcp.settled();
  const atEnd = server.requests;
  expect(atEnd - 12).toBeLessThanOrEqual(inFlightAtMost);
  // Once the run's connections are gone, nothing of it can arrive; the server still answers.
  await server.allClosed();
  const connections = server.connections;
  await client.ping();
  expect(server.requests - 12).toBeLessThanOrEqual(inFlightAtMost);
  expect(server.connections).toBe(connections);
});

it('stops the run when the client closes the connection', async () => {
  const server = await target();
  const { mcp, client } = await inMemory();
  const closed = server.nthRequest(12, () => void client.close());
  const call = client.callTool(conformanceCall(server.url)).catch((error: Error) => error);
  await closed;
  expect(await call).toBeInstanceOf(Error);
  await mcp.settled();
  await server.allClosed();
  expect(server.requests - 12).toBeLessThanOrEqual(inFlightAtMost);
});

it('stops every run when the server is closed, and close() waits for them', async () => {
  const server = await target({ holdFrom: 3 });
  const { mcp, client } = await inMemory();
  const third = server.nthRequest(3);
  const call = client.callTool(conformanceCall(server.url)).catch((error: Error) => error);
  await third;
  await mcp.close('SIGTERM');
  // The held request was cut: the target's connections close without an answer from it.
  await server.allClosed();
  expect(server.requests - 3).toBeLessThanOrEqual(inFlightAtMost);
  expect(await call).toBeInstanceOf(Error);
});

it.each([
  ['its stdin closes', (child: ChildProcessWithoutNullStreams) => child.stdin.end()],
  ['it gets SIGTERM', (child: ChildProcessWithoutNullStreams) => child.kill('SIGTERM')],
  ['it gets SIGINT', (child: ChildProcessWithoutNullStreams) => child.kill('SIGINT')],
])(
  'the stdio server stops the run and exits 0 when %s',
  async (_event, stop) => {
    // The target answers nothing from the 4th request on: only the stop can end the run (its --timeout is 10 s a request).
    const server = await target({ holdFrom: 4 });
    const cli = spawnCli(['mcp', '--mock-url', unusedMockUrl, '--allow-loopback']);
    const client = new Client({ name: 'stdio-cancel-test', version: '1.0.0' });
    await client.connect(new ChildStdio(cli.child));
    const fourth = server.nthRequest(4, () => stop(cli.child));
    const call = client.callTool(conformanceCall(server.url)).catch((error: Error) => error);
    await fourth;
    expect(await cli.exit, cli.stderr()).toBe(0);
    await server.allClosed();
    expect(server.requests - 4).toBeLessThanOrEqual(inFlightAtMost);
    expect(cli.stderr()).not.toMatch(/\n\s+at /);
    // The call never had an answer: the client's own close ends it as a closed connection.
    await client.close();
    expect(await call).toBeInstanceOf(Error);
  },
  testTimeout({ processes: 2 }),
);

it("stops a diff's document fetch on the client's cancel: the held request's connection is closed", async () => {
  // The document server holds its first answer: only the cancel can end the call.
  const server = await target({ holdFrom: 1 });
  const { mcp, client } = await inMemory();
  const cancel = new AbortController();
  const asked = server.nthRequest(1, () => cancel.abort('the agent gave up'));
  const call = client.callTool({ name: 'diff', arguments: { old: `${server.url}/old.yaml`, new: 'spec/openapi.yaml' } }, undefined, {
    signal: cancel.signal,
  });
  await asked;
  await expect(call).rejects.toThrow(/gave up/);
  // The client closed the held request's socket (its 'close' event), and the call is over.
  await server.allClosed();
  await mcp.settled();
  expect(server.requests).toBe(1);
});

it("stops the conformance tool's spec fetch when the server is closed", async () => {
  const specServer = await target({ holdFrom: 1 });
  const { mcp, client } = await inMemory();
  const asked = specServer.nthRequest(1);
  const call = client
    .callTool({ name: 'conformance', arguments: { baseUrl: unusedMockUrl, spec: `${specServer.url}/openapi.yaml` } })
    .catch((error: Error) => error);
  await asked;
  await mcp.close('SIGTERM');
  await specServer.allClosed();
  expect(specServer.requests).toBe(1);
  // The call ended: with an error answer, or with the connection's close under it.
  const result = await call;
  expect(result instanceof Error || (result as { isError?: boolean }).isError === true).toBe(true);
});
