/**
 * @module bench/groups/proxy
 * What the validating proxy costs (issue 14): the same traffic sent straight to the mock, through
 * `evidence-harness proxy`, and through `prism proxy`, both proxies in front of that same mock.
 *
 * Two measures. Throughput: autocannon at 10 connections on each workload (health, getJob,
 * createEvaluation, and a mixed client flow: health, a create, three polls of the job it made, and
 * a create without its Idempotency-Key that must be refused). Added latency: one request at a
 * time over one keep-alive connection, timed in microseconds, the proxy's p50 minus the direct
 * p50 — autocannon's whole-millisecond p50 under load measures queueing, not what the proxy adds.
 * The paths take turns, row by row, for several rounds, and every figure is the median over the
 * rounds (ratios are taken within a round), so that they are compared under the same conditions
 * on a shared machine. Targets: latency added at p50 ≤ 1 ms on loopback, throughput through the
 * proxy ≥ 50% of direct and ≥ 3× Prism's proxy.
 */
import http from 'node:http';
import { join } from 'node:path';
import type { AutocannonRequest } from 'autocannon';
import { executablePath, packageRoot } from '../../src/openapi/package-root.js';
import type { BenchConfig } from '../bench-config.js';
import { type ChildServer, startChild } from '../child-server.js';
import { freePort } from '../free-port.js';
import { type LoadResult, runLoad } from '../load.js';
import { processCpuMs } from '../process-cpu.js';
import { startTarget } from '../servers.js';
import { evaluationBody, existingJobId, freshKey, getJobWorkload, prepareWorkloads, type Workload } from '../workloads.js';

export type ProxyPath = 'direct' | 'proxy' | 'prism-proxy';

export const proxyPathLabels: Record<ProxyPath, string> = {
  direct: 'mock, direct',
  proxy: 'through evidence-harness proxy',
  'prism-proxy': 'through prism proxy 5.14.2',
};

export type ProxyWorkload = 'health' | 'getJob' | 'createEvaluation' | 'mixed';

export interface ProxyRow {
  readonly path: ProxyPath;
  readonly workload: ProxyWorkload;
  readonly connections: number;
  /** Each round's run, in order. */
  readonly rounds: readonly LoadResult[];
  /** Medians over the rounds. */
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Answers other than the workload's expected ones (2xx, and the mixed flow's 400s), transport errors and timeouts, over all rounds. */
  readonly unexpected: number;
  /**
   * CPU time per request (user + system, from /proc, in µs), median over the rounds: the mock's,
   * and the proxy's on a path through one. What bounds the throughput ratios on a shared machine.
   */
  readonly mockCpuUs?: number;
  readonly proxyCpuUs?: number;
}

export interface ProxyLatencyRow {
  readonly path: ProxyPath;
  readonly workload: ProxyWorkload;
  /** Median over the rounds of each round's p50 and p99, one request at a time, in microseconds. */
  readonly p50Us: number;
  readonly p99Us: number;
  readonly samples: number;
}

export interface ProxyResult {
  readonly rows: readonly ProxyRow[];
  readonly latency: readonly ProxyLatencyRow[];
  readonly rounds: number;
  /** Per workload and round: proxy rps ÷ direct rps, and proxy rps ÷ prism proxy rps. */
  readonly ratios: readonly { workload: ProxyWorkload; proxyOverDirect: number[]; proxyOverPrism: number[] }[];
  /** How each path was started, as a person types it. */
  readonly commands: Record<ProxyPath, string>;
}

const json = { 'content-type': 'application/json' } as const;

/**
 * A client's flow, as each autocannon connection repeats it: health, a create under a new key,
 * three polls of the job it created, and a create without its Idempotency-Key (answered 400).
 */
