/**
 * The attacks of issue 10 on what the engine holds and matches — scenario patterns, scenario
 * floods, huge credentials, replays into a full store, oversized rule sets, and control calls
 * quoting huge input — run against the built `evidence-harness mock` in a child process, so
 * the test is only a client and the server's memory can be read on its own. Each test attacks
 * first, then asserts what a user notices: the answers, another client's GET /health (p50
 * under 100 ms over 20 probes, generous for a shared 2-core machine), and the server's RSS.
 * docs/reliability.md "Hardening: the engine" records the figures of the long runs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createMockEngine, scenarioLimits } from '../../src/engine/index.js';
import { checkPattern } from '../../src/engine/patterns.js';
import { evaluationRequest, jsonPost } from '../support/fixtures.js';
import { inTime, testTimeout } from '../support/time-limits.js';
import { median, probeHealth } from './attack-clients.js';
import { type MockProcess, startMockProcess } from './mock-process.js';

const started: MockProcess[] = [];
afterEach(async () => {
  for (const mock of started.splice(0)) if (mock.child.exitCode === null && mock.child.signalCode === null) mock.child.kill('SIGKILL');
});

async function start(args: string[] = []): Promise<MockProcess> {
  const mock = await startMockProcess(args);
  started.push(mock);
  return mock;
}

const put = (body: unknown): RequestInit => ({ ...jsonPost(body), method: 'PUT' });
const mebibyte = 1024 * 1024;
const mb = (bytes: number) => (bytes / mebibyte).toFixed(0);
/** Creates of the row-5 attack at CI size; ENGINE_ATTACK_CREATES=100000 for the issue's full size. */
const hugeCredentialCreates = Number(process.env.ENGINE_ATTACK_CREATES ?? 10_000);

/**
 * Polls the server's RSS until it is within 20% of `start` (the issue's bound), for at most
 * 30 s: the server releases memory once it has been quiet for 5 s after a reset, in one or two
 * passes 5 s apart (server/memory-release). Resolves with the last reading.
 */
async function rssAfterReset(mock: MockProcess, start: number): Promise<number> {
  const deadline = performance.now() + 30_000;
  let rss = mock.rssBytes();
  while (rss > start * 1.2 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    rss = mock.rssBytes();
  }
  return rss;
}

/** Runs `run(1)` … `run(count)` on `clients` concurrent loops; resolves with the results in order of completion. */
async function inParallel<T>(options: { count: number; clients: number; run: (round: number) => Promise<T> }): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: options.clients }, async () => {
      while (next < options.count) {
        next += 1;
        results.push(await options.run(next));
      }
    }),
  );
  return results;
}

/**
 * What another client sees of GET /health (20 probes, 20 ms apart) while `attack(round)` runs
 * over and over, from before the first probe until after the last: the attack never stops early.
 */
async function healthDuring<T>(url: string, attack: (round: number) => Promise<T>) {
  let probing = true;
  const results: T[] = [];
  const attacking = (async () => {
    for (let round = 0; probing || round === 0; round += 1) results.push(await attack(round));
  })();
  const probe = await probeHealth({ url, count: 20, gapMs: 20 });
  probing = false;
  await attacking;
  return { ...probe, results };
}

/** The 19th fastest of 20 probes: every probe but one under a bound (one GC pause may take one). */
function allButOne(ms: readonly number[]): number {
  return [...ms].sort((a, b) => a - b)[ms.length - 2]!;
}

function createWithOperationId(url: string, operationId: string, key: string): Promise<Response> {
  return fetch(`${url}/v0/evaluations`, jsonPost(evaluationRequest({ operationId }), { 'idempotency-key': key }));
}

