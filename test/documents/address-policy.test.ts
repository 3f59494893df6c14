/**
 * The one address policy (src/documents/address-guard.ts, A-31, A-45): every class of address
 * judged in process under the strict policy and under each flag; then the door itself, the
 * address connected to, on loopback listeners only: a literal, a name, a socket that reached
 * this machine whatever its host said, and a redirect hop away from a typed URL. No test here
 * sends anything to an address other than 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { connect as netConnect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, expect, it } from 'vitest';
import {
  type AddressPolicy,
  addressClass,
  addressRefusal,
  connectGuard,
  DocumentError,
  isLoopbackHostName,
  loadOpenApiDocument,
  strictAddressPolicy,
} from '../../src/documents/index.js';
import { OutboundClient } from '../../src/http/outbound-client.js';
import { runMain } from '../support/run-main.js';
import { runnerTimeoutMs } from '../support/time-limits.js';

const loopbackOnly: AddressPolicy = { allowLoopback: true, allowPrivate: false };
const privateOnly: AddressPolicy = { allowLoopback: false, allowPrivate: true };
const both: AddressPolicy = { allowLoopback: true, allowPrivate: true };

/** Every address of the row, with the class it is and the flag that opens it. */
const table: [string, string, 'loopback' | 'private' | 'never'][] = [
  ['127.0.0.1', 'loopback', 'loopback'],
  ['127.255.0.9', 'loopback', 'loopback'],
  ['::1', 'loopback', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback', 'loopback'],
  ['[::7f00:1]', 'loopback', 'loopback'],
  ['::ffff:0:127.0.0.1', 'loopback', 'loopback'],
  ['[64:ff9b::7f00:1]', 'loopback', 'loopback'],
  ['64:ff9b:1::7f00:1', 'loopback', 'loopback'],
  ['2002:7f00:1::', 'loopback', 'loopback'],
  ['0.0.0.0', 'unspecified', 'loopback'],
  ['0.0.0.1', 'unspecified', 'loopback'],
  ['::', 'unspecified', 'loopback'],
  ['[::ffff:0:0]', 'unspecified', 'loopback'],
  ['10.1.2.3', 'private', 'private'],
  ['172.16.0.1', 'private', 'private'],
  ['172.31.255.254', 'private', 'private'],
  ['192.168.1.1', 'private', 'private'],
  ['::ffff:192.168.1.1', 'private', 'private'],
  ['169.254.169.254', 'link-local', 'private'],
  ['fe80::1', 'link-local', 'private'],
  ['fe80::1%eth0', 'link-local', 'private'],
  ['100.64.0.1', 'shared', 'private'],
  ['100.127.255.254', 'shared', 'private'],
  ['fc00::1', 'unique-local', 'private'],
  ['fd12:3456::1', 'unique-local', 'private'],
  ['224.0.0.1', 'reserved', 'never'],
  ['ff02::1', 'reserved', 'never'],
  ['240.0.0.1', 'reserved', 'never'],
  ['198.51.100.7', 'reserved', 'never'],
  ['203.0.113.5', 'reserved', 'never'],
  ['2001:db8::1', 'reserved', 'never'],
  ['not-an-address', 'not-an-address', 'never'],
];

const ownAddresses = Object.values(networkInterfaces())
  .flatMap((entries) => entries ?? [])
  .map((entry) => entry.address);

it('classes every address of the issue, in every IPv6 form that carries IPv4, and opens each class only by its flag', () => {
  for (const [address, kind, opener] of table) {
    // An address of this machine's own is judged as this machine first.
    if (ownAddresses.includes(address.replace(/^\[|\]$/g, ''))) continue;
    const said = `${address} (${kind})`;
    expect(addressClass(address), said).toBe(kind);
    expect(addressRefusal(address, strictAddressPolicy)?.kind, said).toBe(kind);
    expect(addressRefusal(address, both) === undefined, said).toBe(opener !== 'never');
    expect(addressRefusal(address, loopbackOnly) === undefined, said).toBe(opener === 'loopback');
    expect(addressRefusal(address, privateOnly) === undefined, said).toBe(opener === 'private');
    const reason = addressRefusal(address, strictAddressPolicy)!.reason;
    if (opener === 'loopback') expect(reason, said).toMatch(/--allow-loopback opens it$/);
    if (opener === 'private') expect(reason, said).toMatch(/--allow-private opens it$/);
    if (opener === 'never') expect(reason, said).not.toMatch(/--allow-/);
  }
  for (const address of ['93.184.215.14', '2606:4700:4700::1111', '::ffff:93.184.215.14', '64:ff9b::5db8:d70e'])
    expect(addressRefusal(address, strictAddressPolicy), address).toBeUndefined();
});

it("refuses this machine's own interface addresses unless --allow-loopback, whatever range they lie in", () => {
  expect(ownAddresses.length).toBeGreaterThan(0);
  for (const address of ownAddresses) {
    expect(addressRefusal(address, strictAddressPolicy), address).toBeDefined();
    expect(addressRefusal(address, privateOnly), address).toBeDefined();
    expect(addressRefusal(address, loopbackOnly), address).toBeUndefined();
  }
});

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A listener on 127.0.0.1 that counts what reaches it. */
async function listener(answer: (path: string) => { status: number; headers?: Record<string, string>; body?: string }) {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(request.url ?? '');
    const { status, headers, body } = answer(request.url ?? '');
    response.writeHead(status, headers).end(body ?? '');
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  return { port, seen, connections: () => connections, origin: `http://127.0.0.1:${port}` };
}

it('holds the outbound client to a policy: a literal, a name and a socket are judged on the address reached', async () => {
  const target = await listener(() => ({ status: 200, body: 'reached' }));
  const strict = new OutboundClient({ connectGuard: connectGuard(strictAddressPolicy), deadlineMs: runnerTimeoutMs });
  const open = new OutboundClient({ connectGuard: connectGuard(loopbackOnly), deadlineMs: runnerTimeoutMs });
  try {
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:0:0]', '0.0.0.0']) {
      const outcome = await strict.send({ method: 'GET', url: `http://${host}:${target.port}/`, headers: {} });
      expect(outcome.answer, host).toBeUndefined();
      expect(outcome.failure?.kind, host).toBe('refused');
      expect(outcome.failure?.message, host).toMatch(/not connected: .*--allow-loopback opens it/);
    }
    expect(target.connections()).toBe(0);
    const allowed = await open.send({ method: 'GET', url: `${target.origin}/`, headers: {} });
    expect(allowed.answer?.status).toBe(200);
  } finally {
    await strict.close();
    await open.close();
  }
});

