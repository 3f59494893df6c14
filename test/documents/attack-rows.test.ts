/**
 * Issue 32's attack rows in the loader's area, on the built CLI as an attacker tried them: each
 * is refused at start with exit 2 and a message naming why (and the pointer where there is one),
 * never served, never hung; the mock's banner, `spec` and `diff` never print a URL's
 * credentials. The pathological path template is shown answering at once in-process. Needs
 * `npm run build`.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { createMockEngine } from '../../src/engine/index.js';
import { bundledSpecPath, executablePath } from '../../src/openapi/package-root.js';
import { runCli } from '../conformance/cli-process.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';

const makeFifo = fifosReleasedAfterEach();
const folder = mkdtempSync(join(tmpdir(), 'eh-attack-rows-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const bundled = () => parse(readFileSync(bundledSpecPath(), 'utf8')) as Record<string, any>;
let counter = 0;
/** The bundled document with `edit` applied, written as `openapi.yaml` in a fresh folder. */
function hostile(edit: (document: Record<string, any>) => void, extra: Record<string, string> = {}): string {
  counter += 1;
  const dir = join(folder, `case-${counter}`);
  mkdirSync(dir, { recursive: true });
  const document = bundled();
  edit(document);
  writeFileSync(join(dir, 'openapi.yaml'), stringify(document, { aliasDuplicateObjects: false }));
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(dir, name), text);
  return join(dir, 'openapi.yaml');
}

/** An extra operation answering `example` (a $ref, for most rows). */
const withExample = (example: unknown) => (document: Record<string, any>) => {
  document.paths['/v0/extra'] = {
    get: { operationId: 'extra', responses: { '200': { description: 'ok', content: { 'application/json': { example } } } } },
  };
};

const aliasBomb = [
  'l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
  ...Array.from({ length: 8 }, (_, index) => `l${index + 1}: &l${index + 1} [${Array(9).fill(`*l${index}`).join(',')}]`),
].join('\n');

const mock = (file: string) => runCli(['mock', '--port', '0', '--quiet', '--spec', file], { killAfterMs: 60_000 });

it.each([
  ['/proc/self/environ', '/proc/self/environ', /an absolute path is never followed/],
  ['a file:/// URL', 'file:///etc/passwd', /a file: URL is never followed/],
  ['../../ out of the folder', '../../../../etc/passwd', /it leads out of/],
  ['http://0.0.0.0', 'http://0.0.0.0:9/x.yaml', /it is a URL; remote references are followed only with --allow-remote-refs/],
])('mock --spec: an example $ref to %s is refused at start with its pointer (exit 2)', async (_what, ref, reason) => {
  const run = await mock(hostile(withExample({ $ref: ref })));
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('/paths/~1v0~1extra/get/responses/200/content/application~1json/example/$ref');
  expect(run.stderr).toMatch(reason);
  expect(run.stderr).not.toMatch(/root:|PATH=/);
  expect(run.stdout).not.toContain('listening');
});

it('mock --spec: an example whose $refs form a cycle is refused at start, naming the pointer', async () => {
  const file = hostile((document) => {
    withExample({ $ref: '#/components/examples/Loop/value' })(document);
    document.components.examples = { Loop: { value: { again: { $ref: '#/components/examples/Loop/value' } } } };
  });
  const run = await mock(file);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(
    /the example at \/paths\/~1v0~1extra\/get\/responses\/200\/content\/application~1json\/example\/again contains itself/,
  );
});

it('mock --spec: a FIFO or /dev/zero as a $ref in the folder is refused without waiting', async () => {
  const file = hostile(withExample({ $ref: 'pipe.yaml' }));
  makeFifo(join(file, '..', 'pipe.yaml'));
  const run = await mock(file);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/pipe\.yaml .*is a FIFO \(named pipe\), not a regular file/);
  const zero = await mock('/dev/zero');
  expect(zero.code).toBe(2);
  expect(zero.stderr).toMatch(/a character device, not a regular file/);
});