it('matches a catastrophic pattern such as ^(a+)+$ in linear time: the create is answered and other clients are served', async () => {
  const mock = await start();
  const scenario = {
    name: 'redos',
    rules: [{ match: { operationId: '^(a+)+$' }, job: { timeline: [{ status: 'FAILED', at: { reads: 1 } }] } }],
  };
  expect((await fetch(`${mock.url}/__mock/scenario`, put({ scenario }))).status).toBe(200);
  // 40 'a' and a '!': a backtracking engine tries 2^40 ways before it fails.
  const probe = await healthDuring(
    mock.url,
    async (round) => (await createWithOperationId(mock.url, `${'a'.repeat(40)}!`, `redos-${round}`)).status,
  );
  expect(new Set(probe.results)).toEqual(new Set([202]));
  expect(probe.statuses).toEqual(Array(20).fill(200));
  // Answered at all while under attack: a backtracking match of 2^40 steps holds the event loop for
  // hours, so a bound a busy machine keeps still tells it apart (how fast is the bench's, here and below).
  expect(allButOne(probe.ms)).toBeLessThan(inTime());
  console.log(
    `^(a+)+$ against 40 a and '!': ${probe.results.length} creates answered 202; /health p50 ${median(probe.ms).toFixed(1)} ms, 19th of 20 ${allButOne(probe.ms).toFixed(1)} ms meanwhile`,
  );
  // The rule still works for what it does match.
  const matching = await (await createWithOperationId(mock.url, 'aaaa', 'redos-match')).json();
  expect(await (await fetch(`${mock.url}/v0/jobs/${matching.jobId}`)).json()).toMatchObject({ status: 'FAILED' });
  // And SIGTERM is heard: the loop was never wedged.
  expect(await mock.stop()).toBe(0);
});

it('refuses patterns a linear-time matcher cannot run, or longer than the limit, naming the rule', async () => {
  const mock = await start();
  const refusals = [
    { pattern: '(?<=a)b', says: /rules\.0\.match\.operationId: uses lookahead or lookbehind/ },
    { pattern: '(a)\\1', says: /rules\.0\.match\.operationId: uses a backreference/ },
    { pattern: 'a'.repeat(scenarioLimits.maxPatternLength + 1), says: /rules\.0\.match\.operationId: .*at most 256/ },
    { pattern: '\\p{Script=Greek}', says: /rules\.0\.match\.operationId: .*only general categories/ },
    { pattern: '(', says: /must be a valid regular expression/ },
  ];
  for (const { pattern, says } of refusals) {
    const scenario = { name: 'refused', rules: [{ match: { operationId: pattern }, job: { timeline: [] } }] };
    const answer = await fetch(`${mock.url}/__mock/scenario`, put({ scenario }));
    expect(answer.status, pattern).toBe(400);
    expect(await answer.json()).toMatchObject({ code: 'invalid_scenario', message: expect.stringMatching(says) });
  }
  expect(await (await fetch(`${mock.url}/__mock/scenarios`)).json()).toMatchObject({ current: 'default' });
});

it('refuses a scenario file with a catastrophic-looking but unsupported pattern at start, with exit 2 and the rule named', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'eh-scenario-'));
  const file = join(folder, 'lookbehind.json');
  writeFileSync(file, JSON.stringify({ name: 'lookbehind', rules: [{ match: { operationId: '(?<!x)y' }, job: { timeline: [] } }] }));
  await expect(start(['--scenario', file])).rejects.toThrow(
    /exited with 2[\s\S]*rules\.0\.match\.operationId \(line 1, column \d+\): uses lookahead or lookbehind/,
  );
});

