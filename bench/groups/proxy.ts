/**
 * @module bench/groups/proxy
 * The validating proxy's cost: the same traffic straight to a mock, through `evidence-harness
 * proxy` (plain, and holding the traffic to the mock's own learnt profile with `--profile`, issue
 * 42's drift watch) and through `prism proxy`, each in front of that mock. Throughput at 10 connections,
 * the paths taking turns for each workload, ratios taken within a round; CPU per request of the
 * mock and of the proxy; and the latency added, one request at a time over one keep-alive
 * connection, timed in µs (autocannon's whole-millisecond p50 under load measures queueing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AutocannonRequest } from 'autocannon';
import { executablePath } from '../../src/openapi/package-root.js';
import type { BenchOptions } from '../config.js';
import { type GroupResult, num, percent, times } from '../figures.js';
import { cpuPerRequestUs, evaluationBody, freshKey, median, requestOf, runLoad, type Workload, workload } from '../load.js';
import { type ChildServer, type Launch, prismProxy, prismVersion, processCpuMs, runNode, servers, startServer } from '../processes.js';

type Path = 'direct' | 'proxy' | 'proxy-profile' | 'prism-proxy';
type Traffic = 'health' | 'getJob' | 'createEvaluation' | 'mixed';
const json = { 'content-type': 'application/json' } as const;

/** A client's flow on each connection: health, a create, three polls of its job, a create without Idempotency-Key (400, expected). */
function mixedFlow(): AutocannonRequest[] {
  const poll: AutocannonRequest = {
    method: 'GET',
    path: '/health',
    setupRequest: (request, context) => ({ ...request, path: `/v0/jobs/${encodeURIComponent(String(context.jobId ?? 'none'))}` }),
  };
  const create: AutocannonRequest = {
    method: 'POST',
    path: '/v0/evaluations',
    headers: { ...json },
    body: evaluationBody,
    setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': freshKey() } }),
    onResponse: (_status, body, context) => {
      context.jobId = /"jobId":"([^"]+)"/.exec(body)?.[1];
    },
  };
  return [
    { method: 'GET', path: '/health' },
    create,
    poll,
    poll,
    poll,
    { method: 'POST', path: '/v0/evaluations', headers: { ...json }, body: evaluationBody },
  ];
}

const ourProxy =
  (upstream: string, profile?: string) =>
  (port: number): Launch => ({
    command: process.execPath,
    args: [
      executablePath(),
      'proxy',
      '--upstream',
      upstream,
      '--port',
      String(port),
      '--quiet',
      ...(profile ? ['--profile', profile] : []),
    ],
    display: `evidence-harness proxy --upstream MOCK --port PORT --quiet${profile ? ' --profile MOCK-PROFILE' : ''}`,
  });

/** The mock's own profile, learnt by a conformance run against it: every entry a run decides, declared. */
async function learntProfile(mockUrl: string, folder: string): Promise<string> {
  const file = join(folder, 'mock.profile.yaml');
  const run = await runNode({
    args: [executablePath(), 'conformance', '--base-url', mockUrl, '--seed', '1', '--quiet', '--write-profile', file],
    timeoutMs: 180_000,
  });
  if (run.code !== 0) throw new Error(`bench: the mock's profile was not learnt (exit ${run.code}): ${run.stderr.slice(0, 400)}`);
  return file;
}

/** One request over `agent`'s one connection: ms from sending to the answer's end. */
function timed(agent: http.Agent, baseUrl: string, request: Workload): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...request.headers };
    if (request.freshIdempotencyKey) headers['idempotency-key'] = freshKey();
    const started = performance.now();
    const call = http.request(`${baseUrl}${request.path}`, { method: request.method, agent, headers }, (response) => {
      response.resume();
      response.once('end', () => resolve(performance.now() - started));
    });
    call.once('error', reject);
    call.end(request.body);
  });
}