it('mock --spec: a 500,000-value enum and 40,000 properties are refused at start, naming the pointer', async () => {
  const enumFile = hostile((document) => {
    document.components.schemas.EvaluationRequest.properties.operationId = {
      type: 'string',
      enum: Array.from({ length: 500_000 }, (_, index) => `v${index}`),
    };
  });
  const enumRun = await mock(enumFile);
  expect(enumRun.code).toBe(2);
  expect(enumRun.stderr).toMatch(
    /the schema at \/components\/schemas\/EvaluationRequest\/properties\/operationId\/enum: 500000 values; an enum of at most 4096/,
  );
  const propertiesFile = hostile((document) => {
    document.components.schemas.EvaluationRequest.properties.extra = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 40_000 }, (_, index) => [`p${index}`, { type: 'string' }])),
    };
  });
  const propertiesRun = await mock(propertiesFile);
  expect(propertiesRun.code).toBe(2);
  expect(propertiesRun.stderr).toMatch(
    /the schema at \/components\/schemas\/EvaluationRequest\/properties\/extra\/properties: 40000 properties; an object schema of at most 2048/,
  );
}, 120_000);

it("mock --spec: x-max-body-bytes past the mock's own limit is refused at start", async () => {
  const run = await mock(
    hostile((document) => (document.paths['/v0/evaluations'].post.requestBody['x-max-body-bytes'] = 9007199254740991)),
  );
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(
    /createEvaluation\/requestBody\/x-max-body-bytes is 9007199254740991; a document may set at most 16777216 bytes/,
  );
});

it('a 700-byte alias bomb: refused at once by mock --spec, spec --spec, and diff when NEW refers to it', async () => {
  expect(aliasBomb.length).toBeLessThan(800);
  const named = join(folder, 'bomb.yaml');
  writeFileSync(named, `openapi: 3.1.0\n${aliasBomb}\n`);
  for (const run of [await mock(named), await runCli(['spec', '--spec', named], { killAfterMs: 60_000 })]) {
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/its YAML aliases expand beyond what is read/);
  }
  const referring = hostile((document) => (document.components.schemas.Extra = { $ref: 'bomb-part.yaml#/l8' }), {
    'bomb-part.yaml': aliasBomb,
  });
  const diff = await runCli(['diff', bundledSpecPath(), referring], { killAfterMs: 60_000 });
  expect(diff.code).toBe(2);
  expect(diff.stderr).toMatch(/NEW is not a valid OpenAPI 3\.1 document: .*bomb-part\.yaml: refused: its YAML aliases expand beyond/);
}, 120_000);

it("diff: NEW's $ref to a file outside its folder is refused, and the file never read", async () => {
  const secretDir = join(folder, 'secret');
  mkdirSync(secretDir);
  writeFileSync(join(secretDir, 'schema.yaml'), 'type: string\ndescription: SECRET-outside-9c1\n');
  const newer = hostile((document) => (document.components.schemas.Extra = { $ref: '../secret/schema.yaml' }));
  const run = await runCli(['diff', bundledSpecPath(), newer, '--format', 'json'], { killAfterMs: 60_000 });
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(
    /the \$ref at \/components\/schemas\/Extra\/\$ref \('\.\.\/secret\/schema\.yaml'\) is refused: it leads out of/,
  );
  expect(`${run.stdout}${run.stderr}`).not.toContain('SECRET-outside-9c1');
});

it('mock --spec: a 64 MB document is refused before it is read', async () => {
  const big = join(folder, 'big.yaml');
  writeFileSync(big, `openapi: 3.1.0\ndescription: "${'x'.repeat(1024 * 1024)}"\n`.repeat(64));
  const run = await mock(big);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/is 64\.0 MiB; files of at most 16\.0 MiB are read/);
  expect(run.peakRssMb).toBeLessThan(300);
});

