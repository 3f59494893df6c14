/**
 * The one document loader (src/documents, issue 32): what it still reads (the bundled document,
 * the v0.2 variants, split documents, a document by URL with same-origin references) and what it
 * refuses, naming the $ref's pointer and the reason, without opening what it refuses: files
 * outside the named document's folder (a FIFO "read detector" there would hold any reader, and
 * a marker file's text must never come back), FIFOs and devices, URLs (a beacon listener on
 * loopback must receive nothing), alias bombs, oversized files, cyclic examples, and URLs'
 * credentials in any message.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DocumentError, loadDocument, loadOpenApiDocument, refusedAddressReason } from '../../src/documents/index.js';
import { loadBundledDocument } from '../../src/openapi/bundled-document.js';
import { loadContract } from '../../src/openapi/document.js';
import { bundledSpecPath } from '../../src/openapi/package-root.js';
import { contractVersions, writeVersion } from '../fixtures/contract-versions/versions.js';
import { fifosReleasedAfterEach } from '../support/fifo.js';

const makeFifo = fifosReleasedAfterEach();
const marker = 'MARKER-outside-the-folder-7d1e';
let root: string;
let outside: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'eh-loader-'));
  outside = join(root, 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.yaml'), `value: ${marker}\n`);
  makeFifo(join(outside, 'detector.yaml'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A folder holding `openapi.yaml` whose one extra operation answers `example`, plus `files`. */
function documentFolder(options: { example?: unknown; schema?: unknown; files?: Record<string, unknown> }): string {
  const folder = mkdtempSync(join(root, 'doc-'));
  const document = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/thing': {
        get: {
          operationId: 'getThing',
          responses: {
            '200': {
              description: 'ok',
              content: {
                'application/json': {
                  schema: options.schema ?? { type: 'object' },
                  ...(options.example === undefined ? {} : { example: options.example }),
                },
              },
            },
          },
        },
      },
    },
  };
  writeFileSync(join(folder, 'openapi.yaml'), stringify(document));
  for (const [name, content] of Object.entries(options.files ?? {})) {
    mkdirSync(join(folder, name, '..'), { recursive: true });
    writeFileSync(join(folder, name), typeof content === 'string' ? content : stringify(content));
  }
  return join(folder, 'openapi.yaml');
}

async function refusal(promise: Promise<unknown>): Promise<DocumentError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DocumentError);
  return error as DocumentError;
}

it('reads the bundled document and every v0.2 variant as before', async () => {
  const bundled = await loadContract();
  expect(bundled.operations.map((operation) => operation.operationId)).toContain('createEvaluation');
  for (const version of contractVersions) {
    const contract = await loadContract({ source: writeVersion(version) });
    expect(contract.operations.length, version.name).toBeGreaterThan(0);
  }
  const diffed = await loadBundledDocument({ source: bundledSpecPath() });
  expect(diffed.document.paths['/v0/evaluations']).toBeDefined();
});