it('refuses a 17,000-rule scenario, a 65-rule one, a 1 MB one and one of huge patterns by their limits; the heaviest allowed loads and answers at once', async () => {
  const mock = await start();
  const rule = (pattern: string) => ({ match: { operationId: pattern }, job: { timeline: [] } });
  // 17,000 rules are over the size limit before their number is counted.
  const huge = await fetch(`${mock.url}/__mock/scenario`, put({ scenario: { name: 'huge', rules: Array(17_000).fill(rule('^x')) } }));
  expect(huge.status).toBe(400);
  expect((await huge.json()).message).toMatch(/at most 262144 \(256 KiB\)/);
  const many = await fetch(`${mock.url}/__mock/scenario`, put({ scenario: { name: 'many', rules: Array(65).fill(rule('^x')) } }));
  expect(many.status).toBe(400);
  expect((await many.json()).message).toMatch(/rules: a scenario has at most 64 rules/);
  const large = await fetch(`${mock.url}/__mock/scenario`, put({ scenario: { name: 'large', description: 'x'.repeat(1_000_000) } }));
  expect(large.status).toBe(400);
  expect((await large.json()).message).toMatch(/at most 262144 \(256 KiB\)/);
  // The attack of the review: 64 rules of 27 branches of \S{900}, 19 KB in all, took a second a create.
  const wide = Array.from({ length: 27 }, (_, index) => `\\S{${900 + index}}`).join('|');
  const refusedWide = await fetch(
    `${mock.url}/__mock/scenario`,
    put({ scenario: { name: 'wide', rules: Array(64).fill(rule(`(?:${wide})`)) } }),
  );
  expect(refusedWide.status).toBe(400);
  expect((await refusedWide.json()).message).toMatch(/a count is at most 128/);
  // The heaviest scenario the limits allow: patterns of almost 1,000 instructions each, up to
  // the scenario's 2,000, with the rest of the 64 rules cheap.
  const heavy = (salt: number) => `(?:\\S{120}|\\S{119}|\\S{118})${salt}`;
  const heaviest = (name: string) => ({
    name,
    rules: [rule(heavy(1)), rule(heavy(2)), ...Array.from({ length: 62 }, (_, index) => rule(`^r${index}-`))],
  });
  expect(checkPattern(heavy(1))).toMatchObject({ estimatedProgram: expect.any(Number) });
  // Loading it (compiling every pattern) over and over, while another client polls /health.
  const loads = await healthDuring(
    mock.url,
    async (round) => (await fetch(`${mock.url}/__mock/scenario`, put({ scenario: heaviest(`heaviest-${round}`) }))).status,
  );
  expect(new Set(loads.results)).toEqual(new Set([200]));
  expect(allButOne(loads.ms)).toBeLessThan(inTime());
  // Creating under it over and over.
  const createMs: number[] = [];
  const creates = await healthDuring(mock.url, async (round) => {
    const sent = performance.now();
    const status = (await createWithOperationId(mock.url, 'a'.repeat(128), `heavy-${round}`)).status;
    createMs.push(performance.now() - sent);
    return status;
  });
  expect(new Set(creates.results)).toEqual(new Set([202]));
  expect(allButOne(creates.ms)).toBeLessThan(inTime());
  console.log(
    `heaviest scenario allowed: ${loads.results.length} loads, /health 19th of 20 ${allButOne(loads.ms).toFixed(1)} ms; ${creates.results.length} creates, p50 ${median(createMs).toFixed(1)} ms, /health 19th of 20 ${allButOne(creates.ms).toFixed(1)} ms`,
  );
});

it(
  'keeps memory bounded under a flood of run-time scenarios, and forgets them on reset',
  async () => {
    const mock = await start();
    // The mock as it is once it has served each kind of call: later growth is the attack's.
    await fetch(`${mock.url}/__mock/scenario`, put({ scenario: { name: 'warm-up' } }));
    await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
    const before = mock.rssBytes();
    // 300 scenarios, each about 125 KB of JSON (half the size limit): 37 MB in all.
    const limitations = Array(60).fill('l'.repeat(2000));
    const statuses = await inParallel({
      count: 300,
      clients: 4,
      run: async (round) => {
        const scenario = {
          name: `flood-${round}`,
          job: { timeline: [{ status: 'FAILED', limitations, at: { reads: 1 } }] },
          description: 'x'.repeat(1000),
        };
        return (await fetch(`${mock.url}/__mock/scenario`, put({ scenario }))).status;
      },
    });
    expect(new Set(statuses)).toEqual(new Set([200]));
    const listed = await (await fetch(`${mock.url}/__mock/scenarios`)).json();
    // Registered at run time: at most the registry's 16 MiB (each about 0.25 MB as UTF-16), the oldest dropped.
    const runtime = listed.scenarios.filter((scenario: { name: string }) => scenario.name.startsWith('flood-'));
    expect(runtime.length).toBeGreaterThan(10);
    expect(runtime.length).toBeLessThan(100);
    expect(listed.current).toMatch(/^flood-/);
    const peak = mock.rssBytes();
    expect(peak - before).toBeLessThan(150 * mebibyte);
    // An unknown name in Prefer lists a few names, not all of them.
    const unknown = await fetch(
      `${mock.url}/v0/evaluations`,
      jsonPost(evaluationRequest(), { prefer: 'scenario=nope', 'idempotency-key': 'k' }),
    );
    expect((await unknown.json()).message).toMatch(/and \d+ more \(GET \/__mock\/scenarios lists them\)/);
    expect((await (await fetch(`${mock.url}/__mock/reset`, { method: 'POST' })).json()).current).toBe('default');
    const after = await (await fetch(`${mock.url}/__mock/scenarios`)).json();
    expect(after.scenarios.some((scenario: { name: string }) => scenario.name.startsWith('flood-'))).toBe(false);
    // The registry's memory is free now, and once the server has been quiet after the reset it
    // asks V8 to give it back: RSS comes back within 20% of where it started.
    const settled = await rssAfterReset(mock, before);
    console.log(`scenario flood: 300 × 125 KB, ${runtime.length} kept; RSS ${mb(before)} → ${mb(peak)} MB; after reset ${mb(settled)} MB`);
    // Issue 10's bound. On Node 24 it holds because `mock` runs with glibc's mmap threshold fixed
    // (src/cli/malloc-tuning.ts): without it glibc kept 10-17 MB of freed bodies, 1.15-1.27×.
    expect(settled).toBeLessThanOrEqual(before * 1.2);
    // The flood, then up to 30 s for the release after the reset's quiet period: more than vitest's default 30 s.
  },
  testTimeout({ processes: 4 }),
);

