/**
 * The link to Redis as hard as the mock (issue 22, deliverable 6): a reply that never ends is
 * cut at the reply cap and the connection opened again, a command past its deadline drops its
 * connection so that a reply half read is never taken for the next command's, and announcements
 * on the replicas' channel that are not of the link's shape are logged and change nothing.
 * Hostile replies come from a proxy in front of a real redis-server that answers one chosen
 * command itself.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/engine/index.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { openRedisConnection, type RedisConnection } from '../../src/server/redis/redis-connection.js';
import { createRedisLink, newReplicaId, readAnnouncement } from '../../src/server/redis/redis-link.js';
import { RedisStore } from '../../src/server/redis/redis-store.js';
import { ReplyScanner } from '../../src/server/redis/reply-cap.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';

const mebibyte = 1024 * 1024;
/** What a proxy writes at most on one hostile connection: well past the 64 MiB a replica may take. */
const ceiling = 256 * mebibyte;

type Hostility = 'endless-bulk' | 'endless-line' | 'stall';

interface HostileProxy {
  readonly url: string;
  /**
   * The next command whose bytes contain `when` is not passed on: the proxy answers it itself,
   * with a bulk string announced as 999999999 bytes then bytes for ever, a simple string that
   * never ends, or (stall) the header of an array of two whose elements never come, then passes
   * on what follows as before (valid RESP: only the client can tell the next replies are not
   * that array's). Resolves once that connection is closed, with the bytes written on it.
   */
  arm(options: { when: string; reply: Hostility }): Promise<{ written: number }>;
  close(): Promise<void>;
}

