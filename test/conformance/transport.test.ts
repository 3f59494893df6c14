/**
 * The runner's HTTP edge: reproductions read credentials from the environment and paste into a
 * shell as they are, redirects to another origin are never followed, a silent server becomes a
 * timeout, a 429 is retried once after its Retry-After, 1xx answers and slow bodies are read,
 * connections are reused, every body is capped, a request's redirects and retry share its one
 * deadline, and failures (a 101 upgrade included) are named in plain words.
 */
import { execFile } from 'node:child_process';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterEach, expect, it, vi } from 'vitest';
import type { CheckContext } from '../../src/conformance/checks/check.js';
import { unknownJobNotFound } from '../../src/conformance/checks/stateful-checks.js';
import type { Exchange } from '../../src/conformance/exchange.js';
import { switchedProtocols } from '../../src/conformance/http/bounded-client.js';
import { redacted, toCurl } from '../../src/conformance/http/curl.js';
import { parseHeaderLine } from '../../src/conformance/http/header-line.js';
import { retryAfterMs, Transport } from '../../src/conformance/http/transport.js';
import { loopbackServersClosedAfterEach } from '../support/loopback-servers.js';
import { runnerTimeoutMs } from '../support/time-limits.js';

const serve = loopbackServersClosedAfterEach();
// Registered after the servers' hook, so it runs before it: the servers close on real time.
afterEach(() => {
  vi.useRealTimers();
});

/**
 * A target on vitest's fake clock, reached through the Transport's injected Fetch: `answer` gets
 * each request (numbered from 1) and says after how many milliseconds of fake time which answer
 * comes. The test moves the clock, so a deadline and an answer's delay are compared exactly,
 * however busy the machine (issue 43): the deadline logic under test is the Transport's own,
 * shared by node:http and an injected Fetch.
 */
function onFakeTime(answer: (call: number, request: Request) => { afterMs: number; response: () => Response }) {
  vi.useFakeTimers();
  let calls = 0;
  const fetch = (request: Request) => {
    calls += 1;
    const { afterMs, response } = answer(calls, request);
    // fake-time: the answer's delay on vitest's fake clock (onFakeTime turns it on).
    return new Promise<Response>((resolve) => setTimeout(() => resolve(response()), afterMs));
  };
  return { fetch, calls: () => calls };
}

/** Sends one request on fake time and moves the clock until it is settled. */
async function sendOnFakeTime(transport: Transport, path: string) {
  const result = transport.send({ method: 'GET', path, headers: {} });
  await vi.runAllTimersAsync();
  return result;
}

const json = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });

it('builds a curl command that redacts credentials and survives shell quoting', async () => {
  const body = `{"operationId":"it's \\"quoted\\" $HOME \`x\`"}`;
  const curl = toCurl(
    {
      method: 'POST',
      url: 'http://127.0.0.1:1/v0/evaluations',
      headers: { Authorization: 'Bearer s3cret', 'X-Team-Token': 't0ken', 'Idempotency-Key': 'k-1' },
      body,
    },
    { secretHeaders: ['x-team-token'] },
  );
  expect(curl).not.toMatch(/s3cret|t0ken/);
  expect(curl).not.toContain(redacted);
  expect(curl).toContain('-H "Authorization: $EH_AUTH" -H "X-Team-Token: $EH_X_TEAM_TOKEN"');
  expect(curl).toContain("-H 'Idempotency-Key: k-1'");
  // The shell gives back the exact body: run `printf %s <the quoted body>` through sh.
  const quoted = curl.slice(curl.indexOf('--data-binary ') + '--data-binary '.length);
  const { stdout } = await promisify(execFile)('sh', ['-c', `printf %s ${quoted}`]);
  expect(stdout).toBe(body);
  // …and the credential from the environment variable the command names.
  const header = await promisify(execFile)('sh', ['-c', 'printf %s "Authorization: $EH_AUTH"'], {
    env: { ...process.env, EH_AUTH: 'Bearer s3cret' },
  });
  expect(header.stdout).toBe('Authorization: Bearer s3cret');
});

