/**
 * The mock as a Pact provider: Pact's own verifier checks a pact the mock wrote against a fresh
 * mock (provider states set up through POST /__mock/provider-states), and fails it against a
 * server that breaks the contract.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Verifier } from '@pact-foundation/pact';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { runClientFlow } from './client-flow.js';

let folder: string;
let pactFile: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'eh-pact-'));
  const recording = await startMockServer({ port: 0, host: '127.0.0.1' });
  try {
    await runClientFlow({ baseUrl: recording.url });
    pactFile = join(folder, 'consumer-provider.json');
    await writeFile(pactFile, JSON.stringify(recording.engine.control.pact({ consumer: 'web', provider: 'evidence' })));
  } finally {
    await recording.close({ graceMs: 100 });
  }
});
afterAll(() => rm(folder, { recursive: true, force: true }));

function verify(baseUrl: string, statesUrl: string): Promise<unknown> {
  return new Verifier({
    providerBaseUrl: baseUrl,
    pactUrls: [pactFile],
    providerStatesSetupUrl: statesUrl,
    logLevel: 'error',
  }).verifyProvider();
}

it('verifies against a fresh mock, provider states and all', async () => {
  const provider: RunningMockServer = await startMockServer({ port: 0, host: '127.0.0.1' });
  try {
    await expect(verify(provider.url, `${provider.url}/__mock/provider-states`)).resolves.toBeDefined();
  } finally {
    await provider.close({ graceMs: 100 });
  }
});

it.each([
  ['a create answered 200', { status: 200, body: { jobId: 'j-1', status: 'QUEUED' } }],
  ['a create answered 202 with a status the contract lacks and no jobId', { status: 202, body: { id: 'j-1', status: 'DONE' } }],
])('fails against a server that breaks the contract: %s', async (_name, wrong) => {
  const provider = await startMockServer({ port: 0, host: '127.0.0.1' });
  // Everything is passed to the mock but createEvaluation, which is answered wrongly.
  const faulty: Server = createServer(async (request, response) => {
    if (request.method === 'POST' && request.url === '/v0/evaluations') {
      request.resume();
      response.writeHead(wrong.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(wrong.body));
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const answer = await fetch(`${provider.url}${request.url}`, {
      method: request.method ?? 'GET',
      headers: Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => name !== 'host' && name !== 'content-length'),
      ) as Record<string, string>,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => faulty.listen(0, '127.0.0.1', resolve));
  const faultyUrl = `http://127.0.0.1:${(faulty.address() as AddressInfo).port}`;
  try {
    const failed = await verify(faultyUrl, `${provider.url}/__mock/provider-states`).then(
      () => undefined,
      (error: Error) => error,
    );
    // The verifier names the interactions it failed: the creates, and nothing else.
    expect(failed?.message).toMatch(/createEvaluation: POST answered 202/);
    expect(failed?.message).not.toMatch(/"interaction":"[^"]*getJob/);
  } finally {
    await new Promise((resolve) => faulty.close(resolve));
    await provider.close({ graceMs: 100 });
  }
});
