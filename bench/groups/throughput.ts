/**
 * @module bench/groups/throughput
 * The headline: the mock as a user starts it (request log on, drained through a pipe; coverage
 * and the client judge on, as by default) against bare node:http, the same mock with --quiet,
 * and Prism in each configuration, at 50 connections. All servers run side by side and take
 * turns request by request, the order reversed each round, so the figures of one ratio are
 * seconds apart; ratios are taken within a round and the median kept. CPU per request (from
 * /proc) is the headline because the load generator shares the two cores and bounds rates.
 */
import type { BenchOptions } from '../config.js';
import { type GroupResult, num, percent, type Table, times } from '../figures.js';
import { cpuPerRequestUs, type LoadResult, median, requestOf, runLoad, type WorkloadName, workload, workloadNames } from '../load.js';
import {
  bareWorkUs,
  type ChildServer,
  prismConfigurations,
  prismVersion,
  processCpuMs,
  type ServerName,
  servers,
  startServer,
} from '../processes.js';

const connections = 50;

interface Sample {
  readonly load: LoadResult;
  readonly cpuUs: number | undefined;
  /** Share of one core the server used over the run. */
  readonly busy: number | undefined;
}

const flawed = (sample: Sample) => sample.load.non2xx + sample.load.errors > 0;

export async function runThroughput(options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  const names: ServerName[] = ['mock', 'mock-quiet', 'bare', ...(options.quick ? [] : ['bare-work' as const, ...prismConfigurations])];
  const rounds = options.quick ? 1 : 2;
  const started = new Map<ServerName, ChildServer>();
  const samples = new Map<string, Sample[]>();
  try {
    for (const name of names) started.set(name, await startServer(servers[name]));
    for (const name of workloadNames) {
      for (let round = 0; round < rounds; round += 1) {
        for (const server of round % 2 === 0 ? names : [...names].reverse()) {
          const { url, pid } = started.get(server)!;
          const requests = [requestOf(await workload(name, url))];
          if (round === 0 && !options.quick) await runLoad({ baseUrl: url, requests, connections, durationS: 1 });
          const before = processCpuMs(pid);
          const startedAt = performance.now();
          const load = await runLoad({ baseUrl: url, requests, connections, durationS: options.durationS, amount: options.amount });
          const wallMs = performance.now() - startedAt;
          const after = processCpuMs(pid);
          const cpuUs = cpuPerRequestUs(before, after, load.total);
          const busy = before === undefined || after === undefined ? undefined : (after - before) / wallMs;
          samples.set(`${server} ${name}`, [...(samples.get(`${server} ${name}`) ?? []), { load, cpuUs, busy }]);
          progress(`throughput ${name} ${server} round ${round + 1}: ${Math.round(load.rps)} req/s, ${num(cpuUs)} µs CPU/req`);
        }
      }
    }
  } finally {
    for (const server of started.values()) await server.stop();
  }
  return summarise({ names, rounds, samples, options });
}

