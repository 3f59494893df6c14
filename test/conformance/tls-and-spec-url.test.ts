/**
 * --ca, --insecure and a --spec URL (issue 12 point 4): an https target with a self-signed
 * certificate (made with openssl for the test) is refused by default, reached with --ca or
 * --insecure, and the spec can be read from an http URL.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningFaultServer, startFaultServer } from '../fixtures/fault-zoo/fault-server.js';
import { cleanHandler } from '../fixtures/fault-zoo/faults.js';
import { runMain } from '../support/run-main.js';
import { makeTestCertificate } from '../support/test-certificate.js';

const run = runMain;

const folder = mkdtempSync(join(tmpdir(), 'eh-tls-'));
const certificate = makeTestCertificate();
const certFile = certificate.certFile;
let secure: RunningFaultServer;
let specServer: Server;
let specUrl: string;
const quick = ['--seed', '3', '--quiet', '--checks', 'status_code_documented,idempotency_conflict', '--max-examples', '2'];

beforeAll(async () => {
  secure = await startFaultServer(cleanHandler(), { tls: { key: certificate.key, cert: certificate.cert } });
  const spec = readFileSync('spec/openapi.yaml', 'utf8');
  specServer = createServer((request, response) => {
    if (request.url === '/openapi.yaml') response.writeHead(200, { 'content-type': 'application/yaml' }).end(spec);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => specServer.listen(0, '127.0.0.1', resolve));
  specUrl = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  certificate.remove();
  await secure.close();
  await new Promise((resolve) => specServer.close(resolve));
});

it('refuses an https target whose certificate no trusted CA signed, saying so (exit 2)', async () => {
  expect(secure.url).toMatch(/^https:/);
  const result = await run('conformance', '--base-url', secure.url, ...quick);
  expect(result.code, result.stdout + result.stderr).toBe(2);
  expect(result.stderr).toMatch(/unreachable: .*certificate/i);
});

it('--ca FILE trusts the server certificate: the run passes', async () => {
  const result = await run('conformance', '--base-url', secure.url, '--ca', certFile, ...quick);
  expect(result.code, result.stdout + result.stderr).toBe(0);
});

it('--insecure reaches it without checking the certificate', async () => {
  const result = await run('conformance', '--base-url', secure.url, '--insecure', ...quick);
  expect(result.code, result.stdout + result.stderr).toBe(0);
});

it('--ca refuses a file with no certificate, and with --insecure', async () => {
  const notPem = join(folder, 'not.pem');
  writeFileSync(notPem, 'hello');
  const bad = await run('conformance', '--base-url', secure.url, '--ca', notPem);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('no PEM certificate in it');
  const both = await run('conformance', '--base-url', secure.url, '--ca', certFile, '--insecure');
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('give only one of them');
});

it('--spec reads the document from an http URL, and says when the URL gives none', async () => {
  const json = join(folder, 'report.json');
  const result = await run(
    'conformance',
    '--base-url',
    secure.url,
    '--insecure',
    '--spec',
    `${specUrl}/openapi.yaml`,
    ...quick,
    '--report',
    `json=${json}`,
  );
  expect(result.code, result.stdout + result.stderr).toBe(0);
  expect(JSON.parse(readFileSync(json, 'utf8')).spec).toBe(`${specUrl}/openapi.yaml`);
  const missing = await run('conformance', '--base-url', secure.url, '--insecure', '--spec', `${specUrl}/nothing.yaml`, ...quick);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain(`${specUrl}/nothing.yaml`);
});
