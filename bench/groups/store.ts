/**
 * @module bench/groups/store
 * What sharing the mock over Redis costs: one replica in memory, one on Redis, two on one Redis
 * (the load split between them), taking turns; then, in this process, the Redis commands each
 * operation sends (EVALSHA: a store script, one awaited round trip; XADD: the journal, batched
 * off the request's path) and Redis' memory per 100,000 jobs.
 */
import { createMockEngine } from '../../src/engine/index.js';
import { executablePath } from '../../src/openapi/package-root.js';
import { openRedisConnection } from '../../src/server/redis/redis-connection.js';
import { openSharedState } from '../../src/server/redis/shared-state.js';
import type { BenchOptions } from '../config.js';
import { type GroupResult, num, percent } from '../figures.js';
import { evaluationBody, freshKey, requestOf, runLoad, type WorkloadName, workload } from '../load.js';
import { type ChildServer, servers, startServer } from '../processes.js';
import { redisAvailable, startTestRedis } from '../redis-server.js';

const replica = (redisUrl: string, namespace: string) => (port: number) => ({
  command: process.execPath,
  args: [executablePath(), 'mock', '--port', String(port), '--quiet', '--store', redisUrl, '--store-namespace', namespace],
  display: 'evidence-harness mock --quiet --store redis://…',
});

const post = (key: string) =>
  new Request('http://mock.local/v0/evaluations', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: evaluationBody,
  });

/** Commands per request of each operation, one request at a time, after the journal's batch settles. */
async function commandsPerRequest(redisUrl: string, sampled: number) {
  const shared = await openSharedState({ url: redisUrl, namespace: 'bench-commands' });
  const engine = createMockEngine({ ...shared.engineOptions });
  await engine.control.synced();
  const { jobId } = (await (await engine.handle(post(freshKey()))).json()) as { jobId: string };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
  const measure = async (send: () => Promise<Response>) => {
    await settle();
    const before = shared.commandCounts();
    for (let index = 0; index < sampled; index += 1) await send();
    await settle();
    return Object.fromEntries(
      Object.entries(shared.commandCounts()).map(([name, count]) => [name, (count - (before[name] ?? 0)) / sampled]),
    );
  };
  const result = {
    getJob: await measure(() => engine.handle(new Request(`http://mock.local/v0/jobs/${jobId}`))),
    createEvaluation: await measure(() => engine.handle(post(freshKey()))),
    health: await measure(() => engine.handle(new Request('http://mock.local/health'))),
  };
  await shared.close();
  return result;
}

async function bytesPer100kJobs(redisUrl: string, jobs: number): Promise<number> {
  const probe = await openRedisConnection({ url: redisUrl });
  const used = async () => Number(/used_memory:(\d+)/.exec(String(await probe.command(['INFO', 'memory'])))?.[1]);
  const shared = await openSharedState({ url: redisUrl, namespace: 'bench-memory' });
  const engine = createMockEngine({ ...shared.engineOptions, journalCapacity: 1 });
  await engine.control.synced();
  const before = await used();
  for (let done = 0; done < jobs; done += 50)
    await Promise.all(Array.from({ length: Math.min(50, jobs - done) }, () => engine.handle(post(freshKey()))));
  const after = await used();
  await shared.close();
  await probe.close();
  return ((after - before) / jobs) * 100_000;
}

export async function runStore(options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  if (!redisAvailable) {
    progress('store: redis-server is not installed; skipped');
    return { group: 'store', figures: {}, tables: {} };
  }
  const redis = await startTestRedis();
  const started: ChildServer[] = [];
  try {
    const memory = await startServer(servers['mock-quiet']);
    const single = await startServer(replica(redis.url, 'bench-single'));
    const pair = [await startServer(replica(redis.url, 'bench-pair')), await startServer(replica(redis.url, 'bench-pair'))];
    started.push(memory, single, ...pair);
    const figures: Record<string, number | null> = {};
    const rows: string[][] = [];
    for (const name of ['getJob', 'createEvaluation'] as const satisfies readonly WorkloadName[]) {
      const rps: number[] = [];
      for (const urls of [[memory.url], [single.url], pair.map((server) => server.url)]) {
        const requests = [requestOf(await workload(name, urls[0]!))];
        const loads = await Promise.all(
          urls.map((baseUrl) =>
            runLoad({ baseUrl, requests, connections: 50 / urls.length, durationS: options.durationS, amount: options.amount }),
          ),
        );
        rps.push(loads.some((load) => load.non2xx + load.errors > 0) ? Number.NaN : loads.reduce((sum, load) => sum + load.rps, 0));
        progress(
          `store ${name} on ${urls.length === 1 && urls[0] === memory.url ? 'memory' : `${urls.length} Redis replica(s)`}: ${Math.round(rps.at(-1)!)} req/s`,
        );
      }
      const [inMemory, onRedis, onTwo] = rps as [number, number, number];
      figures[`store.${name}.redisOverMemory`] = Number.isNaN(onRedis / inMemory) ? null : onRedis / inMemory;
      rows.push([name, num(inMemory), num(onRedis), num(onTwo), percent(onRedis / inMemory), percent(onTwo / inMemory)]);
    }
    const commands = await commandsPerRequest(redis.url, options.quick ? 50 : 1000);
    for (const [operation, counts] of Object.entries(commands)) figures[`store.${operation}.evalshaPerRequest`] = counts.EVALSHA ?? 0;
    const bytes = await bytesPer100kJobs(redis.url, options.quick ? 500 : 20_000);
    return {
      group: 'store',
      figures,
      tables: {
        store: {
          headers: [
            'Request (50 connections)',
            '1 replica, in memory req/s',
            '1 replica on Redis',
            '2 replicas on one Redis',
            '1 on Redis ÷ memory',
            '2 on Redis ÷ memory',
          ],
          rows,
          note: `Redis memory per 100,000 jobs with their idempotency keys: ${num(bytes / 2 ** 20)} MiB.`,
        },
        'store.commands': {
          headers: ['Operation', 'EVALSHA (awaited) per request', 'XADD (batched) per request'],
          rows: Object.entries(commands).map(([operation, counts]) => [operation, num(counts.EVALSHA ?? 0), num(counts.XADD ?? 0)]),
        },
      },
    };
  } finally {
    for (const server of started) await server.stop();
    await redis.close();
  }
}
