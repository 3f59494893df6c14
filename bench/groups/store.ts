/**
 * @module bench/groups/store
 * What sharing the mock over Redis costs (issue 15): one replica in memory, one replica on
 * Redis, two replicas on one Redis (the load split between them), taking turns workload by
 * workload; then, in this process, the Redis commands each operation sends (EVALSHA: the
 * stores' one-round-trip scripts; XADD: the journal, appended in batches off the request's
 * path) and what 1,000s of jobs take in Redis. Target: Redis-backed getJob ≥ 40% of memory.
 */
import { createMockEngine } from '../../src/engine/index.js';
import { executablePath, packageRoot } from '../../src/openapi/package-root.js';
import { openRedisConnection } from '../../src/server/redis/redis-connection.js';
import { openSharedState } from '../../src/server/redis/shared-state.js';
import type { BenchConfig } from '../bench-config.js';
import { type ChildServer, startChild } from '../child-server.js';
import { freePort } from '../free-port.js';
import { type LoadResult, runLoad } from '../load.js';
import { redisAvailable, startTestRedis, type TestRedis } from '../redis-server.js';
import { startTarget } from '../servers.js';
import { evaluationBody, freshKey, prepareWorkloads, type WorkloadName } from '../workloads.js';

export type StoreSetup = 'memory' | 'redis-1' | 'redis-2';

export const storeSetupLabels: Record<StoreSetup, string> = {
  memory: '1 replica, in memory',
  'redis-1': '1 replica on Redis',
  'redis-2': '2 replicas on one Redis',
};

export interface StoreRow {
  readonly setup: StoreSetup;
  readonly workload: WorkloadName;
  readonly connections: number;
  /** Summed over the replicas; p99 is the worse replica's. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
}

export interface StoreResult {
  readonly available: boolean;
  readonly redisVersion?: string;
  readonly rows: readonly StoreRow[];
  /** Redis commands per request, by operation and command, over `sampled` sequential requests. */
  readonly commandsPerRequest: Record<string, Record<string, number>>;
  readonly sampled: number;
  /** Redis used_memory growth per 100,000 jobs (and their keys), from `jobsMeasured` jobs. */
  readonly bytesPer100kJobs?: number;
  readonly jobsMeasured: number;
  readonly command: string;
}

const workloads: readonly WorkloadName[] = ['getJob', 'createEvaluation'];

async function startReplica(options: { redisUrl: string; namespace: string }): Promise<ChildServer> {
  const port = await freePort();
  return startChild({
    command: process.execPath,
    args: [
      executablePath(),
      'mock',
      '--port',
      String(port),
      '--quiet',
      '--store',
      options.redisUrl,
      '--store-namespace',
      options.namespace,
    ],
    port,
    cwd: packageRoot(),
    timeoutMs: 30_000,
  });
}

/** The load split over `urls` at once, half the connections each; requests per second summed. */
async function splitLoad(options: { urls: readonly string[]; workload: WorkloadName; connections: number; durationS: number }) {
  const prepared = await prepareWorkloads(options.urls[0]!);
  const share = Math.max(1, Math.round(options.connections / options.urls.length));
  const results: LoadResult[] = await Promise.all(
    options.urls.map((baseUrl) =>
      runLoad({ baseUrl, workload: prepared[options.workload], connections: share, durationS: options.durationS }),
    ),
  );
  return {
    rps: results.reduce((sum, result) => sum + result.rps, 0),
    p50Ms: Math.max(...results.map((result) => result.p50Ms)),
    p99Ms: Math.max(...results.map((result) => result.p99Ms)),
    failures: results.reduce((sum, result) => sum + result.non2xx + result.errors + result.timeouts, 0),
  };
}

