/**
 * The link to Redis as hard as the mock (issue 22, deliverable 6): a reply that never ends is
 * cut at the reply cap and the connection opened again, and a command past its deadline drops
 * its connection so that a reply half read is never taken for the next command's.
 * Hostile replies come from a proxy in front of a real redis-server that answers one chosen
 * command itself.
 */
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/engine/index.js';
import { type RunningMockServer, startMockServer } from '../../src/server/mock-server.js';
import { openRedisConnection, type RedisConnection } from '../../src/server/redis/redis-connection.js';
import { createRedisLink } from '../../src/server/redis/redis-link.js';
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
});
