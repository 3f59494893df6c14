/**
 * A refused control call changes nothing (docs/assumptions.md A-60): whatever refused it (the
 * token, the Host or Origin guard, an unknown operation, a bad body, a job or scenario it cannot
 * find), it makes no session and evicts none.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningMockServer, startMockServer } from '../../src/server/index.js';

const token = 'refused-calls-token';
let server: RunningMockServer;

beforeAll(async () => {
  // A token is in force (as beyond loopback), and only three sessions fit: one made by a
  // refused call would evict the live one.
  server = await startMockServer({ port: 0, host: '127.0.0.1', controlToken: token, engineOptions: { limits: { maxSessions: 3 } } });
});
afterAll(() => server.close({ graceMs: 100 }));

async function control(path: string, headers: Record<string, string>, init: RequestInit = {}): Promise<number> {
  const response = await fetch(`${server.url}/__mock${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
  await response.arrayBuffer();
  return response.status;
}

async function sessionNames(): Promise<string[]> {
  const response = await fetch(`${server.url}/__mock/sessions`, { headers: { 'x-mock-token': token } });
  const body = (await response.json()) as { sessions: { name: string }[] };
  return body.sessions.map((session) => session.name);
}

it('makes no session, and evicts none, for control calls refused in any way', async () => {
  expect(
    await control('/scenario', { 'x-mock-token': token, 'x-mock-session': 'live' }, { method: 'PUT', body: '{"name":"flaky-503"}' }),
  ).toBe(200);
  const refusals: { status: number; path: string; headers: Record<string, string>; init?: RequestInit }[] = [];
  for (let index = 0; index < 10; index += 1) {
    const session = { 'x-mock-session': `refused-${index}` };
    refusals.push(
      // No token, a wrong token (401).
      { status: 401, path: '/reset', headers: session, init: { method: 'POST' } },
      {
        status: 401,
        path: '/scenario',
        headers: { ...session, 'x-mock-token': 'wrong' },
        init: { method: 'PUT', body: '{"name":"default"}' },
      },
      // A web page of an origin not listed (403).
      {
        status: 403,
        path: '/reset',
        headers: { ...session, 'x-mock-token': token, origin: 'http://evil.example' },
        init: { method: 'POST' },
      },
      // Authorised, but refused: an unknown operation, a bad body, an unknown scenario, no such job, a bad query.
      { status: 404, path: '/no-such-operation', headers: { ...session, 'x-mock-token': token } },
      { status: 400, path: '/scenario', headers: { ...session, 'x-mock-token': token }, init: { method: 'PUT', body: '{not json' } },
      {
        status: 404,
        path: '/scenario',
        headers: { ...session, 'x-mock-token': token },
        init: { method: 'PUT', body: '{"name":"no-such"}' },
      },
      { status: 404, path: '/jobs/no-such-job', headers: { ...session, 'x-mock-token': token } },
      { status: 400, path: '/journal?status=999', headers: { ...session, 'x-mock-token': token } },
    );
  }
  for (const refusal of refusals) {
    expect({ path: refusal.path, status: await control(refusal.path, refusal.headers, refusal.init) }).toEqual({
      path: refusal.path,
      status: refusal.status,
    });
  }
  expect(await sessionNames()).toEqual(['default', 'live']);
  const live = await fetch(`${server.url}/__mock/scenario`, { headers: { 'x-mock-token': token, 'x-mock-session': 'live' } });
  expect(((await live.json()) as { current: string }).current).toBe('flaky-503');
});

it('still makes a session for a control call that acts', async () => {
  expect(await control('/reset', { 'x-mock-token': token, 'x-mock-session': 'acted' }, { method: 'POST' })).toBe(200);
  expect(await sessionNames()).toContain('acted');
});

it('does not count a refused call as a use: the session it named is still the first evicted', async () => {
  const small = await startMockServer({ port: 0, host: '127.0.0.1', engineOptions: { limits: { maxSessions: 2 } } });
  try {
    const call = async (session: string, path: string, init: RequestInit) => {
      const response = await fetch(`${small.url}/__mock${path}`, { ...init, headers: { 'x-mock-session': session } });
      await response.arrayBuffer();
      return response.status;
    };
    expect(await call('older', '/reset', { method: 'POST' })).toBe(200);
    expect(await call('newer', '/reset', { method: 'POST' })).toBe(200);
    expect(await call('older', '/scenario', { method: 'PUT', body: '{"name":"no-such"}' })).toBe(404);
    expect(await call('newest', '/reset', { method: 'POST' })).toBe(200);
    const listing = (await (await fetch(`${small.url}/__mock/sessions`)).json()) as { sessions: { name: string }[] };
    expect(listing.sessions.map((session) => session.name)).toEqual(['default', 'newest', 'newer']);
  } finally {
    await small.close({ graceMs: 100 });
  }
});