it('writes a curl for the second caller with its own variable, and reads a long body from the file it names', () => {
  const curl = toCurl(
    { method: 'POST', url: 'http://127.0.0.1:1/v0/evaluations', headers: { Authorization: 'Bearer b' }, body: 'x'.repeat(20_000) },
    { caller: 2, bodyFile: 'reports/conformance-bodies/exchange-7.json' },
  );
  expect(curl).toBe(
    `curl -i -X POST 'http://127.0.0.1:1/v0/evaluations' -H "Authorization: $EH_SECOND_AUTH" --data-binary '@reports/conformance-bodies/exchange-7.json'`,
  );
});

it('parses header lines and refuses ones without a name', () => {
  expect(parseHeaderLine('Authorization: Bearer a:b')).toEqual(['Authorization', 'Bearer a:b']);
  expect(() => parseHeaderLine(': x')).toThrow(/not a header line/);
});

it('never follows a redirect to another origin, and follows one on the same origin', async () => {
  let otherHits = 0;
  const other = await serve((_, response) => {
    otherHits += 1;
    response.end('{}');
  });
  const target = await serve((request, response) => {
    if (request.url === '/away') response.writeHead(302, { location: `${other}/steal` }).end();
    else if (request.url === '/here') response.writeHead(307, { location: '/final' }).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const transport = new Transport({ baseUrl: target, timeoutMs: runnerTimeoutMs });
  const away = await transport.send({ method: 'GET', path: '/away', headers: { authorization: 'Bearer secret' } });
  expect(away.response?.status).toBe(302);
  expect(away.notes.join()).toMatch(/redirect to another origin .* not followed/);
  expect(otherHits).toBe(0);
  const here = await transport.send({ method: 'GET', path: '/here', headers: {} });
  expect(here.response?.status).toBe(200);
  expect(here.notes.join()).toMatch(/followed 307 redirect to \/final/);
});

it('turns a server that never answers into a timeout, not a hung run', async () => {
  const silent = await serve(() => undefined);
  // real-time: the server never answers, so only the deadline can end the wait; a busy machine makes it later, never different.
  const result = await new Transport({ baseUrl: silent, timeoutMs: 300 }).send({ method: 'GET', path: '/', headers: {} });
  expect(result.response).toBeUndefined();
  expect(result.transportError).toBe('no answer within 300 ms (--timeout)');
});

it('waits a Retry-After as the contract reads it, and 1 s when it is absent or unreadable', () => {
  expect(retryAfterMs('2')).toBe(2000);
  expect(retryAfterMs(undefined)).toBe(1000);
  // Date.parse once read these as dates in the past, so the runner retried at once.
  expect(retryAfterMs('1.5')).toBe(1000);
  expect(retryAfterMs('2001-01-01')).toBe(1000);
  expect(retryAfterMs(new Date(Date.now() - 60_000).toUTCString())).toBe(0);
});

it('retries a 429 once after Retry-After, and marks a persistent one', async () => {
  let calls = 0;
  const limited = await serve((_, response) => {
    calls += 1;
    if (calls === 1)
      response.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"code":"rate_limited","message":"x"}');
    else response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const transport = new Transport({ baseUrl: limited, timeoutMs: runnerTimeoutMs });
  const once = await transport.send({ method: 'GET', path: '/', headers: {} });
  expect(once.response?.status).toBe(200);
  expect(once.rateLimited).toBe(false);
  expect(once.requestsSent).toBe(2);
  const always = await serve((_, response) => response.writeHead(429, { 'retry-after': '0' }).end());
  const persistent = await new Transport({ baseUrl: always, timeoutMs: runnerTimeoutMs }).send({ method: 'GET', path: '/', headers: {} });
  expect(persistent.rateLimited).toBe(true);
});

it('reads the final answer that follows 100 Continue and 103 Early Hints', async () => {
  const target = await serve((_, response) => {
    response.writeContinue();
    response.writeEarlyHints({ link: '</x>; rel=preload' });
    // The final answer in a later turn, after the interim ones have gone out on their own.
    setImmediate(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  const result = await new Transport({ baseUrl: target, timeoutMs: runnerTimeoutMs }).send({ method: 'GET', path: '/', headers: {} });
  expect(result.response).toMatchObject({ status: 200, json: { ok: true } });
  expect(result.response?.incomplete).toBeUndefined();
});

it('waits for a slow body that is whole before the timeout', async () => {
  // Three parts 150 ms apart (fake time), the whole body within the 3000 ms deadline.
  const target = onFakeTime(() => ({
    afterMs: 0,
    response: () => {
      const parts = ['{"jobId":', '"job_1",', '"status":"QUEUED"}'];
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const part = parts.shift();
          if (part === undefined) return controller.close();
          controller.enqueue(new TextEncoder().encode(part));
          // fake-time: the parts' pace on vitest's fake clock.
          await new Promise((resolve) => setTimeout(resolve, 150));
        },
      });
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    },
  }));
  // fake-time: the deadline on vitest's fake clock, against answers the test times.
  const result = await sendOnFakeTime(new Transport({ baseUrl: 'http://target.test', timeoutMs: 3000, fetch: target.fetch }), '/');
  expect(result.response?.json).toEqual({ jobId: 'job_1', status: 'QUEUED' });
  expect(result.timedOut).toBe(false);
});

it('keeps the status and the start of a body still arriving at the timeout, and says so', async () => {
  const target = await serve((_, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    response.write('{"jobId":');
  });
  // real-time: the body stalls for good, so only the deadline can end the read; a busy machine makes it later, never different.
  const result = await new Transport({ baseUrl: target, timeoutMs: 300 }).send({ method: 'GET', path: '/', headers: {} });
  expect(result.timedOut).toBe(true);
  expect(result.response).toMatchObject({ status: 200, bodyText: '{"jobId":', json: undefined });
  expect(result.response?.incomplete).toEqual({
    reason: 'timeout',
    bytes: 9,
    message: 'the body was still arriving after 300 ms (9 bytes received)',
  });
});

it('reuses one connection for requests in a row (HTTP/1.1 keep-alive)', async () => {
  let connections = 0;
  const target = await serve(
    (_, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    (server) =>
      server.on('connection', () => {
        connections += 1;
      }),
  );
  const transport = new Transport({ baseUrl: target, timeoutMs: runnerTimeoutMs });
  for (let request = 0; request < 10; request += 1) await transport.send({ method: 'GET', path: '/', headers: {} });
  transport.close();
  // undici's pool may open a second connection when the next request is dispatched in the same
  // turn as the previous answer's end, before the first connection is marked free; ten requests
  // in a row never need more than two.
  expect(connections).toBeLessThanOrEqual(2);
});

it('stops reading at the byte cap, counted as sent and once decoded, and says how large the answer was', async () => {
  const target = await serve((request, response) => {
    if (request.url === '/gzip') {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20)));
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const write = () => {
      while (!response.destroyed && response.write(chunk)) {
        /* until the socket is full */
      }
      if (!response.destroyed) response.once('drain', write);
    };
    write();
  });
  const transport = new Transport({ baseUrl: target, timeoutMs: runnerTimeoutMs, maxResponseBytes: 100_000 });
  for (const path of ['/endless', '/gzip']) {
    const result = await transport.send({ method: 'GET', path, headers: {} });
    expect(result.response?.incomplete, path).toMatchObject({
      reason: 'too-large',
      message: 'answer larger than 100000 bytes (--max-response-bytes)',
    });
    expect(result.response!.bodyText.length, path).toBeLessThanOrEqual(8 * 1024);
  }
  transport.close();
});

it('names transport failures in plain words, never by llhttp or undici codes', async () => {
  const garbage = createNetServer((socket) => socket.once('data', () => socket.end('garbage\r\n\r\n')));
  const cut = createNetServer((socket) =>
    socket.once('data', () => {
      // Cut once the start of the answer has left: a flushed write, not a guess at how long that takes.
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 50\r\n\r\n{"job', () => socket.destroy());
    }),
  );
  const silentClose = createNetServer((socket) => socket.once('data', () => socket.destroy()));
  const urls: string[] = [];
  for (const server of [garbage, cut, silentClose]) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
  try {
    const send = (url: string) =>
      new Transport({ baseUrl: url, timeoutMs: runnerTimeoutMs }).send({ method: 'GET', path: '/', headers: {} });
    expect((await send(urls[0]!)).transportError).toBe('the answer is not HTTP: it does not start with an HTTP/1.x status line');
    expect((await send(urls[1]!)).response?.incomplete).toMatchObject({
      reason: 'closed',
      message: 'the server closed the connection mid-answer (5 bytes of body received)',
    });
    expect((await send(urls[2]!)).transportError).toBe('the server closed the connection without answering');
  } finally {
    for (const server of [garbage, cut, silentClose]) server.close();
  }
});

it("gives a request's redirects its one deadline, not a fresh --timeout for each hop", async () => {
  // Three hops of 700 ms each (fake time): every hop alone is within 1500 ms, the request as a whole is not.
  const next: Record<string, string> = { '/a': '/b', '/b': '/c' };
  const target = onFakeTime((_, request) => {
    const location = next[new URL(request.url).pathname];
    return { afterMs: 700, response: () => (location ? new Response(null, { status: 307, headers: { location } }) : json(200, '{}')) };
  });
  // fake-time: the deadline on vitest's fake clock, against answers the test times.
  const transport = new Transport({ baseUrl: 'http://target.test', timeoutMs: 1500, fetch: target.fetch });
  const result = await sendOnFakeTime(transport, '/a');
  transport.close();
  expect(result.response).toBeUndefined();
  expect(result.timedOut).toBe(true);
  expect(result.transportError).toBe('no answer within 1500 ms (--timeout)');
  expect(result.notes).toEqual(['followed 307 redirect to /b', 'followed 307 redirect to /c']);
});

it("retries a 429 within the request's deadline: the retry gets what is left of it", async () => {
  // Each answer comes 700 ms (fake time) after its request: the 429 at 700, within the 1000 ms
  // deadline; the retry's 200 would come at 1400, after it. A retry with a fresh --timeout would get it.
  const target = onFakeTime((call) => ({
    afterMs: 700,
    response: () => (call === 1 ? json(429, '{"code":"rate_limited","message":"x"}', { 'retry-after': '0' }) : json(200, '{}')),
  }));
  // fake-time: the deadline on vitest's fake clock, against answers the test times.
  const transport = new Transport({ baseUrl: 'http://target.test', timeoutMs: 1000, fetch: target.fetch });
  const result = await sendOnFakeTime(transport, '/');
  transport.close();
  expect(target.calls()).toBe(2);
  expect(result.requestsSent).toBe(2);
  expect(result.timedOut).toBe(true);
  expect(result.transportError).toBe('no answer within 1000 ms (--timeout)');
});

it("does not retry a 429 whose Retry-After ends after the request's deadline, and says so", async () => {
  // The 429 comes at once (fake time), so only the Retry-After decides, not how busy the machine is.
  const target = onFakeTime((call) => ({
    afterMs: 0,
    response: () => (call === 1 ? json(429, '{}', { 'retry-after': '3' }) : json(200, '{}')),
  }));
  // fake-time: the deadline on vitest's fake clock, against answers the test times.
  const transport = new Transport({ baseUrl: 'http://target.test', timeoutMs: 1000, fetch: target.fetch });
  const result = await sendOnFakeTime(transport, '/');
  transport.close();
  expect(target.calls()).toBe(1);
  expect(result.response?.status).toBe(429);
  expect(result.rateLimited).toBe(true);
  expect(result.notes).toEqual([
    "429 answered; not retried, as its Retry-After of 3000 ms ends after the request's deadline (--timeout 1000 ms; docs/assumptions.md A-11)",
  ]);
});

it('names a 101 Switching Protocols plainly, and fails the check that sent the request', async () => {
  const upgrading = createNetServer((socket) =>
    socket.once('data', () =>
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n\x81\x05hello'),
    ),
  );
  await new Promise<void>((resolve) => upgrading.listen(0, '127.0.0.1', resolve));
  const transport = new Transport({ baseUrl: `http://127.0.0.1:${(upgrading.address() as AddressInfo).port}`, timeoutMs: runnerTimeoutMs });
  try {
    const result = await transport.send({ method: 'GET', path: '/v0/jobs/x', headers: {} });
    expect(result.timedOut).toBe(false);
    expect(result.response).toMatchObject({
      status: 101,
      incomplete: { reason: 'switched-protocols', message: switchedProtocols },
    });
    expect(switchedProtocols).toBe('the server switched protocols (101 Switching Protocols), which is not followed');
    const exchange = {
      id: 1,
      operationId: 'getJob',
      caller: 1,
      intent: { kind: 'unknown-job' },
      request: result.request,
      response: result.response,
      notes: [],
      rateLimited: false,
      durationMs: 1,
    } as Exchange;
    expect(unknownJobNotFound.judge(exchange, {} as CheckContext)).toMatchObject({
      outcome: 'fail',
      title: 'server switched protocols (101)',
      received: `101, then ${switchedProtocols}; it began: (empty body)`,
    });
  } finally {
    transport.close();
    upgrading.close();
  }
});