function mixedFlow(): AutocannonRequest[] {
  const poll: AutocannonRequest = {
    method: 'GET',
    path: '/health',
    setupRequest: (request, context) => ({ ...request, path: `/v0/jobs/${encodeURIComponent(String(context.jobId ?? 'none'))}` }),
  };
  return [
    { method: 'GET', path: '/health' },
    {
      method: 'POST',
      path: '/v0/evaluations',
      headers: { ...json },
      body: evaluationBody,
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': freshKey() } }),
      onResponse: (_status, body, context) => {
        try {
          context.jobId = (JSON.parse(body) as { jobId?: string }).jobId;
        } catch {
          context.jobId = undefined;
        }
      },
    },
    poll,
    poll,
    poll,
    { method: 'POST', path: '/v0/evaluations', headers: { ...json }, body: evaluationBody },
  ];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

/** CPU µs per request between two /proc readings, under `name`; nothing where /proc is not there. */
function perRequestUs(name: 'mockUs' | 'proxyUs', beforeMs: number | undefined, afterMs: number | undefined, requests: number) {
  return beforeMs === undefined || afterMs === undefined || requests === 0 ? {} : { [name]: ((afterMs - beforeMs) * 1000) / requests };
}

/** Answers a workload did not expect: any non-2xx (the mixed flow expects its 400s), errors, timeouts. */
function unexpectedOf(workload: ProxyWorkload, result: LoadResult): number {
  const expectedRefusals = workload === 'mixed' ? (result.statuses['400'] ?? 0) : 0;
  return result.non2xx - expectedRefusals + result.errors + result.timeouts;
}

/** One request at a time over one keep-alive connection: the time from sending to the answer's end, in ms. */
function timedRequest(agent: http.Agent, baseUrl: string, workload: Workload): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = workload.body;
    const headers: Record<string, string> = { ...workload.headers };
    if (workload.freshIdempotencyKey) headers['idempotency-key'] = freshKey();
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const started = performance.now();
    const request = http.request(`${baseUrl}${workload.path}`, { method: workload.method, agent, headers }, (response) => {
      response.resume();
      response.once('end', () => resolve(performance.now() - started));
    });
    request.once('error', reject);
    request.end(body);
  });
}