it(
  'stores a caller with a 15 KB credential as a fingerprint: memory stays small and the job list answers a page at once',
  async () => {
    const mock = await start();
    // The mock as it is once it has served ordinary traffic (compiled code, caches), as in the
    // flood test: later growth is the attack's.
    await inParallel({
      count: 100,
      clients: 4,
      run: async (round) => (await createWithOperationId(mock.url, 'op-warm', `warm-${round}`)).arrayBuffer(),
    });
    await (await fetch(`${mock.url}/__mock/jobs`)).arrayBuffer();
    await fetch(`${mock.url}/__mock/reset`, { method: 'POST' });
    const before = mock.rssBytes();
    const secret = `Bearer ${'s'.repeat(15_000)}`;
    const body = JSON.stringify(evaluationRequest());
    const statuses = await inParallel({
      count: hugeCredentialCreates,
      clients: 16,
      run: async (round) => {
        const answer = await fetch(`${mock.url}/v0/evaluations`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `huge-${round}`, authorization: secret },
          body,
        });
        await answer.arrayBuffer();
        return answer.status;
      },
    });
    expect(statuses.filter((status) => status === 202)).toHaveLength(hugeCredentialCreates);
    // Holding the credential was 15 KB a job: 150 MB at 10,000 jobs, 1.5 GB at 100,000. A job
    // and its key as fingerprints cost about 1.5 KB of RSS (docs/performance.md, memory).
    const grown = mock.rssBytes() - before;
    expect(grown).toBeLessThan(64 * mebibyte + hugeCredentialCreates * 1536);
    const probe = await healthDuring(mock.url, async () => {
      const page = await fetch(`${mock.url}/__mock/jobs`);
      expect(page.status).toBe(200);
      const listed = await page.json();
      expect(listed.jobs).toHaveLength(100);
      expect(listed.nextCursor).toEqual(expect.any(String));
      expect(JSON.stringify(listed)).not.toContain('sssss');
    });
    expect(allButOne(probe.ms)).toBeLessThan(inTime());
    const pageStarted = performance.now();
    await (await fetch(`${mock.url}/__mock/jobs`)).json();
    console.log(
      `15 KB credentials: ${hugeCredentialCreates} creates, RSS +${mb(grown)} MB; first page of /__mock/jobs in ${(performance.now() - pageStarted).toFixed(1)} ms; /health p50 ${median(probe.ms).toFixed(1)} ms meanwhile`,
    );
    // Every page, followed to the end, holds every job once.
    const seen = new Set<string>();
    let cursor: string | undefined;
    do {
      const listed = await (await fetch(`${mock.url}/__mock/jobs?limit=1000${cursor ? `&cursor=${cursor}` : ''}`)).json();
      for (const inspection of listed.jobs) seen.add(inspection.job.jobId);
      cursor = listed.nextCursor;
    } while (cursor);
    expect(seen.size).toBe(hugeCredentialCreates);
    // Reset forgets them all: the next listing is empty, and RSS comes back within 20% of its start.
    expect((await fetch(`${mock.url}/__mock/reset`, { method: 'POST' })).status).toBe(200);
    expect((await (await fetch(`${mock.url}/__mock/jobs`)).json()).jobs).toEqual([]);
    const settled = await rssAfterReset(mock, before);
    console.log(`15 KB credentials: RSS ${mb(before)} MB at start, ${mb(settled)} MB after reset`);
    expect(settled).toBeLessThanOrEqual(before * 1.2);
  },
  Math.max(120_000, hugeCredentialCreates * 5),
);

