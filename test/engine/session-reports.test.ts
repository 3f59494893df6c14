/**
 * Reports of every session (docs/assumptions.md A-60): with all traffic in named sessions (the
 * Playwright setup), the coverage and the pact written at exit still hold it, each behaviour
 * and interaction attributed to its sessions, and a session evicted or expired before exit is
 * folded in, not lost.
 */
import { expect, it } from 'vitest';
import { createMockEngine, type MockEngine, VirtualClock } from '../../src/engine/index.js';
import { clientSecret, runClientFlow } from '../pact/client-flow.js';

/** `fetch` answered by `engine`, every request in session `session`. */
function sessionFetch(engine: MockEngine, session: string): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    request.headers.set('x-mock-session', session);
    return engine.handle(request);
  }) as typeof fetch;
}

it('covers the traffic of named sessions, each behaviour and interaction attributed to its sessions', async () => {
  const engine = createMockEngine({ seed: 7 });
  await runClientFlow({ baseUrl: 'http://mock.test', fetch: sessionFetch(engine, 'pw-a') });
  await runClientFlow({ baseUrl: 'http://mock.test', fetch: sessionFetch(engine, 'pw-b') });
  // The default session saw nothing: its own report is empty, as before.
  expect(engine.control.coverage().covered).toBe(0);
  expect(engine.control.pact().interactions).toHaveLength(0);

  const coverage = engine.control.coverageOfAllSessions();
  const perSession = engine.control.session('pw-a').coverage();
  expect(coverage.covered).toBe(perSession.covered);
  expect(coverage.covered).toBeGreaterThan(5);
  expect(coverage.total).toBe(perSession.total);
  const created = coverage.behaviours.find((behaviour) => behaviour.id === 'createEvaluation 202');
  expect(created?.count).toBe(2 * perSession.behaviours.find((behaviour) => behaviour.id === 'createEvaluation 202')!.count);
  expect(coverage.sessions.count).toBe(3);
  expect(coverage.sessions.breakdown.map((row) => [row.name, row.state, row.covered > 0])).toEqual([
    ['default', 'live', false],
    ['pw-a', 'live', true],
    ['pw-b', 'live', true],
  ]);
  expect(coverage.sessions.breakdown[1]!.behaviours).toContain('createEvaluation 409');

  const pact = engine.control.pactOfAllSessions({ consumer: 'web' });
  expect(pact.consumer.name).toBe('web');
  expect(pact.interactions.length).toBe(engine.control.session('pw-a').pact().interactions.length);
  expect(pact.interactions.length).toBeGreaterThan(5);
  for (const interaction of pact.interactions) expect(interaction.comments?.text).toEqual(['seen in sessions pw-a, pw-b']);
  expect(new Set(pact.interactions.map((interaction) => interaction.key)).size).toBe(pact.interactions.length);
  expect(pact.metadata['evidence-harness'].sessions).toEqual({ count: 3, ended: 0 });
  expect(JSON.stringify(pact)).not.toContain(clientSecret.slice('Bearer '.length));
});

it('folds in a session evicted or expired before the report', async () => {
  const clock = new VirtualClock();
  const engine = createMockEngine({ clock, limits: { maxSessions: 2, sessionIdleMs: 60_000 } });
  await runClientFlow({ baseUrl: 'http://mock.test', fetch: sessionFetch(engine, 'first') });
  await runClientFlow({ baseUrl: 'http://mock.test', fetch: sessionFetch(engine, 'second') });
  // A third session evicts the first.
  await engine.handle(new Request('http://mock.test/health', { headers: { 'x-mock-session': 'third' } }));
  expect(engine.control.sessions().map((session) => session.name)).toEqual(['default', 'third', 'second']);
  // Idle past the limit: the next lookup forgets 'second' and 'third'.
  clock.advance(61_000);
  expect(engine.control.sessions().map((session) => session.name)).toEqual(['default']);

  const coverage = engine.control.coverageOfAllSessions();
  expect(coverage.covered).toBeGreaterThan(5);
  expect(coverage.behaviours.find((behaviour) => behaviour.id === 'health 200')?.covered).toBe(true);
  expect(coverage.sessions).toMatchObject({ count: 4, ended: 3, notListed: 0 });
  expect(coverage.sessions.breakdown.map((row) => [row.name, row.state])).toEqual([
    ['default', 'live'],
    ['first', 'evicted'],
    ['second', 'expired'],
    ['third', 'expired'],
  ]);
  const pact = engine.control.pactOfAllSessions();
  expect(pact.interactions.length).toBeGreaterThan(5);
  expect(pact.metadata['evidence-harness'].sessions).toEqual({ count: 4, ended: 3 });
  const health = pact.interactions.find((interaction) => interaction.description.startsWith('health'));
  expect(health?.comments).toEqual({ text: ['seen in sessions first, second, third'], testname: 'first' });
});

it('keeps memory bounded: past the listing bound, ended sessions are counted, their behaviours still in the union', async () => {
  const engine = createMockEngine({ limits: { maxSessions: 1 } });
  for (let index = 0; index < 300; index += 1) {
    await engine.handle(new Request('http://mock.test/health', { headers: { 'x-mock-session': `s${index}` } }));
  }
  const coverage = engine.control.coverageOfAllSessions();
  expect(coverage.sessions.count).toBe(301);
  expect(coverage.sessions.ended).toBe(299);
  expect(coverage.sessions.breakdown.length).toBe(256);
  expect(coverage.sessions.notListed).toBe(301 - 256);
  expect(coverage.behaviours.find((behaviour) => behaviour.id === 'health 200')?.count).toBe(300);
  const pact = engine.control.pactOfAllSessions();
  expect(pact.interactions).toHaveLength(1);
  expect(pact.interactions[0]!.comments?.text?.[0]).toMatch(/^seen in sessions s0, s1, .* and 290 more$/);
});

it('keeps the sessions of an engine closed before the reports are written (a stopping server closes its engine)', async () => {
  const engine = createMockEngine();
  await runClientFlow({ baseUrl: 'http://mock.test', fetch: sessionFetch(engine, 'pw-a') });
  engine.close?.();
  const coverage = engine.control.coverageOfAllSessions();
  expect(coverage.covered).toBeGreaterThan(5);
  expect(coverage.sessions).toMatchObject({ count: 2, ended: 0 });
  expect(engine.control.pactOfAllSessions().interactions.length).toBeGreaterThan(5);
});