export async function runProxy(config: BenchConfig, progress: (line: string) => void): Promise<ProxyResult> {
  const root = packageRoot();
  const upstream = await startTarget('mock');
  const started: ChildServer[] = [upstream];
  const rows: ProxyRow[] = [];
  const latency: ProxyLatencyRow[] = [];
  const ratios: ProxyResult['ratios'][number][] = [];
  const rounds = config.smoke ? 1 : 3;
  const agents: http.Agent[] = [];
  try {
    const ourPort = await freePort();
    const ours = await startChild({
      command: process.execPath,
      args: [executablePath(), 'proxy', '--upstream', upstream.url, '--port', String(ourPort), '--quiet'],
      port: ourPort,
      cwd: root,
      timeoutMs: 30_000,
    });
    started.push(ours);
    const proxyPids: Partial<Record<ProxyPath, number>> = { proxy: ours.pid };
    const paths: [ProxyPath, string][] = [
      ['direct', upstream.url],
      ['proxy', ours.url],
    ];
    if (!config.smoke) {
      // Prism has no "port 0": a port found free by binding and releasing it.
      const prismPort = await freePort();
      const prism = await startChild({
        command: process.execPath,
        args: [
          join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'),
          'proxy',
          join(root, 'spec/openapi.yaml'),
          upstream.url,
          '-p',
          String(prismPort),
          '-h',
          '127.0.0.1',
          '-v',
          'silent',
          '--no-multiprocess',
        ],
        port: prismPort,
        cwd: root,
        timeoutMs: 30_000,
      });
      started.push(prism);
      proxyPids['prism-proxy'] = prism.pid;
      paths.push(['prism-proxy', prism.url]);
    }
    const workloads = await prepareWorkloads(upstream.url);
    // One job for every path: the proxies forward to the same mock.
    const single: Record<Exclude<ProxyWorkload, 'mixed'>, Workload> = {
      health: workloads.health,
      getJob: getJobWorkload(await existingJobId(upstream.url)),
      createEvaluation: workloads.createEvaluation,
    };
    const connections = config.smoke ? 2 : 10;
    const durationS = config.smoke ? 0 : 2;
    const names: ProxyWorkload[] = ['health', 'getJob', 'createEvaluation', 'mixed'];
    for (const name of names) {
      const results = new Map<ProxyPath, LoadResult[]>(paths.map(([path]) => [path, []]));
      const cpu = new Map<ProxyPath, { mockUs?: number; proxyUs?: number }[]>(paths.map(([path]) => [path, []]));
      for (let round = 0; round < rounds; round += 1) {
        for (const [path, url] of paths) {
          const load = {
            baseUrl: url,
            workload: name === 'mixed' ? single.health : single[name],
            connections,
            ...(name === 'mixed' ? { requests: mixedFlow() } : {}),
          };
          if (round === 0 && config.warmupS > 0) await runLoad({ ...load, durationS: config.warmupS });
          const proxyPid = proxyPids[path];
          const before = { mock: processCpuMs(upstream.pid), proxy: proxyPid === undefined ? undefined : processCpuMs(proxyPid) };
          const result = await runLoad({ ...load, durationS, ...(config.amount === undefined ? {} : { amount: config.amount }) });
          const after = { mock: processCpuMs(upstream.pid), proxy: proxyPid === undefined ? undefined : processCpuMs(proxyPid) };
          results.get(path)!.push(result);
          cpu.get(path)!.push({
            ...perRequestUs('mockUs', before.mock, after.mock, result.total),
            ...perRequestUs('proxyUs', before.proxy, after.proxy, result.total),
          });
          progress(`proxy ${path} ${name} c=${connections} round ${round + 1}: ${Math.round(result.rps)} req/s, p50 ${result.p50Ms} ms`);
        }
      }
      for (const [path] of paths) {
        const runs = results.get(path)!;
        const mockCpu = cpu.get(path)!.flatMap((entry) => (entry.mockUs === undefined ? [] : [entry.mockUs]));
        const proxyCpu = cpu.get(path)!.flatMap((entry) => (entry.proxyUs === undefined ? [] : [entry.proxyUs]));
        rows.push({
          path,
          workload: name,
          connections,
          rounds: runs,
          rps: median(runs.map((run) => run.rps)),
          p50Ms: median(runs.map((run) => run.p50Ms)),
          p99Ms: median(runs.map((run) => run.p99Ms)),
          unexpected: runs.reduce((sum, run) => sum + unexpectedOf(name, run), 0),
          ...(mockCpu.length > 0 ? { mockCpuUs: median(mockCpu) } : {}),
          ...(proxyCpu.length > 0 ? { proxyCpuUs: median(proxyCpu) } : {}),
        });
      }
      const per = (path: ProxyPath) => results.get(path) ?? [];
      ratios.push({
        workload: name,
        proxyOverDirect: per('proxy').map((run, index) => run.rps / (per('direct')[index]?.rps ?? Number.NaN)),
        proxyOverPrism: per('prism-proxy').map((run, index) => (per('proxy')[index]?.rps ?? Number.NaN) / run.rps),
      });
    }

    // Added latency: one request at a time, the paths taking turns in blocks, over the rounds.
    const perBlock = config.smoke ? 20 : 100;
    const blocks = config.smoke ? 1 : 3;
    for (const name of ['health', 'getJob', 'createEvaluation'] as const) {
      const workload = single[name];
      const byPath = new Map<ProxyPath, { p50: number[]; p99: number[]; samples: number }>(
        paths.map(([path]) => [path, { p50: [], p99: [], samples: 0 }]),
      );
      for (let round = 0; round < rounds; round += 1) {
        const times = new Map<ProxyPath, number[]>(paths.map(([path]) => [path, []]));
        const roundAgents = new Map<ProxyPath, http.Agent>();
        for (const [path, url] of paths) {
          const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
          agents.push(agent);
          roundAgents.set(path, agent);
          // Warm the connection and the path before timing it.
          for (let index = 0; index < 10; index += 1) await timedRequest(agent, url, workload);
        }
        for (let block = 0; block < blocks; block += 1) {
          for (const [path, url] of paths) {
            const agent = roundAgents.get(path)!;
            for (let index = 0; index < perBlock; index += 1) times.get(path)!.push(await timedRequest(agent, url, workload));
          }
        }
        for (const [path] of paths) {
          const values = times.get(path)!;
          const entry = byPath.get(path)!;
          entry.p50.push(percentile(values, 50) * 1000);
          entry.p99.push(percentile(values, 99) * 1000);
          entry.samples += values.length;
        }
        for (const agent of roundAgents.values()) agent.destroy();
      }
      for (const [path] of paths) {
        const entry = byPath.get(path)!;
        latency.push({ path, workload: name, p50Us: median(entry.p50), p99Us: median(entry.p99), samples: entry.samples });
      }
      const of = (path: ProxyPath) => latency.find((row) => row.path === path && row.workload === name);
      progress(
        `proxy latency ${name}: p50 direct ${Math.round(of('direct')?.p50Us ?? 0)} µs, proxy ${Math.round(of('proxy')?.p50Us ?? 0)} µs${of('prism-proxy') ? `, prism proxy ${Math.round(of('prism-proxy')!.p50Us)} µs` : ''}`,
      );
    }
  } finally {
    for (const agent of agents) agent.destroy();
    for (const server of started.reverse()) await server.stop();
  }
  return {
    rows,
    latency,
    rounds,
    ratios,
    commands: {
      direct: 'node dist/cli/evidence-harness.js mock --port PORT --quiet',
      proxy: 'node dist/cli/evidence-harness.js proxy --upstream http://127.0.0.1:MOCK --port PORT --quiet',
      'prism-proxy': 'npx prism proxy spec/openapi.yaml http://127.0.0.1:MOCK -p PORT -h 127.0.0.1 -v silent --no-multiprocess',
    },
  };
}