it('never shows a caller’s credential in the control API, only its fingerprint', async () => {
  const mock = await start();
  const created = await fetch(
    `${mock.url}/v0/evaluations`,
    jsonPost(evaluationRequest(), { 'idempotency-key': 'fp-1', authorization: 'Bearer hunter2-token' }),
  );
  const { jobId } = await created.json();
  const anonymous = await (await createWithOperationId(mock.url, 'op-anon', 'fp-2')).json();
  const inspected = await (await fetch(`${mock.url}/__mock/jobs/${jobId}`)).json();
  expect(inspected.owner).toMatch(/^sha256:[0-9a-f]{32}$/);
  expect((await (await fetch(`${mock.url}/__mock/jobs/${anonymous.jobId}`)).json()).owner).toBe('anonymous');
  for (const path of ['/__mock/jobs', `/__mock/jobs/${jobId}`, '/__mock/journal', '/__mock/scenarios']) {
    expect(await (await fetch(`${mock.url}${path}`)).text(), path).not.toContain('hunter2');
  }
  // The owner still reads the job; another caller still cannot.
  expect((await fetch(`${mock.url}/v0/jobs/${jobId}`, { headers: { authorization: 'Bearer hunter2-token' } })).status).toBe(200);
  expect((await fetch(`${mock.url}/v0/jobs/${jobId}`, { headers: { authorization: 'Bearer other' } })).status).toBe(404);
});

it('cuts control API messages that quote a 900 KB scenario name or a 15 KB jobId to the Error schema’s limits', async () => {
  const mock = await start();
  const answers = [
    await fetch(`${mock.url}/__mock/scenario`, put({ name: 'n'.repeat(900_000) })),
    await fetch(`${mock.url}/__mock/jobs/${'j'.repeat(15_000)}`),
    await fetch(`${mock.url}/__mock/jobs/${'j'.repeat(15_000)}/advance`, { method: 'POST' }),
    await fetch(`${mock.url}/__mock/jobs?cursor=${'c'.repeat(15_000)}`),
    await fetch(`${mock.url}/__mock/${'p'.repeat(15_000)}`),
  ];
  for (const answer of answers) {
    expect(answer.status).toBeGreaterThanOrEqual(400);
    const text = await answer.text();
    const error = JSON.parse(text);
    expect(Object.keys(error).sort()).toEqual(['code', 'message']);
    expect([...error.message].length).toBeLessThanOrEqual(1024);
    expect(text.length).toBeLessThan(2048);
  }
});

it('answers a replay when the job store is full without evicting a job', async () => {
  const engine = createMockEngine({ limits: { maxJobs: 3 }, seed: 1 });
  const create = (key: string, operationId: string) =>
    engine.handle(new Request('http://mock.test/v0/evaluations', jsonPost(evaluationRequest({ operationId }), { 'idempotency-key': key })));
  const jobIds: string[] = [];
  for (const key of ['a', 'b', 'c']) jobIds.push((await (await create(key, `op-${key}`)).json()).jobId);
  for (let replay = 0; replay < 5; replay += 1) {
    const answer = await create('c', 'op-c');
    expect(answer.status).toBe(202);
    expect((await answer.json()).jobId).toBe(jobIds[2]);
  }
  expect((await engine.control.listJobs()).map((inspection) => inspection.job.jobId)).toEqual(jobIds);
});

it('answers concurrent duplicate creates into a full store with one job, evicting only for that job', async () => {
  const engine = createMockEngine({ limits: { maxJobs: 3 }, seed: 2 });
  const create = (key: string, operationId: string) =>
    engine.handle(new Request('http://mock.test/v0/evaluations', jsonPost(evaluationRequest({ operationId }), { 'idempotency-key': key })));
  const jobIds: string[] = [];
  for (const key of ['a', 'b', 'c']) jobIds.push((await (await create(key, `op-${key}`)).json()).jobId);
  const duplicates = await Promise.all(Array.from({ length: 5 }, () => create('d', 'op-d')));
  const duplicateIds = new Set(await Promise.all(duplicates.map(async (answer) => (await answer.json()).jobId)));
  expect(duplicateIds.size).toBe(1);
  // One new job made room for itself by evicting the oldest; the duplicates evicted nothing.
  expect((await engine.control.listJobs()).map((inspection) => inspection.job.jobId)).toEqual([jobIds[1], jobIds[2], ...duplicateIds]);
});