export async function runProxy(options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  const mock = await startServer(servers['mock-quiet']);
  const started: ChildServer[] = [mock];
  const folder = mkdtempSync(join(tmpdir(), 'eh-bench-proxy-'));
  const rounds = options.quick ? 1 : 2;
  const figures: Record<string, number | null> = {};
  const rows: string[][] = [];
  const latencyRows: string[][] = [];
  try {
    const paths = new Map<Path, ChildServer>([['direct', mock]]);
    paths.set('proxy', await startServer(ourProxy(mock.url)));
    paths.set('proxy-profile', await startServer(ourProxy(mock.url, await learntProfile(mock.url, folder))));
    if (!options.quick) paths.set('prism-proxy', await startServer(prismProxy(mock.url)));
    started.push(...[...paths.values()].slice(1));
    const single = {
      health: await workload('health', mock.url),
      getJob: await workload('getJob', mock.url),
      createEvaluation: await workload('createEvaluation', mock.url),
    };
    for (const traffic of ['health', 'getJob', 'createEvaluation', 'mixed'] as const satisfies readonly Traffic[]) {
      const requests = traffic === 'mixed' ? mixedFlow() : [requestOf(single[traffic])];
      const runs = new Map<Path, { rps: number; mockUs?: number; proxyUs?: number; unexpected: number }[]>();
      for (let round = 0; round < rounds; round += 1) {
        for (const [path, server] of paths) {
          if (round === 0 && !options.quick) await runLoad({ baseUrl: server.url, requests, connections: 10, durationS: 1 });
          const before = [processCpuMs(mock.pid), processCpuMs(server.pid)];
          const load = await runLoad({ baseUrl: server.url, requests, connections: 10, durationS: 2, amount: options.amount });
          const after = [processCpuMs(mock.pid), processCpuMs(server.pid)];
          const refusals = traffic === 'mixed' ? (load.statuses['400'] ?? 0) : 0;
          runs.set(path, [
            ...(runs.get(path) ?? []),
            {
              rps: load.rps,
              unexpected: load.non2xx - refusals + load.errors,
              ...(cpuPerRequestUs(before[0], after[0], load.total) === undefined
                ? {}
                : { mockUs: cpuPerRequestUs(before[0], after[0], load.total)! }),
              ...(path === 'direct' ? {} : { proxyUs: cpuPerRequestUs(before[1], after[1], load.total)! }),
            },
          ]);
          progress(`proxy ${traffic} ${path} round ${round + 1}: ${Math.round(load.rps)} req/s`);
        }
      }
      const of = (path: Path) => runs.get(path) ?? [];
      const ratio = (a: Path, b: Path) => {
        if (of(a).length === 0 || of(b).length === 0) return undefined;
        if ([...of(a), ...of(b)].some((run) => run.unexpected > 0)) return null;
        return median(of(a).map((run, index) => run.rps / (of(b)[index]?.rps ?? Number.NaN)));
      };
      const cell = (path: Path) => {
        const list = of(path);
        if (list.length === 0) return '—';
        const cpu = `mock ${num(median(list.flatMap((run) => run.mockUs ?? [])))}${path === 'direct' ? '' : ` + proxy ${num(median(list.flatMap((run) => run.proxyUs ?? [])))}`} µs`;
        return `${num(median(list.map((run) => run.rps)))} req/s (${cpu})`;
      };
      const overDirect = ratio('proxy', 'direct');
      const overPrism = ratio('proxy', 'prism-proxy');
      if (overDirect !== undefined) figures[`proxy.${traffic}.overDirect`] = overDirect;
      if (overPrism !== undefined) figures[`proxy.${traffic}.overPrismProxy`] = overPrism;
      const proxyUs = median(of('proxy').flatMap((run) => run.proxyUs ?? []));
      const profileUs = median(of('proxy-profile').flatMap((run) => run.proxyUs ?? []));
      const mockUs = median(of('direct').flatMap((run) => run.mockUs ?? []));
      figures[`proxy.${traffic}.proxyCpuUs`] = proxyUs;
      figures[`proxy.${traffic}.proxyCpuOverMock`] = proxyUs / mockUs;
      figures[`proxy.${traffic}.profileCpuOverPlain`] = profileUs / proxyUs;
      rows.push([
        traffic,
        cell('direct'),
        cell('proxy'),
        cell('proxy-profile'),
        cell('prism-proxy'),
        percent(overDirect),
        times(overPrism),
        times(profileUs / proxyUs),
      ]);
    }
    const lowest = (suffix: string) => {
      const values = Object.entries(figures)
        .filter(([id]) => id.endsWith(suffix))
        .map(([, value]) => value);
      if (values.length > 0)
        figures[`proxy.lowest${suffix[0]!.toUpperCase()}${suffix.slice(1)}`] = values.includes(null)
          ? null
          : Math.min(...(values as number[]));
    };
    lowest('overDirect');
    lowest('overPrismProxy');
    const profileRatios = Object.entries(figures)
      .filter(([id]) => id.endsWith('.profileCpuOverPlain'))
      .map(([, value]) => value as number);
    if (profileRatios.length > 0) figures['proxy.highestProfileCpuOverPlain'] = Math.max(...profileRatios);
    const added: number[] = [];
    for (const name of ['health', 'getJob', 'createEvaluation'] as const) {
      const p50 = new Map<Path, number>();
      for (const [path, server] of paths) {
        const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
        for (let index = 0; index < 10; index += 1) await timed(agent, server.url, single[name]);
        const samples: number[] = [];
        for (let index = 0; index < (options.quick ? 20 : 300); index += 1) samples.push(await timed(agent, server.url, single[name]));
        agent.destroy();
        p50.set(path, median(samples));
      }
      const direct = p50.get('direct')!;
      added.push(p50.get('proxy')! - direct);
      latencyRows.push([
        name,
        ...(['direct', 'proxy', 'proxy-profile', 'prism-proxy'] as const).map((path) =>
          num(p50.has(path) ? p50.get(path)! * 1000 : undefined),
        ),
        num(p50.get('proxy')! - direct, ' ms'),
      ]);
    }
    figures['proxy.latencyAddedP50Ms'] = Math.max(...added);
  } finally {
    for (const server of started.reverse()) await server.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  const heads = [
    'mock, direct',
    'through evidence-harness proxy',
    'through evidence-harness proxy --profile',
    `through prism proxy ${prismVersion}`,
  ];
  return {
    group: 'proxy',
    figures,
    tables: {
      proxy: {
        headers: ['Traffic (10 connections)', ...heads, 'proxy ÷ direct', 'proxy ÷ prism proxy', 'proxy CPU, --profile ÷ plain'],
        rows,
        note: "Requests per second, medians over the rounds, with CPU µs per request of each process in parentheses. `--profile` holds every answer to the mock's own learnt profile (its declared entries judged, no drift).",
      },
      'proxy.latency': {
        headers: ['Request', ...heads.map((head) => `${head}, p50 µs`), 'added by evidence-harness proxy'],
        rows: latencyRows,
      },
    },
  };
}