it('follows relative $refs to files in the same folder and in subfolders', async () => {
  const file = documentFolder({
    schema: { $ref: 'schemas/thing.yaml' },
    example: { $ref: './examples/thing.json' },
    files: {
      'schemas/thing.yaml': { type: 'object', properties: { name: { $ref: '../common.yaml#/Name' } } },
      'common.yaml': { Name: { type: 'string', maxLength: 10 } },
      'examples/thing.json': JSON.stringify({ name: 'ok' }),
    },
  });
  const { document } = await loadOpenApiDocument({ source: file, mode: 'dereference' });
  const media = document.paths['/thing'].get.responses['200'].content['application/json'];
  expect(media.schema.properties.name).toEqual({ type: 'string', maxLength: 10 });
  expect(media.example).toEqual({ name: 'ok' });
  const bundled = await loadBundledDocument({ source: file });
  expect(JSON.stringify(bundled.document)).not.toMatch(/"\$ref":"(?!#)/);
});

it.each([
  ['an absolute path', () => join(outside, 'secret.yaml'), /an absolute path is never followed/],
  ['a file: URL', () => `file://${join(outside, 'secret.yaml')}`, /a file: URL is never followed/],
  ['.. out of the folder', () => '../outside/secret.yaml', /it leads out of .*, the folder of the document named/],
  ['the FIFO read detector, by absolute path', () => join(outside, 'detector.yaml'), /an absolute path is never followed/],
  ['the FIFO read detector, by ..', () => '../outside/detector.yaml', /it leads out of/],
  ['/dev/zero', () => '/dev/zero', /an absolute path is never followed/],
  ['/proc/self/environ', () => '/proc/self/environ', /an absolute path is never followed/],
  ['a URL', () => 'http://127.0.0.1:9/x.yaml', /it is a URL; remote references are followed only with --allow-remote-refs/],
])('refuses an example $ref to %s, naming its pointer, and opens nothing', async (_what, target, reason) => {
  const file = documentFolder({ example: { $ref: target() } });
  const error = await refusal(loadOpenApiDocument({ source: file, mode: 'dereference' }));
  expect(error.problem).toBe('ref-refused');
  expect(error.message).toContain('/paths/~1thing/get/responses/200/content/application~1json/example/$ref');
  expect(error.message).toMatch(reason);
  expect(error.message).not.toContain(marker);
  // The same refusal for the diff's reading (bundled) and for loadContract.
  await expect(loadBundledDocument({ source: file })).rejects.toThrow(reason);
  await expect(loadContract({ source: file })).rejects.toThrow(reason);
});

it('refuses a $ref that leaves the folder from a file the document refers to', async () => {
  const file = documentFolder({ schema: { $ref: 'sub/a.yaml' }, files: { 'sub/a.yaml': { $ref: '../../outside/secret.yaml' } } });
  const error = await refusal(loadOpenApiDocument({ source: file, mode: 'bundle' }));
  expect(error.message).toMatch(/sub\/a\.yaml: the \$ref at \/\$ref \('\.\.\/\.\.\/outside\/secret\.yaml'\) is refused: it leads out of/);
});

it('refuses a symbolic link in the folder that leads out of it, a FIFO and a device in it, without waiting', async () => {
  const file = documentFolder({ example: { $ref: 'linked.yaml' } });
  const folder = join(file, '..');
  symlinkSync(join(outside, 'secret.yaml'), join(folder, 'linked.yaml'));
  const linked = await refusal(loadOpenApiDocument({ source: file, mode: 'dereference' }));
  expect(linked.message).toMatch(/through a symbolic link/);
  expect(linked.message).not.toContain(marker);

  const fifoFile = documentFolder({ example: { $ref: 'pipe.yaml' } });
  makeFifo(join(fifoFile, '..', 'pipe.yaml'));
  const fifo = await refusal(loadOpenApiDocument({ source: fifoFile, mode: 'dereference' }));
  expect(fifo.problem).toBe('not-regular');
  expect(fifo.message).toMatch(/is a FIFO \(named pipe\), not a regular file/);

  const zeroFile = documentFolder({ example: { $ref: 'zero.yaml' } });
  symlinkSync('/dev/zero', join(zeroFile, '..', 'zero.yaml'));
  expect((await refusal(loadOpenApiDocument({ source: zeroFile, mode: 'dereference' }))).message).toMatch(/leads out of/);
});

it('refuses a FIFO, /dev/zero or a folder named as the document itself', async () => {
  const fifo = join(root, 'named-pipe.yaml');
  makeFifo(fifo);
  expect((await refusal(loadOpenApiDocument({ source: fifo, mode: 'dereference' }))).problem).toBe('not-regular');
  expect((await refusal(loadOpenApiDocument({ source: '/dev/zero', mode: 'dereference' }))).message).toMatch(/a character device/);
  expect((await refusal(loadDocument({ source: root, purpose: 'arazzo' }))).message).toMatch(/is a folder/);
});

it('refuses a 64 MB document before reading it, and a 700-byte alias bomb named or referred to', async () => {
  const big = join(root, 'big.yaml');
  writeFileSync(big, '');
  truncateSync(big, 64 * 1024 * 1024);
  const tooLarge = await refusal(loadOpenApiDocument({ source: big, mode: 'dereference' }));
  expect(tooLarge.problem).toBe('too-large');
  expect(tooLarge.message).toMatch(/is 64\.0 MiB; files of at most 16\.0 MiB are read/);

  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    .concat(
      ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].map((name, index, all) => {
        const previous = index === 0 ? 'a' : all[index - 1];
        return `${name}: &${name} [*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous},*${previous}]`;
      }),
    )
    .join('\n');
  expect(bomb.length).toBeLessThan(800);
  const named = join(root, 'bomb.yaml');
  writeFileSync(named, `openapi: 3.1.0\n${bomb}\n`);
  expect((await refusal(loadOpenApiDocument({ source: named, mode: 'dereference' }))).message).toMatch(
    /refused: its YAML aliases expand beyond/,
  );
  const referring = documentFolder({ schema: { $ref: 'bomb.yaml#/i' }, files: { 'bomb.yaml': bomb } });
  const referred = await refusal(loadOpenApiDocument({ source: referring, mode: 'bundle' }));
  expect(referred.message).toMatch(/bomb\.yaml: refused: its YAML aliases expand beyond what is read/);
});