it('a path template of twelve expressions in one segment answers a 40-character path at once, and /health with it', async () => {
  const document = bundled();
  document.paths['/{a}{b}{c}{d}{e}{f}{g}{h}{i}{j}{k}{l}!'] = {
    get: { operationId: 'crowded', responses: { '200': { description: 'ok', content: { 'application/json': { example: {} } } } } },
  };
  const engine = createMockEngine({ spec: document });
  const answer = await engine.handle(new Request(`http://mock.test/${'a'.repeat(40)}`));
  expect(answer.status).toBe(404);
  expect((await engine.handle(new Request('http://mock.test/health'))).status).toBe(200);
  expect((await engine.handle(new Request(`http://mock.test/${'a'.repeat(12)}!`))).status).toBe(200);
  await engine.close?.();
});

const servers: Server[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A loopback server answering the bundled document at any path. */
async function documentServer(): Promise<string> {
  const text = readFileSync(bundledSpecPath(), 'utf8');
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/yaml' }).end(text));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it("never prints a document URL's user:password@ or ?token=: mock banner, spec, diff text and JSON", async () => {
  const host = await documentServer();
  const url = `http://alice:pw-Secret-4242@${host}/openapi.yaml?token=tok-Secret-8181&v=2`;
  const leaks = /pw-Secret-4242|tok-Secret-8181|alice/;
  const child = spawn(process.execPath, [executablePath(), 'mock', '--port', '0', '--spec', url], { stdio: 'pipe' });
  children.push(child);
  const banner = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('press Ctrl+C')) resolve(output);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('exit', () => reject(new Error(output)));
  });
  expect(banner).toContain(`contract: http://${host}/openapi.yaml?token=[REDACTED]&v=2`);
  expect(banner).not.toMatch(leaks);
});

it("never prints a document URL's user:password@ or ?token=: spec, diff text and JSON, and their refusals", async () => {
  const host = await documentServer();
  const url = `http://alice:pw-Secret-4242@${host}/openapi.yaml?token=tok-Secret-8181&v=2`;
  const leaks = /pw-Secret-4242|tok-Secret-8181|alice/;
  const spec = await runCli(['spec', '--spec', url], { killAfterMs: 60_000 });
  expect(spec.code).toBe(0);
  expect(spec.stdout).toContain(`read from http://${host}/openapi.yaml?token=[REDACTED]&v=2`);
  expect(spec.stdout).not.toMatch(leaks);
  for (const format of ['text', 'json']) {
    const diff = await runCli(['diff', url, bundledSpecPath(), '--format', format], { killAfterMs: 60_000 });
    expect(diff.code).toBe(0);
    expect(`${diff.stdout}${diff.stderr}`).not.toMatch(leaks);
  }
  const missing = await runCli(['diff', url.replace('openapi.yaml', 'gone/openapi.yaml').replace(host, '127.0.0.1:9'), bundledSpecPath()]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/cannot be fetched \(the connection was refused: nothing listens at 127\.0\.0\.1:9\)/);
  expect(missing.stderr).not.toMatch(leaks);
}, 120_000);

it("never prints a --spec URL's credentials in conformance output or its JSON report", async () => {
  const host = await documentServer();
  const child = spawn(process.execPath, [executablePath(), 'mock', '--port', '0', '--quiet'], { stdio: 'pipe' });
  children.push(child);
  const target = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.on('exit', () => reject(new Error(output)));
  });
  const report = join(folder, 'report.json');
  const url = `http://alice:pw-Secret-4242@${host}/openapi.yaml?token=tok-Secret-8181`;
  const run = await runCli(['conformance', '--base-url', target, '--spec', url, '--max-requests', '5', '--report', `json=${report}`], {
    killAfterMs: 90_000,
  });
  expect(run.code).not.toBe(2);
  const leaks = /pw-Secret-4242|tok-Secret-8181|alice/;
  expect(`${run.stdout}${run.stderr}${readFileSync(report, 'utf8')}`).not.toMatch(leaks);
  expect(JSON.parse(readFileSync(report, 'utf8')).spec).toBe(`http://${host}/openapi.yaml?token=[REDACTED]`);
}, 120_000);
