/**
 * The control API (/__mock/) is for its owner only: a web page of another origin gets no CORS
 * and is refused (unless its origin is listed with controlOrigins), a request whose Host is not
 * this machine is refused (DNS rebinding) while no token is in force, and the contract's own
 * paths keep their CORS for every origin (docs/assumptions.md A-20).
 */
import { request as httpRequest } from 'node:http';
import { expect, it } from 'vitest';
import { hostNameOf, isLocalHostHeader, normalizeControlOrigin } from '../../src/server/control-guard.js';
import { startMockServer } from '../../src/server/index.js';
import { mockServersClosedAfterEach } from '../support/started-servers.js';

const start = mockServersClosedAfterEach();

/** A request with headers fetch would not let a test set (Host), answered as status, headers and parsed body. */
function call(options: { url: string; method?: string; headers: Record<string, string>; body?: string }) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: unknown }>((resolve, reject) => {
    const outgoing = httpRequest(options.url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (incoming) => {
      let text = '';
      incoming.on('data', (chunk) => {
        text += chunk;
      });
      incoming.on('end', () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text ? JSON.parse(text) : null }),
      );
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

it('refuses a cross-origin call to the control API, with no CORS header, and lists nothing', async () => {
  const server = await start();
  const answer = await call({ url: `${server.url}/__mock/jobs`, headers: { origin: 'http://evil.example' } });
  expect(answer.status).toBe(403);
  expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  expect(answer.body).toEqual({ code: 'control_origin_refused', message: expect.stringContaining('--control-origin') });
});

it('does not let a page of another origin reset the mock with a simple POST, whose answer it could not read anyway', async () => {
  const server = await start();
  await server.engine.control.useScenario('manual');
  const answer = await call({
    url: `${server.url}/__mock/reset`,
    method: 'POST',
    headers: { origin: 'http://evil.example', 'content-type': 'text/plain' },
    body: '{}',
  });
  expect(answer.status).toBe(403);
  expect(server.engine.control.scenario).toBe('manual');
});

it('does not grant a preflight for the control API to an origin not listed', async () => {
  const server = await start();
  const answer = await call({
    url: `${server.url}/__mock/scenario`,
    method: 'OPTIONS',
    headers: { origin: 'http://evil.example', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
  });
  expect(answer.status).toBe(403);
  expect(answer.headers['access-control-allow-origin']).toBeUndefined();
  expect(answer.headers['access-control-allow-methods']).toBeUndefined();
});

it('refuses a control call whose Host is not this machine, as a DNS-rebinding page would send it', async () => {
  const server = await start();
  for (const host of ['evil.example:4010', 'evil.example', '127.0.0.1.evil.example', '10.0.0.1', 'localhost.', `${'a'.repeat(5000)}`]) {
    const answer = await call({ url: `${server.url}/__mock/jobs`, headers: { host } });
    expect(answer.status, host.slice(0, 40)).toBe(403);
    expect(answer.body).toMatchObject({ code: 'control_host_refused' });
    expect((answer.body as { message: string }).message.length).toBeLessThan(400);
  }
  // The contract's own paths answer whatever the Host.
  expect((await call({ url: `${server.url}/health`, headers: { host: 'evil.example:4010' } })).status).toBe(200);
  // A rebinding page's own calls carry an Origin equal to their Host: the inspector's same-origin
  // allowance must not let them through (the Host check comes first).
  const rebound = await call({
    url: `${server.url}/__mock/reset`,
    method: 'POST',
    headers: { host: 'evil.example:4010', origin: 'http://evil.example:4010' },
  });
  expect(rebound.status).toBe(403);
  expect(rebound.body).toMatchObject({ code: 'control_host_refused' });
});

it('accepts control calls addressed to the listening host, localhost or a loopback literal, on any port', async () => {
  const server = await start();
  for (const host of [`127.0.0.1:${server.port}`, '127.0.0.1', 'localhost:4010', 'LOCALHOST', '127.8.9.10:1', '[::1]:80', '[::1]']) {
    expect((await call({ url: `${server.url}/__mock/scenarios`, headers: { host } })).status, host).toBe(200);
  }
});

it('accepts any Host when a control token is in force: the token is the guard', async () => {
  const server = await start({ controlToken: 'sesame' });
  const headers = { host: 'mock.internal.example:4010' };
  expect((await call({ url: `${server.url}/__mock/scenarios`, headers })).status).toBe(401);
  expect((await call({ url: `${server.url}/__mock/scenarios`, headers: { ...headers, 'x-mock-token': 'sesame' } })).status).toBe(200);
});

it('grants the control API, with CORS, to exactly the origins listed in controlOrigins', async () => {
  const server = await start({ controlOrigins: ['http://localhost:5173/'] });
  const preflight = await call({
    url: `${server.url}/__mock/scenario`,
    method: 'OPTIONS',
    headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
  });
  expect(preflight.status).toBe(204);
  expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:5173');
  expect(preflight.headers['access-control-allow-methods']).toMatch(/PUT/);
  expect(preflight.headers['access-control-allow-headers']).toMatch(/X-Mock-Token/);
  expect(preflight.headers.vary).toBe('Origin');
  const put = await call({
    url: `${server.url}/__mock/scenario`,
    method: 'PUT',
    headers: { origin: 'http://localhost:5173', 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'manual' }),
  });
  expect([put.status, put.headers['access-control-allow-origin']]).toEqual([200, 'http://localhost:5173']);
  for (const origin of ['http://localhost:5174', 'https://localhost:5173', 'null']) {
    const other = await call({ url: `${server.url}/__mock/jobs`, headers: { origin } });
    expect([other.status, other.headers['access-control-allow-origin']], origin).toEqual([403, undefined]);
  }
});

it('keeps CORS for every origin on the contract’s paths, and no longer offers X-Mock-Token there', async () => {
  const server = await start();
  const preflight = await call({
    url: `${server.url}/v0/evaluations`,
    method: 'OPTIONS',
    headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
  });
  expect([preflight.status, preflight.headers['access-control-allow-origin']]).toEqual([204, '*']);
  expect(preflight.headers['access-control-allow-headers']).not.toMatch(/X-Mock-Token/i);
  const health = await call({ url: `${server.url}/health`, headers: { origin: 'http://evil.example' } });
  expect([health.status, health.headers['access-control-allow-origin']]).toEqual([200, '*']);
});

it('refuses an allow-list entry that is not one origin: a wildcard, null, a path, another scheme', async () => {
  for (const origin of ['*', 'null', 'http://localhost:5173/app', 'file:///tmp', 'localhost:5173', '']) {
    expect(() => normalizeControlOrigin(origin), origin).toThrow(RangeError);
    await expect(startMockServer({ port: 0, controlOrigins: [origin] })).rejects.toThrow(/control origin/);
  }
  expect(normalizeControlOrigin('HTTP://LocalHost:80')).toBe('http://localhost');
  await expect(startMockServer({ port: 0, controlToken: '' })).rejects.toThrow(/must not be empty/);
});

it('reads a Host header strictly: a name or bracketed IPv6 literal and an optional numeric port', () => {
  expect(hostNameOf('LocalHost:4010')).toBe('localhost');
  expect(hostNameOf('[::1]:4010')).toBe('::1');
  for (const value of ['', ':80', 'a:b', 'a:80:90', '[::1', '[::1]x', 'a:1234567', 'evil@127.0.0.1']) {
    expect(isLocalHostHeader({ host: value, listeningHost: '127.0.0.1' }), value).toBe(false);
  }
  expect(isLocalHostHeader({ host: undefined, listeningHost: '127.0.0.1' })).toBe(false);
  expect(isLocalHostHeader({ host: '127.0.0.256', listeningHost: '127.0.0.1' })).toBe(false);
  expect(isLocalHostHeader({ host: '[::1]:1', listeningHost: '::1' })).toBe(true);
});