async function hostileProxy(redisPort: number): Promise<HostileProxy> {
  let armed: { when: string; reply: Hostility; done: (outcome: { written: number }) => void } | undefined;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(redisPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    upstream.on('data', (chunk) => {
      if (!client.destroyed) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', end).on('close', end);
    client.on('error', end).on('close', end);
    client.on('data', (chunk) => {
      const trap = armed;
      if (trap && chunk.includes(trap.when)) {
        armed = undefined;
        void answer(client, trap.reply).then(trap.done);
        return;
      }
      upstream.write(chunk);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    arm: ({ when, reply }) => new Promise((resolve) => (armed = { when, reply, done: resolve })),
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Writes the hostile answer, minding backpressure, until the client closes or the ceiling. */
async function answer(client: net.Socket, reply: Hostility): Promise<{ written: number }> {
  const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
  if (reply === 'stall') {
    client.write('*2\r\n');
    await closed;
    return { written: 4 };
  }
  const filler = Buffer.alloc(64 * 1024, 'x');
  let written = 0;
  const head = reply === 'endless-bulk' ? '$999999999\r\n' : '+';
  client.write(head);
  written += head.length;
  while (!client.destroyed && written < ceiling) {
    written += filler.length;
    // A reset by the client ends the wait as its close does.
    if (!client.write(filler)) await Promise.race([once(client, 'drain').catch(() => undefined), closed]);
  }
  client.destroy();
  return { written };
}

describe('the reply scanner', () => {
  const replies = [
    '+OK\r\n',
    '-ERR no such key\r\n',
    ':42\r\n',
    '$5\r\nhello\r\n',
    '$0\r\n\r\n',
    '$-1\r\n',
    '*-1\r\n',
    '*0\r\n',
    '*2\r\n$1\r\na\r\n:5\r\n',
    '%1\r\n+key\r\n*2\r\n_\r\n#t\r\n',
    '>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$3\r\nabc\r\n',
    ',1.5\r\n(12345678901234567890\r\n=7\r\ntxt:abc\r\n!3\r\nerr\r\n~1\r\n:1\r\n',
  ].join('');

  it('reads every kind of reply, cut at any byte, without a complaint', () => {
    const whole = Buffer.from(replies);
    expect(new ReplyScanner(64).push(whole)).toBeUndefined();
    for (let cut = 1; cut < whole.length; cut += 1) {
      const scanner = new ReplyScanner(64);
      expect(scanner.push(whole.subarray(0, cut))).toBeUndefined();
      expect(scanner.push(whole.subarray(cut))).toBeUndefined();
    }
    const byByte = new ReplyScanner(64);
    for (const byte of whole) expect(byByte.push(Buffer.from([byte]))).toBeUndefined();
  });

  it('counts each reply on its own: many small replies never add up to the cap', () => {
    const scanner = new ReplyScanner(64);
    for (let index = 0; index < 10_000; index += 1) expect(scanner.push(Buffer.from('$5\r\nhello\r\n'))).toBeUndefined();
  });

  it('refuses a reply past the cap, announced or not, nested or not, and bytes that are not RESP', () => {
    expect(new ReplyScanner(64).push(Buffer.from('$999999999\r\n'))).toMatch(/announced 999999999 bytes after 12 bytes, past 64 bytes/);
    expect(new ReplyScanner(64).push(Buffer.from('*1000\r\n'))).toMatch(/announced 1000 elements/);
    expect(new ReplyScanner(64).push(Buffer.from(`+${'x'.repeat(100)}`))).toMatch(/passed 64 bytes/);
    const nested = `*3\r\n${`$30\r\n${'y'.repeat(30)}\r\n`.repeat(3)}`;
    expect(new ReplyScanner(64).push(Buffer.from(nested))).toMatch(/(passed|past) 64/);
    expect(new ReplyScanner(1024).push(Buffer.from(nested))).toBeUndefined();
    expect(new ReplyScanner(64).push(Buffer.from('HTTP/1.1 200 OK\r\n'))).toMatch(/not RESP/);
    expect(new ReplyScanner(64).push(Buffer.from('$1e3\r\n'))).toMatch(/unreadable length/);
  });
});

describe('announcements on the replicas’ channel', () => {
  const replica = newReplicaId();

  it('reads the link’s own announcements', () => {
    expect(readAnnouncement(`7|${replica}|{"kind":"use","scenario":"fail"}`)).toEqual({
      epoch: 7,
      change: { kind: 'use', scenario: 'fail' },
    });
    expect(readAnnouncement(`8|${replica}|{"kind":"register","scenario":{"name":"x"}}`)).toEqual({
      epoch: 8,
      change: { kind: 'register', scenario: { name: 'x' } },
    });
    // Only the change's own fields go on: an `epoch` inside the JSON is not the announcement's.
    expect(readAnnouncement(`9|${replica}|{"kind":"reset","epoch":"NaN"}`)).toEqual({ epoch: 9, change: { kind: 'reset' } });
  });

  it.each([
    ['no separators', 'garbage'],
    ['one separator', '5|{"kind":"reset"}'],
    ['a non-numeric epoch', `abc|${replica}|{"kind":"reset"}`],
    ['an epoch past 2^53', `99999999999999999999|${replica}|{"kind":"reset"}`],
    ['a negative epoch', `-1|${replica}|{"kind":"reset"}`],
    ['an epoch of 0', `0|${replica}|{"kind":"reset"}`],
    ['an epoch in exponent form', `1e3|${replica}|{"kind":"reset"}`],
    ['an epoch with a leading zero', `07|${replica}|{"kind":"reset"}`],
    ['a bad replica name', '5|not a replica!|{"kind":"reset"}'],
    ['bad JSON', `5|${replica}|{"kind":`],
    ['JSON that is not an object', `5|${replica}|["reset"]`],
    ['an unknown kind', `5|${replica}|{"kind":"explode"}`],
    ['a use without a scenario', `5|${replica}|{"kind":"use"}`],
    ['a use with a number for a scenario', `5|${replica}|{"kind":"use","scenario":5}`],
    ['a register with a name', `5|${replica}|{"kind":"register","scenario":"fail"}`],
  ])('refuses %s', (_, message) => {
    expect(readAnnouncement(message)).toHaveProperty('problem');
  });
});

describe.runIf(redisAvailable)('the Redis link against a hostile or broken store', () => {
  let redis: TestRedis;
  let proxy: HostileProxy;
  const servers: RunningMockServer[] = [];
  const connections: RedisConnection[] = [];

  beforeAll(async () => {
    redis = await startTestRedis();
    proxy = await hostileProxy(redis.port);
  });
  afterAll(async () => {
    for (const server of servers) await server.close({ graceMs: 100 });
    for (const connection of connections) await connection.close();
    await proxy?.close();
    await redis?.close();
  });

  async function connect(options: { commandTimeoutMs?: number; maxReplyBytes?: number } = {}): Promise<RedisConnection> {
    const connection = await openRedisConnection({ url: proxy.url, ...options });
    connections.push(connection);
    return connection;
  }

  it('answers 503 to a request whose reply never ends, takes at most 64 MiB of it, then reconnects and serves again', async () => {
    const logged: string[] = [];
    // A deadline far off: only the cap can end the reply in time.
    const server = await startMockServer({
      port: 0,
      store: { url: proxy.url, namespace: 'hostile-bulk', commandTimeoutMs: 20_000 },
      log: (line) => logged.push(line),
    });
    servers.push(server);
    const headers = { authorization: 'Bearer hostile' };
    const created = await fetch(
      `${server.url}/v0/evaluations`,
      jsonPost(evaluationRequest(), { ...headers, 'idempotency-key': 'hostile' }),
    );
    expect(created.status).toBe(202);
    const { jobId } = (await created.json()) as { jobId: string };

    const hostile = proxy.arm({ when: 'EVALSHA', reply: 'endless-bulk' });
    const answer = await fetch(`${server.url}/v0/jobs/${jobId}`, { headers });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect((await hostile).written).toBeLessThanOrEqual(64 * mebibyte);

    await expect
      .poll(async () => (await fetch(`${server.url}/v0/jobs/${jobId}`, { headers })).status, { timeout: 10_000, interval: 100 })
      .toBe(200);
    expect(logged.some((line) => /lost: .*maxReplyBytes/.test(line))).toBe(true);
  });

  it('drops a connection whose reply has no length and never ends, at the cap it was given', async () => {
    const connection = await connect({ commandTimeoutMs: 20_000, maxReplyBytes: mebibyte });
    await connection.command(['SET', 'hostile-line-key', 'value']);
    const hostile = proxy.arm({ when: 'endless-line', reply: 'endless-line' });
    const failed = connection.command(['GET', 'endless-line']);
    await expect(failed).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(failed).rejects.toThrow(/passed 1048576 bytes/);
    expect((await hostile).written).toBeLessThanOrEqual(64 * mebibyte);
    await expect
      .poll(() => connection.command(['GET', 'hostile-line-key']).catch(() => 'unavailable'), { timeout: 10_000, interval: 50 })
      .toBe('value');
  });

  it('drops the connection when a command’s deadline passes, so its half-read reply is never read as the next one’s', async () => {
    const connection = await connect({ commandTimeoutMs: 300 });
    await connection.command(['SET', 'stall-key', 'value']);
    const stalled = proxy.arm({ when: 'stall-me', reply: 'stall' });
    await expect(connection.command(['GET', 'stall-me'])).rejects.toBeInstanceOf(StoreUnavailableError);
    // Read on the same connection, the next two replies would be the stalled array's elements,
    // and every later one would go to the command two before.
    await expect
      .poll(() => connection.command(['GET', 'stall-key']).catch(() => 'unavailable'), { timeout: 10_000, interval: 50 })
      .toBe('value');
    // The stalled connection was closed by the client, not by the proxy.
    await stalled;
  });

  it('ends a page of large records before it passes a quarter of the cap, and loses no record across pages', async () => {
    const connection = await openRedisConnection({ url: redis.url, maxReplyBytes: 64 * 1024 });
    connections.push(connection);
    const store = new RedisStore<{ text: string }>({ connection, namespace: 'page-budget', name: 'big', maxEntries: 100, ttlMs: 60_000 });
    for (let index = 0; index < 10; index += 1) await store.insertIfAbsent(`k${index}`, { text: String(index).repeat(5000) });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.page({ limit: 100, ...(cursor === undefined ? {} : { cursor }) });
      // 16 KiB of values at most, one value always.
      expect(page.entries.length).toBeGreaterThanOrEqual(1);
      expect(page.entries.length).toBeLessThanOrEqual(3);
      seen.push(...page.entries.map(([key]) => key));
      cursor = page.next;
      pages += 1;
    } while (cursor !== undefined && pages < 20);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, index) => `k${index}`));
  });

  it('keeps the shared list of run-time scenarios within half the cap, the newest first', async () => {
    const connection = await openRedisConnection({ url: redis.url, maxReplyBytes: 64 * 1024 });
    connections.push(connection);
    const link = createRedisLink({
      connection,
      subscriber: connection,
      namespace: 'registry-budget',
      replicaId: 'registry-bud',
      maxRegistered: 64,
    });
    const scenario = (index: number) => ({ name: `big-${index}`, description: 'd'.repeat(10_000) });
    for (let index = 0; index < 10; index += 1) await link.publish({ kind: 'register', scenario: scenario(index) });
    const state = await link.load();
    // 32 KiB of about 10 KiB each: the newest three.
    expect(state?.registered.map((input) => input.name)).toEqual(['big-7', 'big-8', 'big-9']);
  });

  it('refuses a reply cap out of bounds, once, with what it accepts', async () => {
    for (const maxReplyBytes of [0, 1000, 1.5, 2 * 1024 * mebibyte, Number.NaN]) {
      await expect(openRedisConnection({ url: redis.url, maxReplyBytes })).rejects.toThrow(
        /maxReplyBytes must be a whole number of bytes from 65536/,
      );
    }
  });

  it('logs and ignores announcements not of the link’s shape; later scenario changes and counted faults still apply', async () => {
    const namespace = 'hostile-channel';
    const logged: string[] = [];
    const [a, b] = await Promise.all(
      [0, 1].map(() => startMockServer({ port: 0, store: { url: redis.url, namespace }, log: (line) => logged.push(line) })),
    );
    servers.push(a!, b!);
    const admin = await openRedisConnection({ url: redis.url });
    connections.push(admin);
    const oneFault = { name: 'one-503', faults: [{ operation: 'createEvaluation', status: 503, times: 1 }] };
    const use = (server: RunningMockServer, body: unknown) => fetch(`${server.url}/__mock/scenario`, { ...jsonPost(body), method: 'PUT' });
    const current = async (server: RunningMockServer) =>
      ((await (await fetch(`${server.url}/__mock/scenarios`)).json()) as { current: string }).current;
    let keys = 0;
    const create = async (server: RunningMockServer) => {
      keys += 1;
      const response = await fetch(
        `${server.url}/v0/evaluations`,
        jsonPost(evaluationRequest(), { authorization: 'Bearer channel', 'idempotency-key': `channel-${keys}` }),
      );
      return response.status;
    };

    expect((await use(a!, { scenario: oneFault })).status).toBe(200);
    await expect.poll(() => current(b!), { interval: 20 }).toBe('one-503');
    expect([await create(a!), await create(b!)]).toEqual([503, 202]);

    const epoch = Number(await admin.command(['GET', `{${namespace}}:scenario:epoch`]));
    const replica = newReplicaId();
    const next = epoch + 1;
    const malformed = [
      `abc|${replica}|{"kind":"use","scenario":"fail"}`,
      `99999999999999999999|${replica}|{"kind":"use","scenario":"fail"}`,
      `${next}|${replica}|{"kind":"explode","scenario":"fail"}`,
      `${next}|${replica}|{"kind":"use","scenario":`,
      '{"kind":"use","scenario":"fail"}',
      `${next}|not a replica|{"kind":"use","scenario":"fail"}`,
      `${next}|${replica}|{"kind":"use","scenario":"fail","pad":"${'z'.repeat(100_000)}"`,
    ];
    // A well-formed number far past the store's epoch is not taken either: the state is read again.
    await admin.command(['PUBLISH', `{${namespace}}:changes`, `9007199254740991|${replica}|{"kind":"use","scenario":"fail"}`]);
    for (const message of malformed) await admin.command(['PUBLISH', `{${namespace}}:changes`, message]);
    // Each replica logs each malformed announcement once.
    await expect.poll(() => logged.filter((line) => /ignored an announcement/.test(line)).length).toBe(2 * malformed.length);
    for (const line of logged.filter((line) => /ignored an announcement/.test(line))) {
      expect(line.length).toBeLessThan(300);
      expect(line).not.toContain('z'.repeat(50));
    }
    expect([await current(a!), await current(b!)]).toEqual(['one-503', 'one-503']);
    expect(await create(b!)).toBe(202);

    // Every scenario change after them restarts counted faults on every replica (twice: a number
    // that stuck, such as NaN, would give the second change the first one's counter), and a
    // switch reaches the other replica.
    for (const [first, second] of [
      [a!, b!],
      [b!, a!],
    ] as const) {
      expect((await use(first, { scenario: oneFault })).status).toBe(200);
      await expect.poll(() => create(second), { interval: 20 }).toBe(503);
      expect(await create(first)).toBe(202);
    }
    expect((await use(b!, { name: 'default' })).status).toBe(200);
    await expect.poll(() => current(a!), { interval: 20 }).toBe('default');
  });
});
