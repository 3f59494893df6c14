/**
 * Three `evidence-harness mock --store redis://…` processes on one real Redis, clients spread
 * round-robin over them: any replica answers any request for any job, as one process would
 * (issue 15's acceptance). Needs the built CLI (npm test builds it first).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractVersions, writeVersion } from '../fixtures/contract-versions/versions.js';
import { cliChildrenKilledAfterEach } from '../support/cli-child.js';
import { evaluationRequest } from '../support/fixtures.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis-server.js';
import { inTime, testTimeout } from '../support/time-limits.js';

const spawnCli = cliChildrenKilledAfterEach();
let redis: TestRedis;
let namespaces = 0;

interface Replica {
  readonly url: string;
  readonly child: ReturnType<typeof spawnCli>;
}

async function startReplica(options: { namespace: string; args?: readonly string[] }): Promise<Replica> {
  const child = spawnCli([
    'mock',
    '--port',
    '0',
    '--quiet',
    '--store',
    redis.url,
    '--store-namespace',
    options.namespace,
    ...(options.args ?? []),
  ]);
  const [, url] = await child.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { url: url!, child };
}

async function startReplicas(count: number, args?: readonly string[]): Promise<Replica[]> {
  namespaces += 1;
  const namespace = `replicas-${namespaces}`;
  return Promise.all(Array.from({ length: count }, () => startReplica({ namespace, ...(args ? { args } : {}) })));
}

const caller = { authorization: 'Bearer replica-test' };

function create(replica: Replica, options: { key: string; operationId?: string; headers?: Record<string, string> }) {
  return fetch(`${replica.url}/v0/evaluations`, {
    method: 'POST',
    headers: { ...caller, 'content-type': 'application/json', 'idempotency-key': options.key, ...options.headers },
    body: JSON.stringify(evaluationRequest(options.operationId ? { operationId: options.operationId } : {})),
  });
}

async function poll(replica: Replica, jobId: string): Promise<{ status: number; body: { status?: string; jobId?: string } }> {
  const response = await fetch(`${replica.url}/v0/jobs/${jobId}`, { headers: caller });
  return { status: response.status, body: (await response.json()) as { status?: string } };
}

describe.runIf(redisAvailable)('several replicas on one Redis', () => {
  beforeAll(async () => {
    redis = await startTestRedis({ persistence: true });
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('creates on A, polls to COMPLETE through B and C with one process’s timeline, replays through B and refuses a conflict through C', async () => {
    const [a, b, c] = (await startReplicas(3)) as [Replica, Replica, Replica];
    const created = await create(a, { key: 'key-1' });
    expect(created.status).toBe(202);
    const job = (await created.json()) as { jobId: string; status: string };
    expect(job.status).toBe('QUEUED');
    // The default timeline: RUNNING at the first read, COMPLETE PASS at the third.
    const statuses = [];
    for (const replica of [b, c, b]) statuses.push((await poll(replica, job.jobId)).body.status);
    expect(statuses).toEqual(['RUNNING', 'RUNNING', 'COMPLETE']);

    const replay = await create(b, { key: 'key-1' });
    expect(replay.status).toBe(202);
    expect(((await replay.json()) as { jobId: string }).jobId).toBe(job.jobId);

    const conflict = await create(c, { key: 'key-1', operationId: 'another-operation' });
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ code: 'idempotency_key_conflict' });

    // Another caller's job stays invisible on every replica.
    const stranger = await fetch(`${c.url}/v0/jobs/${job.jobId}`, { headers: { authorization: 'Bearer someone-else' } });
    expect(stranger.status).toBe(404);
  });

  it('makes exactly one job of 200 concurrent identical creates spread over the replicas', async () => {
    const replicas = await startReplicas(3);
    const answers = await Promise.all(
      Array.from({ length: 200 }, async (_, index) => {
        const response = await create(replicas[index % replicas.length]!, { key: 'burst-key' });
        return { status: response.status, jobId: ((await response.json()) as { jobId?: string }).jobId };
      }),
    );
    expect(answers.every((answer) => answer.status === 202)).toBe(true);
    expect(new Set(answers.map((answer) => answer.jobId)).size).toBe(1);
    const listed = (await (await fetch(`${replicas[1]!.url}/__mock/jobs`)).json()) as { jobs: unknown[] };
    expect(listed.jobs).toHaveLength(1);
  });

  it('puts a scenario switched through one replica in force on the others, and counts a scenario’s faults once for all', async () => {
    const [a, b, c] = (await startReplicas(3)) as [Replica, Replica, Replica];
    const switched = await fetch(`${a.url}/__mock/scenario`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        scenario: { name: 'two-503', faults: [{ operation: 'createEvaluation', status: 503, times: 2 }] },
      }),
    });
    expect(switched.status).toBe(200);
    // In force on the others by itself (the store's notification, 100 ms on an idle machine: the
    // bench's figure); the bound only says it arrives, however busy the machine.
    await expect
      .poll(async () => ((await (await fetch(`${c.url}/__mock/scenarios`)).json()) as { current: string }).current, {
        timeout: inTime(100),
        interval: 5,
      })
      .toBe('two-503');

    // "times: 2" means two forced answers in all, not two per replica.
    const statuses = [];
    for (const [index, replica] of [a, b, c, a, b, c].entries()) statuses.push((await create(replica, { key: `fault-${index}` })).status);
    expect(statuses).toEqual([503, 503, 202, 202, 202, 202]);

    // A reset through one replica restores every replica's starting scenario and empties the store.
    expect((await fetch(`${b.url}/__mock/reset`, { method: 'POST' })).status).toBe(200);
    await expect
      .poll(async () => ((await (await fetch(`${a.url}/__mock/scenarios`)).json()) as { current: string }).current)
      .toBe('default');
    expect(((await (await fetch(`${c.url}/__mock/jobs`)).json()) as { jobs: unknown[] }).jobs).toEqual([]);
  });

  it('shows one journal of every replica’s requests', async () => {
    const [a, b] = (await startReplicas(2)) as [Replica, Replica];
    await fetch(`${a.url}/health`);
    await fetch(`${b.url}/v0/jobs/job_UNKNOWN`, { headers: caller });
    await expect
      .poll(async () => {
        const page = (await (await fetch(`${b.url}/__mock/journal`)).json()) as { entries: { path: string; status: number }[] };
        return page.entries.map(({ path, status }) => `${path} ${status}`);
      })
      .toEqual(['/health 200', '/v0/jobs/job_UNKNOWN 404']);
  });

  it(
    'loses no job when a replica is killed mid-run and started again, nor when Redis restarts with persistence',
    async () => {
      namespaces += 1;
      const namespace = `replicas-${namespaces}`;
      let a = await startReplica({ namespace });
      const b = await startReplica({ namespace });
      const jobIds: string[] = [];
      for (let index = 0; index < 20; index += 1) {
        const response = await create(index % 2 === 0 ? a : b, { key: `restart-${index}` });
        jobIds.push(((await response.json()) as { jobId: string }).jobId);
        if (index === 9) {
          a.child.child.kill('SIGKILL');
          await a.child.exit;
          a = await startReplica({ namespace });
        }
      }
      for (const jobId of jobIds) expect((await poll(a, jobId)).status).toBe(200);

      await redis.stop();
      await redis.start();
      // Each replica reconnects by itself, in its own time (until then it answers 503 with
      // Retry-After, A-25); then every job is still there, read through either.
      for (const replica of [a, b]) {
        await expect.poll(async () => (await poll(replica, jobIds[0]!)).status, { timeout: inTime(), interval: 100 }).toBe(200);
      }
      for (const jobId of jobIds) expect((await poll(a, jobId)).status).toBe(200);
      // Three replica starts, a Redis restart and each replica's reconnect.
    },
    testTimeout({ processes: 4, waitsMs: [0, 0] }),
  );
  it('refuses a replica that would serve another contract than the live replicas of its namespace, and says how to fix it', async () => {
    const [first] = await startReplicas(1);
    const namespace = `replicas-${namespaces}`;
    const proposal = writeVersion(contractVersions.find((version) => version.name === 'v02-proposal')!);
    const other = spawnCli(['mock', '--port', '0', '--quiet', '--store', redis.url, '--store-namespace', namespace, '--spec', proposal]);
    expect(await other.exit).toBe(2);
    expect(other.stderr()).toMatch(
      /the replicas sharing namespace 'replicas-\d+' serve contract 'bundled 0\.1\.0-draft', and this one would serve '0\.2\.0-draft [0-9a-f]{16}': start every replica with the same --spec/,
    );
    // The live replica keeps serving; the same contract joins.
    expect((await fetch(`${first!.url}/health`)).status).toBe(200);
    const same = await startReplica({ namespace });
    expect((await fetch(`${same.url}/health`)).status).toBe(200);
  });
});
