/**
 * A-7.precedence per operation (docs/profiles.md, "Methods, strictness and order"): a stand-in
 * server (the bundled mock behind a loopback proxy) that judges a verifyReport body's JSON before
 * its media type, and createEvaluation's as the mock does, is learnt by `conformance
 * --write-profile` as the entry's order plus `operations.verifyReport`; `mock --profile` answers
 * both operations like it; `conformance --profile` passes both, no failed check.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readProfileFile } from '../../src/profile/load.js';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';
import { evaluationRequest } from '../support/fixtures.js';
import { runMain } from '../support/run-main.js';

const folder = mkdtempSync(join(tmpdir(), 'eh-precedence-op-'));
const profileFile = join(folder, 'p.yaml');
const callers = ['--header', 'Authorization: Bearer alice-token-5120', '--second-caller-header', 'Authorization: Bearer bob-token-5121'];
const run = (url: string, ...more: string[]) =>
  runMain('conformance', '--base-url', url, ...callers, '--seed', '5', '--replay-wait', '0', '--quiet', ...more);

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/** The bundled mock, except that verifyReport judges its body's JSON before its media type. */
async function startStandIn(inner: RunningMockServer): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(inner.url);
  const server: Server = createServer(async (incoming, response) => {
    const body = await readAll(incoming);
    const path = incoming.url ?? '/';
    const json = (incoming.headers['content-type'] ?? '').toLowerCase().startsWith('application/json');
    if (incoming.method === 'POST' && path === '/v0/verifications' && !json) {
      let parsed = true;
      try {
        JSON.parse(body.toString('utf8'));
      } catch {
        parsed = false;
      }
      if (!parsed) {
        const text = JSON.stringify({ code: 'invalid_json', message: 'The body is not JSON.' });
        response.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        return response.end(text);
      }
    }
    const headers = { ...incoming.headers, host: target.host };
    const forwarded = httpRequest({ host: target.hostname, port: target.port, method: incoming.method, path, headers }, async (answer) => {
      const text = await readAll(answer);
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(answer.headers))
        if (value !== undefined && name !== 'connection' && name !== 'keep-alive' && name !== 'transfer-encoding') out[name] = value;
      out['content-length'] = String(text.length);
      response.writeHead(answer.statusCode ?? 500, out);
      response.end(text);
    });
    forwarded.on('error', () => response.destroy());
    forwarded.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let inner: RunningMockServer;
let standIn: { url: string; close(): Promise<void> };
let mock: RunningMockServer | undefined;
let learnt: Awaited<ReturnType<typeof run>>;

beforeAll(async () => {
  inner = await startMockServer({ port: 0, host: '127.0.0.1' });
  standIn = await startStandIn(inner);
  learnt = await run(standIn.url, '--write-profile', profileFile);
}, 180_000);
afterAll(async () => {
  await standIn.close();
  await inner.close({ graceMs: 100 });
  await mock?.close({ graceMs: 100 });
});

it('learns verifyReport’s own order beside the entry’s, with what was seen', () => {
  expect(learnt.code, learnt.stdout + learnt.stderr).toBe(0);
  const text = readFileSync(profileFile, 'utf8').replace(/\n *# {3}/g, ' ');
  expect(text).toMatch(
    /precedence: \{order: \[media-type, body-too-large, malformed-json, not-an-object, over-maximum, invalid-request, missing-key\], operations: \{verifyReport: \{order: \[malformed-json, media-type, body-too-large, not-an-object, over-maximum, invalid-request, missing-key\]\}\}\}/,
  );
  expect(text).toMatch(/# verifyReport: malformed-json judged before media-type \(e\.g\. POST \/v0\/verifications/);
});

/** A request with a text/plain body that is not JSON, on each operation: `status code`. */
async function answers(base: string): Promise<string[]> {
  const seen: string[] = [];
  const headers = { authorization: 'Bearer alice-token-5120', 'content-type': 'text/plain' };
  for (const [path, body] of [
    ['/v0/evaluations', JSON.stringify(evaluationRequest()).slice(0, -1)],
    ['/v0/verifications', '{"artifact":'],
  ] as const) {
    const response = await fetch(`${base}${path}`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'k-1' }, body });
    seen.push(`${path}: ${response.status} ${((await response.json()) as { code: string }).code}`);
  }
  return seen;
}

it('serves each operation’s order: the profiled mock answers like the stand-in', async () => {
  mock = await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  const fromStandIn = await answers(standIn.url);
  expect(fromStandIn).toEqual(['/v0/evaluations: 415 unsupported_media_type', '/v0/verifications: 400 invalid_json']);
  expect(await answers(mock.url)).toEqual(fromStandIn);
  expect(await answers(inner.url)).not.toEqual(fromStandIn);
}, 30_000);

it('holds the stand-in and the profiled mock to the profile: exit 0, no failed check', async () => {
  mock ??= await startMockServer({ port: 0, host: '127.0.0.1', profile: await readProfileFile(profileFile) });
  for (const url of [standIn.url, mock.url]) {
    const held = await run(url, '--profile', profileFile);
    expect(held.code, held.stdout).toBe(0);
    expect(held.stdout).not.toMatch(/\bFAIL\b/);
    expect(held.stdout).toMatch(/profile:A-7\.precedence\s+required\s+pass/);
  }
}, 240_000);