it('refuses an example whose $refs form a cycle, naming its pointer; a recursive schema stays legal', async () => {
  const file = documentFolder({
    schema: { $ref: '#/components/schemas/Node' },
    example: { $ref: '#/components/examples/Loop/value' },
  });
  const text = readFileSync(file, 'utf8');
  writeFileSync(
    file,
    `${text}components:\n  schemas:\n    Node:\n      type: object\n      properties:\n        next:\n          $ref: '#/components/schemas/Node'\n  examples:\n    Loop:\n      value:\n        next:\n          $ref: '#/components/examples/Loop/value'\n`,
  );
  const error = await refusal(loadOpenApiDocument({ source: file, mode: 'dereference' }));
  expect(error.message).toMatch(
    /the example at \/paths\/~1thing\/get\/responses\/200\/content\/application~1json\/example\/next contains itself/,
  );
  const recursive = documentFolder({ schema: { $ref: '#/components/schemas/Node' }, example: { next: { next: {} } } });
  writeFileSync(
    recursive,
    `${readFileSync(recursive, 'utf8')}components:\n  schemas:\n    Node:\n      type: object\n      properties:\n        next:\n          $ref: '#/components/schemas/Node'\n`,
  );
  const { document } = await loadOpenApiDocument({ source: recursive, mode: 'dereference' });
  const schema = document.paths['/thing'].get.responses['200'].content['application/json'].schema;
  expect(schema.properties.next).toBe(schema);
});

/** A server on loopback: `routes` answer by path; every request it gets is counted in `hits`. */
async function serve(routes: (base: string) => Record<string, string>): Promise<{ base: string; hits: string[]; server: Server }> {
  const hits: string[] = [];
  let base = '';
  const server = createServer((request, response) => {
    hits.push(request.url ?? '');
    const body = routes(base)[(request.url ?? '').split('?')[0]!];
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/yaml' }).end(body ?? 'no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
  return { base, hits, server };
}
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const withExample = (example: unknown, schema: unknown = { type: 'object' }) =>
  stringify({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/thing': {
        get: {
          operationId: 'getThing',
          responses: { '200': { description: 'ok', content: { 'application/json': { schema, example } } } },
        },
      },
    },
  });

it('refuses file: and relative $refs in a document read from a URL, and follows same-origin ones with the flag', async () => {
  const fileRefs = await serve(() => ({ '/openapi.yaml': withExample({ $ref: `file://${join(outside, 'secret.yaml')}` }) }));
  const local = await refusal(loadOpenApiDocument({ source: `${fileRefs.base}/openapi.yaml`, mode: 'dereference', allowRemoteRefs: true }));
  expect(local.message).toMatch(/a file: URL is never followed/);
  expect(local.message).not.toContain(marker);

  const split = await serve(() => ({
    '/api/openapi.yaml': withExample({ $ref: 'examples/thing.yaml' }, { $ref: '/schemas/thing.yaml' }),
    '/api/examples/thing.yaml': stringify({ name: 'remote' }),
    '/schemas/thing.yaml': stringify({ type: 'object', properties: { name: { type: 'string' } } }),
  }));
  const source = `${split.base}/api/openapi.yaml`;
  const refused = await refusal(loadOpenApiDocument({ source, mode: 'dereference' }));
  expect(refused.message).toMatch(/the document was read from a URL, so this reference would be fetched from its server/);
  expect(split.hits).toEqual(['/api/openapi.yaml']);
  const { document } = await loadOpenApiDocument({ source, mode: 'dereference', allowRemoteRefs: true });
  const media = document.paths['/thing'].get.responses['200'].content['application/json'];
  expect(media.example).toEqual({ name: 'remote' });
  expect(media.schema.properties.name).toEqual({ type: 'string' });
});