it('refuses a socket that reached this machine though its host looked public (the check once connected)', async () => {
  const target = await listener(() => ({ status: 200 }));
  // A connector that ends on 127.0.0.1 whatever it is asked: what DNS rebinding does to a name.
  const rebound = (_options: { hostname: string }, callback: (error: Error | null, socket: Socket | null) => void) => {
    const socket = netConnect({ host: '127.0.0.1', port: target.port });
    socket.once('connect', () => callback(null, socket));
    socket.once('error', (error) => callback(error, null));
  };
  const wrapped = connectGuard(strictAddressPolicy).wrap(rebound);
  const error = await new Promise<Error | null>((resolve) => wrapped({ hostname: 'docs.example.com' }, (failure) => resolve(failure)));
  expect(error?.message).toMatch(/docs\.example\.com connected to 127\.0\.0\.1, a loopback address .*--allow-loopback opens it/);
  expect(target.seen).toEqual([]);
});

/** A document server whose /openapi.yaml 307-redirects to `to`. */
async function redirecting(to: string) {
  return listener(() => ({ status: 307, headers: { location: to } }));
}

const documentText = 'openapi: 3.1.0\ninfo: { title: t, version: "1" }\npaths: {}\n';

it('follows a typed URL on loopback, but judges a redirect hop to another origin by the policy', async () => {
  const other = await listener(() => ({ status: 200, headers: { 'content-type': 'application/yaml' }, body: documentText }));
  const first = await redirecting(`http://localhost:${other.port}/openapi.yaml`);
  const refused = await loadOpenApiDocument({ source: `${first.origin}/openapi.yaml`, mode: 'bundle' }).catch((error) => error);
  expect(refused).toBeInstanceOf(DocumentError);
  expect((refused as Error).message).toMatch(/refused: localhost resolves to .*--allow-loopback opens it/);
  expect(first.seen).toEqual(['/openapi.yaml']);
  expect(other.seen).toEqual([]);
  const followed = await loadOpenApiDocument({ source: `${first.origin}/openapi.yaml`, mode: 'bundle', addressPolicy: loopbackOnly });
  expect(followed.document.openapi).toBe('3.1.0');
  expect(other.seen).toEqual(['/openapi.yaml']);
});

it("an agent's URL (trustNamedOrigin: false) is judged from its first connection", async () => {
  const server = await listener(() => ({ status: 200, body: documentText }));
  const refused = await loadOpenApiDocument({ source: `${server.origin}/openapi.yaml`, mode: 'bundle', trustNamedOrigin: false }).catch(
    (error) => error,
  );
  expect((refused as Error).message).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
  expect(server.connections()).toBe(0);
});

it('diff of a typed URL does not follow a 307 to another loopback origin without --allow-loopback', async () => {
  const other = await listener(() => ({ status: 200, body: documentText }));
  const first = await redirecting(`http://127.0.0.1:${other.port}/openapi.yaml`);
  const strict = await runMain('diff', `${first.origin}/openapi.yaml`, `${first.origin}/openapi.yaml`);
  expect(strict.code).toBe(2);
  expect(strict.stderr).toMatch(/127\.0\.0\.1 is a loopback address \(this machine\); --allow-loopback opens it/);
  expect(other.seen).toEqual([]);
  const allowed = await runMain('diff', `${first.origin}/openapi.yaml`, `${first.origin}/openapi.yaml`, '--allow-loopback');
  expect(allowed.code, allowed.stderr).toBe(0);
  expect(other.seen.length).toBeGreaterThan(0);
});

it('calls a host this machine only in the narrow sense a loosened rule needs (no control token, a local Host)', () => {
  const loopbackNames = [
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.1.2.3',
    '127.255.255.255',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::1%lo',
  ];
  for (const host of [...loopbackNames, '::ffff:127.0.0.1', '[::ffff:7f00:1]']) expect(isLoopbackHostName(host), host).toBe(true);
  const beyond = [
    '0.0.0.0', // every interface
    '::',
    '192.168.1.10',
    '10.0.0.1',
    'example.test',
    'localhost.example.test',
    '127.0.0.1.example.test',
    '127.1', // a shorthand a resolver may expand: a name here, not judged
    '2130706433',
    '127.000.0.1',
    '127.256.0.1',
    '::7f00:1', // IPv4-compatible: an IPv6 address of its own, loopback only to the outbound guard's wide reading
    '64:ff9b::7f00:1',
    '::2',
    '',
  ];
  for (const host of beyond) expect(isLoopbackHostName(host), host).toBe(false);
  // The wide reading still refuses what the narrow one does not loosen for.
  expect(addressClass('::7f00:1')).toBe('loopback');
});