function summarise(options: { names: readonly ServerName[]; rounds: number; samples: Map<string, Sample[]>; options: BenchOptions }) {
  const { names, samples } = options;
  const of = (server: ServerName, name: WorkloadName) => samples.get(`${server} ${name}`) ?? [];
  const anyFlawed = (...list: Sample[][]) => list.some((runs) => runs.some(flawed));
  /** The median over the rounds of a per-round ratio; null when a run it rests on failed requests. */
  const ratio = (a: Sample[], b: Sample[], pick: (sample: Sample) => number | undefined): number | null | undefined => {
    if (a.length === 0 || b.length === 0) return undefined;
    if (anyFlawed(a, b)) return null;
    const ratios = a.flatMap((sample, index) => {
      const [x, y] = [pick(sample), b[index] ? pick(b[index]!) : undefined];
      return x === undefined || y === undefined || y === 0 ? [] : [x / y];
    });
    return ratios.length > 0 ? median(ratios) : undefined;
  };
  const rps = (sample: Sample) => sample.load.rps;
  const cpu = (sample: Sample) => sample.cpuUs;
  const medianOf = (runs: Sample[], pick: (sample: Sample) => number | undefined) => {
    const values = runs.flatMap((sample) => pick(sample) ?? []);
    return values.length > 0 ? median(values) : undefined;
  };
  const figures: Record<string, number | null> = {};
  const set = (id: string, value: number | null | undefined) => {
    if (value !== undefined) figures[id] = value;
  };
  const headline: string[][] = [];
  const all: string[][] = [];
  const stages: string[][] = [];
  const logs: string[][] = [];
  for (const name of workloadNames) {
    const [mock, quiet, bare] = [of('mock', name), of('mock-quiet', name), of('bare', name)];
    const prisms = prismConfigurations.filter((server) => names.includes(server));
    const fastest = prisms.sort((a, b) => (medianOf(of(b, name), rps) ?? 0) - (medianOf(of(a, name), rps) ?? 0))[0];
    const prefix = `throughput.${name}`;
    set(`${prefix}.mockCpuUs`, medianOf(mock, cpu));
    set(`${prefix}.bareCpuUs`, medianOf(bare, cpu));
    set(`${prefix}.cpuOverBare`, ratio(mock, bare, cpu));
    if (names.includes('bare-work')) set(`${prefix}.bareWorkCpuOverBare`, ratio(of('bare-work', name), bare, cpu));
    set(`${prefix}.rpsOverBare`, ratio(mock, bare, rps));
    if (names.includes('prism')) set(`${prefix}.rpsOverPrism`, ratio(mock, of('prism', name), rps));
    if (fastest) set(`${prefix}.rpsOverPrismFastest`, ratio(mock, of(fastest, name), rps));
    set(`${prefix}.logsOverQuiet`, ratio(mock, quiet, rps));
    set(
      `${prefix}.logLineCpuUs`,
      anyFlawed(mock, quiet) ? null : (medianOf(mock, cpu) ?? Number.NaN) - (medianOf(quiet, cpu) ?? Number.NaN),
    );
    headline.push([
      name,
      num(medianOf(mock, cpu)),
      num(medianOf(bare, cpu)),
      times(figures[`${prefix}.cpuOverBare`]),
      times(figures[`${prefix}.bareWorkCpuOverBare`]),
      num(medianOf(mock, rps)),
      percent(figures[`${prefix}.rpsOverBare`]),
      times(figures[`${prefix}.rpsOverPrism`]),
      fastest ? `${times(figures[`${prefix}.rpsOverPrismFastest`])} (${fastest})` : '—',
    ]);
    for (const server of names) {
      const runs = of(server, name);
      const bad = runs.reduce((sum, sample) => sum + sample.load.non2xx + sample.load.errors, 0);
      all.push([
        name,
        server,
        num(medianOf(runs, rps)),
        `${medianOf(runs, (sample) => sample.load.p50Ms)} / ${medianOf(runs, (sample) => sample.load.p99Ms)}`,
        num(medianOf(runs, cpu)),
        percent(medianOf(runs, (sample) => sample.busy)),
        bad > 0 ? `⚠ ${bad}` : '0',
      ]);
    }
    const [bareUs, quietUs, mockUs] = [medianOf(bare, cpu), medianOf(quiet, cpu), medianOf(mock, cpu)];
    stages.push([
      name,
      num(bareUs),
      num(quietUs !== undefined && bareUs !== undefined ? quietUs - bareUs : undefined),
      num(figures[`${prefix}.logLineCpuUs`]),
      num(mockUs),
    ]);
    logs.push([name, num(medianOf(quiet, rps)), num(medianOf(mock, rps)), percent(figures[`${prefix}.logsOverQuiet`])]);
  }
  const worstLogs = Math.min(...workloadNames.flatMap((name) => figures[`throughput.${name}.logsOverQuiet`] ?? []));
  if (Number.isFinite(worstLogs)) figures['throughput.logsOverQuietLowest'] = worstLogs;
  const setting = `${connections} connections, ${options.options.quick ? `${options.options.amount} requests` : `${options.options.durationS} s`} per run, ${options.rounds} round(s)`;
  const tables: Record<string, Table> = {
    'throughput.headline': {
      headers: [
        'Request',
        'mock CPU µs/req',
        'bare CPU µs/req',
        'mock ÷ bare (CPU)',
        `bare + ${bareWorkUs} µs of work ÷ bare (CPU)`,
        'mock req/s',
        'mock % of bare req/s',
        '× Prism default',
        '× Prism fastest',
      ],
      rows: headline,
      note: `${setting}. The mock is \`${servers.mock(0).display}\`; Prism ${prismVersion}. "bare + ${bareWorkUs} µs of work" is the bare server spinning ${bareWorkUs} µs before each answer: what any work at all costs over HTTP here.`,
    },
    'throughput.servers': {
      headers: ['Request', 'Server', 'req/s', 'p50 / p99 ms', 'CPU µs/req', 'busy (one core = 100%)', 'failed'],
      rows: all,
      note: `Servers: ${names.map((name) => `${name} \`${servers[name](0).display}\``).join('; ')}.`,
    },
    'throughput.http-stages': {
      headers: [
        'Request',
        'HTTP edge (bare node:http)',
        'adapter + engine (--quiet − bare)',
        'log line (logs on − --quiet)',
        'mock, logs on',
      ],
      rows: stages,
      note: 'Server CPU µs per request, medians over the rounds.',
    },
    'throughput.logs': { headers: ['Request', '--quiet req/s', 'logs on req/s', 'logs on ÷ --quiet'], rows: logs },
  };
  return { group: 'throughput', figures, tables } satisfies GroupResult;
}