it('never connects a remote $ref to loopback in any spelling, even with --allow-remote-refs: the beacon hears nothing', async () => {
  const beacon = await serve(() => ({ '/x.yaml': stringify({ type: 'object' }) }));
  const port = new URL(beacon.base).port;
  for (const host of [
    '0.0.0.0',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '2130706433',
    '0x7f.1',
    '0177.0.0.1',
    'localhost',
    '[::1]',
    '127.1',
  ]) {
    const file = documentFolder({ schema: { $ref: `http://${host}:${port}/x.yaml` } });
    const error = await refusal(loadOpenApiDocument({ source: file, mode: 'dereference', allowRemoteRefs: true }));
    expect(error.message, host).toMatch(/refused: .*(loopback|private|reserved|resolves to)/);
  }
  expect(beacon.hits).toEqual([]);
});

it('judges addresses, not their spelling', () => {
  for (const address of [
    '127.0.0.1',
    '0.0.0.0',
    '10.1.2.3',
    '169.254.169.254',
    '::1',
    '::',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'fe80::1',
    'fd00::1',
    'ff02::1',
  ])
    expect(refusedAddressReason(address), address).toBeDefined();
  for (const address of ['93.184.215.14', '2606:4700:4700::1111', '::ffff:93.184.215.14'])
    expect(refusedAddressReason(address), address).toBeUndefined();
});

it("never prints a URL's user:password@ or ?token=, in its name or in any refusal", async () => {
  const server = await serve(() => ({ '/openapi.yaml': withExample({ $ref: 'other.yaml' }) }));
  const url = server.base.replace('http://', 'http://alice:hunter2secret@') + '/openapi.yaml?token=tok-9f8e7d6c5b4a&v=1';
  const error = await refusal(loadOpenApiDocument({ source: url, mode: 'dereference' }));
  expect(error.message).not.toMatch(/hunter2secret|tok-9f8e7d6c5b4a|alice/);
  expect(error.message).toContain(`${server.base}/openapi.yaml?token=[REDACTED]&v=1`);
  const missing = await refusal(loadDocument({ source: url.replace('openapi', 'gone'), purpose: 'arazzo' }));
  expect(missing.message).not.toMatch(/hunter2secret|tok-9f8e7d6c5b4a/);
  expect(missing.message).toMatch(/answered 404/);
});

it('gives up on a server that never finishes within the time budget', async () => {
  const server = createServer((_request, response) => response.writeHead(200).write('openapi: 3.1.0\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.yaml`;
  // real-time: the server never finishes, so only the budget ends the wait; a slow machine only makes it later.
  const error = await refusal(loadOpenApiDocument({ source: url, mode: 'dereference', timeBudgetMs: 300 }));
  expect(error.problem).toBe('timeout');
  server.closeAllConnections();
});

it("stops when its caller's signal aborts: the held request's connection is closed, the load rejects with the reason", async () => {
  const sockets = new Set<import('node:net').Socket>();
  let asked: () => void = () => {};
  const arrived = new Promise<void>((resolve) => {
    asked = resolve;
  });
  // The server holds its answer for ever: only the caller's abort can end the load.
  const server = createServer(() => asked());
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.yaml`;
  const caller = new AbortController();
  const load = loadOpenApiDocument({ source: url, mode: 'dereference', signal: caller.signal });
  await arrived;
  const closed = Promise.all([...sockets].map((socket) => new Promise((resolve) => socket.once('close', resolve))));
  caller.abort('the caller went');
  await expect(load).rejects.toBe('the caller went');
  await closed;
  // A signal already aborted: nothing is read at all.
  await expect(loadDocument({ source: url, purpose: 'config', signal: caller.signal })).rejects.toBe('the caller went');
  expect(sockets.size).toBe(1);
});

it('--workflows: a FIFO or /dev/zero as the workflow file is refused without waiting on it', async () => {
  const { loadWorkflowDocument } = await import('../../src/conformance/workflows/arazzo-document.js');
  const fifo = join(root, 'workflows.arazzo.yaml');
  makeFifo(fifo);
  await expect(loadWorkflowDocument(fifo)).rejects.toThrow(/is a FIFO \(named pipe\), not a regular file/);
  await expect(loadWorkflowDocument('/dev/zero')).rejects.toThrow(/is a character device, not a regular file/);
});
