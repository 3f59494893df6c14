/**
 * @module bench/groups/proxy
 * What the validating proxy costs (issue 14): the same workload sent straight to the mock, through
 * `evidence-harness proxy`, and through `prism proxy`, both proxies in front of that same mock.
 * The three take turns row by row, within seconds of each other, so that their ratios are taken
 * under the same conditions on a shared machine. Targets: latency added at p50 ≤ 1 ms on
 * loopback, throughput through the proxy ≥ 50% of direct and ≥ 3× Prism's proxy.
 */
import { join } from 'node:path';
import { executablePath, packageRoot } from '../../src/openapi/package-root.js';
import type { BenchConfig } from '../bench-config.js';
import { type ChildServer, startChild } from '../child-server.js';
import { freePort } from '../free-port.js';
import { type LoadResult, runLoad } from '../load.js';
import { startTarget } from '../servers.js';
import { existingJobId, getJobWorkload, prepareWorkloads, type WorkloadName } from '../workloads.js';

export type ProxyPath = 'direct' | 'proxy' | 'prism-proxy';

export const proxyPathLabels: Record<ProxyPath, string> = {
  direct: 'mock, direct',
  proxy: 'through evidence-harness proxy',
  'prism-proxy': 'through prism proxy 5.14.2',
};

export interface ProxyRow {
  readonly path: ProxyPath;
  readonly workload: WorkloadName;
  readonly connections: number;
  readonly result: LoadResult;
}

export interface ProxyResult {
  readonly rows: readonly ProxyRow[];
  /** How each path was started, as a person types it. */
  readonly commands: Record<ProxyPath, string>;
}

const proxyWorkloads: readonly WorkloadName[] = ['health', 'getJob', 'createEvaluation'];

export async function runProxy(config: BenchConfig, progress: (line: string) => void): Promise<ProxyResult> {
  const root = packageRoot();
  const upstream = await startTarget('mock');
  const started: ChildServer[] = [upstream];
  const rows: ProxyRow[] = [];
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
    const paths: [ProxyPath, string][] = [
      ['direct', upstream.url],
      ['proxy', ours.url],
    ];
    if (!config.smoke) {
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
      paths.push(['prism-proxy', prism.url]);
    }
    const workloads = await prepareWorkloads(upstream.url);
    const connections = config.smoke ? 2 : 10;
    for (const name of proxyWorkloads) {
      // One job for every path: the proxies forward to the same mock.
      const workload = name === 'getJob' ? getJobWorkload(await existingJobId(upstream.url)) : workloads[name];
      for (const [path, url] of paths) {
        const load = { baseUrl: url, workload, connections };
        if (config.warmupS > 0) await runLoad({ ...load, durationS: config.warmupS });
        const result = await runLoad({
          ...load,
          durationS: config.durationS,
          ...(config.amount === undefined ? {} : { amount: config.amount }),
        });
        progress(`proxy ${path} ${name} c=${connections}: ${Math.round(result.rps)} req/s, p50 ${result.p50Ms} ms`);
        rows.push({ path, workload: name, connections, result });
      }
    }
  } finally {
    for (const server of started.reverse()) await server.stop();
  }
  return {
    rows,
    commands: {
      direct: 'node dist/cli/evidence-harness.js mock --port PORT --quiet',
      proxy: 'node dist/cli/evidence-harness.js proxy --upstream http://127.0.0.1:MOCK --port PORT --quiet',
      'prism-proxy': 'npx prism proxy spec/openapi.yaml http://127.0.0.1:MOCK -p PORT -h 127.0.0.1 -v silent --no-multiprocess',
    },
  };
}