/** Commands per request of each operation, in this process, one request at a time. */
async function commandsPerRequest(options: { redis: TestRedis; sampled: number }) {
  const shared = await openSharedState({ url: options.redis.url, namespace: 'bench-commands' });
  const engine = createMockEngine({ ...shared.engineOptions });
  await engine.control.synced();
  const base = 'http://mock.local';
  const post = (key: string) =>
    new Request(`${base}/v0/evaluations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: evaluationBody,
    });
  const created = (await (await engine.handle(post(freshKey()))).json()) as { jobId: string };
  const measure = async (send: () => Promise<Response>): Promise<Record<string, number>> => {
    // Settle the journal's pending batch first, so it is not counted against this operation.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = shared.commandCounts();
    for (let index = 0; index < options.sampled; index += 1) await send();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = shared.commandCounts();
    const perRequest: Record<string, number> = {};
    for (const [name, count] of Object.entries(after)) {
      const sent = count - (before[name] ?? 0);
      if (sent > 0) perRequest[name] = sent / options.sampled;
    }
    return perRequest;
  };
  const result = {
    getJob: await measure(() => engine.handle(new Request(`${base}/v0/jobs/${created.jobId}`))),
    createEvaluation: await measure(() => engine.handle(post(freshKey()))),
    'createEvaluation (replay)': await measure(() => engine.handle(post('bench-replayed-key'))),
    health: await measure(() => engine.handle(new Request(`${base}/health`))),
  };
  await shared.close();
  return result;
}

/** Redis used_memory growth per 100,000 jobs, measured over `jobs` creates (each with its key). */
async function bytesPer100kJobs(options: { redis: TestRedis; jobs: number }): Promise<number> {
  const probe = await openRedisConnection({ url: options.redis.url });
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(String(await probe.command(['INFO', 'memory'])))?.[1]);
  const shared = await openSharedState({ url: options.redis.url, namespace: 'bench-memory' });
  const engine = createMockEngine({ ...shared.engineOptions, journalCapacity: 1 });
  await engine.control.synced();
  const before = await usedMemory();
  const batch = 50;
  for (let done = 0; done < options.jobs; done += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, options.jobs - done) }, () =>
        engine.handle(
          new Request('http://mock.local/v0/evaluations', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': freshKey(), authorization: 'Bearer bench-caller' },
            body: evaluationBody,
          }),
        ),
      ),
    );
  }
  const after = await usedMemory();
  await shared.close();
  await probe.close();
  return ((after - before) / options.jobs) * 100_000;
}

export async function runStore(config: BenchConfig, progress: (line: string) => void): Promise<StoreResult> {
  const command = 'node dist/bench/run-bench.js --group store';
  if (!redisAvailable) {
    progress('store: redis-server is not installed (apt-get install redis-server); rows skipped');
    return { available: false, rows: [], commandsPerRequest: {}, sampled: 0, jobsMeasured: 0, command };
  }
  const redis = await startTestRedis();
  const started: ChildServer[] = [];
  try {
    const versionProbe = await openRedisConnection({ url: redis.url });
    const redisVersion = /redis_version:([\d.]+)/.exec(String(await versionProbe.command(['INFO', 'server'])))?.[1];
    await versionProbe.close();
    const memory = await startTarget('mock');
    started.push(memory);
    const single = await startReplica({ redisUrl: redis.url, namespace: 'bench-single' });
    started.push(single);
    const pair = [await startReplica({ redisUrl: redis.url, namespace: 'bench-pair' })];
    pair.push(await startReplica({ redisUrl: redis.url, namespace: 'bench-pair' }));
    started.push(...pair);
    const connections = config.connections.at(-1) ?? 10;
    const setups: [StoreSetup, readonly string[]][] = [
      ['memory', [memory.url]],
      ['redis-1', [single.url]],
      ['redis-2', pair.map((replica) => replica.url)],
    ];
    const rows: StoreRow[] = [];
    for (const workload of workloads) {
      for (const [setup, urls] of setups) {
        progress(`store: ${workload} on ${storeSetupLabels[setup]}, ${connections} connections`);
        rows.push({ setup, workload, connections, ...(await splitLoad({ urls, workload, connections, durationS: config.durationS })) });
      }
    }
    const sampled = config.smoke ? 50 : 1000;
    progress(`store: Redis commands per request, over ${sampled} requests of each operation`);
    const commands = await commandsPerRequest({ redis, sampled });
    const jobsMeasured = config.smoke ? 500 : 20_000;
    progress(`store: Redis memory over ${jobsMeasured} jobs`);
    const bytes = await bytesPer100kJobs({ redis, jobs: jobsMeasured });
    return {
      available: true,
      ...(redisVersion ? { redisVersion } : {}),
      rows,
      commandsPerRequest: commands,
      sampled,
      bytesPer100kJobs: bytes,
      jobsMeasured,
      command,
    };
  } finally {
    for (const child of started) await child.stop();
    await redis.close();
  }
}
