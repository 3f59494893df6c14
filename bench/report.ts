/**
 * @module bench/report
 * docs/performance.md from one run's measurements: the machine, the targets' verdicts, one
 * table per group with the command that re-runs each row, how it was measured, and the
 * hand-written notes (bench/performance-notes.md) on what was changed for performance.
 */
import { type BenchConfig, rowCommand } from './bench-config.js';
import type { ConformanceResult } from './groups/conformance.js';
import { median } from './groups/logs.js';
import { type ProxyResult, proxyPathLabels } from './groups/proxy.js';
import { type StoreResult, type StoreRow, storeSetupLabels } from './groups/store.js';
import type { ThroughputRow } from './groups/throughput.js';
import { code, fixed, integer, percent, ratio, table } from './markdown.js';
import { launchFor, launchMockLogged, targetLabels } from './servers.js';
import { cpuPerRequestUs, judgedConnections, judgeTargets, type Measurements } from './targets.js';

export interface Machine {
  readonly node: string;
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGb: number;
  readonly platform: string;
  /** 1-minute load average at the start and end of the run: other work on the machine. */
  readonly loadBefore: number;
  readonly loadAfter: number;
  readonly date: string;
  readonly durationS: number;
}

export interface Report extends Measurements {
  readonly config: BenchConfig;
  readonly machine: Machine;
  readonly conformance?: ConformanceResult;
  readonly proxy?: ProxyResult;
  readonly store?: StoreResult;
  readonly notes: string;
  /** An earlier run's figures (BENCH_JSON output) to compare with: the code before the performance work. */
  readonly baseline?: Baseline;
}

/** What BENCH_JSON holds: a run's figures without its notes. */
export type Baseline = Omit<Report, 'notes' | 'baseline'>;

function cellOf(row: ThroughputRow | undefined): { rps: string; latency: string } {
  if (!row) return { rps: '—', latency: '—' };
  const { result } = row;
  const flawed = result.non2xx + result.errors + result.timeouts > 0 ? ' ⚠' : '';
  return {
    rps: `${integer(result.rps)} ±${integer(result.rpsStddev)}${flawed}`,
    latency: `${result.p50Ms} / ${result.p99Ms}`,
  };
}

function throughputSection(report: Report): string {
  const rows = report.throughput ?? [];
  const find = (target: string, workload: string, connections: number) =>
    rows.find((row) => row.target === target && row.workload === workload && row.connections === connections);
  const body = report.config.workloads.flatMap((workload) =>
    report.config.connections.map((connections) => {
      const mock = find('mock', workload, connections);
      const prism = find('prism', workload, connections);
      const bare = find('bare', workload, connections);
      const [m, p, b] = [cellOf(mock), cellOf(prism), cellOf(bare)];
      return [
        workload,
        String(connections),
        m.rps,
        m.latency,
        p.rps,
        p.latency,
        b.rps,
        b.latency,
        ratio(mock?.result.rps, prism?.result.rps),
        bare && mock ? percent(mock.result.rps, bare.result.rps) : 'n/a',
        ratio(bare?.result.rps, prism?.result.rps),
        code(rowCommand({ group: 'throughput', workload, connections })),
      ];
    }),
  );
  const flawed = rows.filter((row) => row.result.non2xx + row.result.errors + row.result.timeouts > 0);
  const warnings = flawed.map(
    (row) =>
      `- ⚠ ${targetLabels[row.target]} ${row.workload} at ${row.connections} connections: ` +
      `${row.result.non2xx} non-2xx answers, ${row.result.errors} errors, ${row.result.timeouts} timeouts of ${row.result.total} requests.`,
  );
  return [
    '## Throughput over loopback (autocannon)',
    '',
    `Requests per second (mean over the run, ± the standard deviation of autocannon's 1-s samples) and latency p50 / p99 in ms. ` +
      `${report.config.durationS} s measured per row after ${report.config.warmupS} s of unmeasured warm-up, pipelining 1; ` +
      'the three servers run side by side (idle while another is measured) and take turns row by row, so the figures of one ratio are seconds apart. ' +
      'mock/Prism and mock/bare are ratios of requests per second in this run; bare/Prism is the most any Node server could reach over Prism here. ' +
      'Every request of the createEvaluation rows carries a new Idempotency-Key, so each one stores a new job; getJob reads one job created before the row.',
    '',
    table(
      [
        'Request',
        'Conn.',
        'mock req/s',
        'mock p50 / p99',
        'Prism req/s',
        'Prism p50 / p99',
        'bare req/s',
        'bare p50 / p99',
        'mock/Prism',
        'mock/bare',
        'bare/Prism',
        'Reproduce',
      ],
      body,
    ),
    '',
    ...(warnings.length > 0
      ? [...warnings, '']
      : ['Every request of every row was answered 2xx, without transport errors or timeouts.', '']),
    'Servers: mock ' +
      code(launchFor('mock', 0).display) +
      '; Prism ' +
      code(launchFor('prism', 0).display) +
      ' (run through its JS entry, node_modules/@stoplight/prism-cli/dist/index.js); bare ' +
      code('node dist/bench/children/bare-server.js --port PORT') +
      '. By hand, a GET row is ' +
      code('npx autocannon -c 50 -d 3 http://127.0.0.1:PORT/health') +
      "; createEvaluation's new key per request is autocannon's " +
      code("-I -H 'idempotency-key: [<id>]'") +
      '.',
  ].join('\n');
}

/** Microseconds of the server's CPU per answered request, and how busy the server was. */
function cpuOf(row: ThroughputRow | undefined): { perRequestUs: number; busy: number } | undefined {
  const perRequestUs = cpuPerRequestUs(row);
  if (perRequestUs === undefined || !row?.serverCpu) return undefined;
  return { perRequestUs, busy: row.serverCpu.cpuMs / row.serverCpu.wallMs };
}

function cpuSection(report: Report): string | undefined {
  const rows = report.throughput ?? [];
  if (!rows.some((row) => row.serverCpu)) return undefined;
  const find = (target: string, workload: string, connections: number) =>
    cpuOf(rows.find((row) => row.target === target && row.workload === workload && row.connections === connections));
  const cell = (cpu: ReturnType<typeof cpuOf>) => (cpu ? `${fixed(cpu.perRequestUs)} (${(cpu.busy * 100).toFixed(0)}%)` : '—');
  const body = report.config.workloads.flatMap((workload) =>
    report.config.connections.map((connections) => {
      const [mock, prism, bare] = (['mock', 'prism', 'bare'] as const).map((target) => find(target, workload, connections));
      return [
        workload,
        String(connections),
        cell(mock),
        cell(prism),
        cell(bare),
        ratio(prism?.perRequestUs, mock?.perRequestUs),
        ratio(mock?.perRequestUs, bare?.perRequestUs),
      ];
    }),
  );
  return [
    '## Server CPU per request',
    '',
    "The same rows as above, counted differently: the CPU time (user + system, from /proc/PID/stat) each server's process used during " +
      'the measured run, divided by the requests it answered, in µs, with how busy the server was over the run in parentheses ' +
      '(100% = one core). A server near 100% is limited by its own work; well below, by the load generator. ' +
      'Prism ÷ mock is how many times the mock’s CPU Prism spends on one request; mock ÷ bare, the mock’s cost over a server that does nothing.',
    '',
    table(['Request', 'Conn.', 'mock µs (busy)', 'Prism µs (busy)', 'bare µs (busy)', 'Prism ÷ mock', 'mock ÷ bare'], body),
  ].join('\n');
}

function logsSection(report: Report): string {
  const logs = report.logs!;
  const body = logs.rows.map((row) => {
    const cpu = (side: typeof row.quiet) => (side.cpuUs.length > 0 ? fixed(median(side.cpuUs)) : '—');
    const flawed = row.quiet.failures + row.logged.failures > 0 ? ' ⚠' : '';
    return [
      row.workload,
      String(row.connections),
      integer(median(row.quiet.rps)),
      integer(median(row.logged.rps)),
      `${percent(median(row.ratios), 1)}${flawed}`,
      row.ratios.map((value) => percent(value, 1)).join(', '),
      cpu(row.quiet),
      cpu(row.logged),
      code(rowCommand({ group: 'logs', workload: row.workload })),
    ];
  });
  return [
    '## Request logs on vs --quiet',
    '',
    'The mock as `evidence-harness mock` runs by default, writing one log line per request to a stdout that `cat` reads through a pipe (' +
      code(launchMockLogged(0).display) +
      '), against the same mock with ' +
      code('--quiet') +
      `, in ${logs.rounds} round(s) of ${logs.durationS > 0 ? `${logs.durationS} s` : 'a few hundred requests'} each, taking turns (the order swapped each round). ` +
      'Requests per second and server CPU per request are medians over the rounds; "logs on ÷ quiet" is the median of the rounds\' ratios. ' +
      'Log lines are written in batches (src/cli/buffered-lines.ts): at most 10 ms after the first, or at once past 64 KiB.',
    '',
    table(
      [
        'Request',
        'Conn.',
        '--quiet req/s',
        'logs on req/s',
        'logs on ÷ quiet',
        'Each round',
        '--quiet CPU µs/req',
        'logs on CPU µs/req',
        'Reproduce',
      ],
      body,
    ),
  ].join('\n');
}

function startupSection(report: Report): string {
  const rows = report.startup ?? [];
  const bare = rows.find((row) => row.target === 'bare');
  return [
    '## Start-up: process start to the first 200 on /health',
    '',
    `Spawn to the first 200 answer on GET /health, polled every 5 ms; ${report.config.startupRuns} starts each, the servers taking turns.`,
    '',
    table(
      ['Server', 'Median ms', 'Each start, ms', '× bare', 'Reproduce'],
      rows.map((row) => [
        row.label,
        fixed(row.medianMs, 0),
        row.runsMs.map((value) => value.toFixed(0)).join(', '),
        bare ? ratio(row.medianMs, bare.medianMs) : 'n/a',
        code(row.command),
      ]),
    ),
  ].join('\n');
}

function mswSection(report: Report): string {
  const msw = report.msw!;
  return [
    '## MSW in-process (setupServer)',
    '',
    `One process, one setupServer, one fetch loop (${msw.concurrency} requests in flight), the handler set swapped between samples: ` +
      "the engine's handlers (" +
      code("createHandlers({ baseUrl: 'http://bench.test', controlApi: false })") +
      ') against a trivial ' +
      code("http.all('http://bench.test/*', () => HttpResponse.json({ status: 'ok' }))") +
      `. Mean of ${msw.samples} samples of ${msw.durationMs} ms each, alternating, after a warm-up of both.`,
    '',
    table(
      ['Request', 'Engine handlers req/s', 'Static handler req/s', 'Engine / static', 'Non-2xx', 'Reproduce'],
      msw.rows.map((row) => [
        row.request,
        integer(row.engineRps),
        integer(row.staticRps),
        percent(row.engineRps, row.staticRps),
        String(row.failures),
        code(msw.command),
      ]),
    ),
  ].join('\n');
}

function conformanceSection(report: Report): string {
  const result = report.conformance!;
  return [
    '## Conformance runner against the mock',
    '',
    'Wall time of the built CLI with its default limits (at most 400 requests, no rate limit) against the mock server in another process.',
    '',
    table(
      ['Wall time s', 'Exit code', "Runner's verdict", 'Reproduce'],
      [[fixed(result.wallMs / 1000, 2), String(result.exitCode), result.summary, code(result.command)]],
    ),
  ].join('\n');
}

function proxySection(report: Report): string {
  const result = report.proxy!;
  const workloads = [...new Set(result.rows.map((row) => row.workload))];
  const rowOf = (path: string, workload: string) => result.rows.find((row) => row.path === path && row.workload === workload);
  const latencyOf = (path: string, workload: string) => result.latency.find((row) => row.path === path && row.workload === workload);
  const middle = (values: readonly number[]) => {
    const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
    if (sorted.length === 0) return undefined;
    const half = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
  };
  const ratiosOf = (workload: string) => result.ratios.find((entry) => entry.workload === workload);
  const throughput = workloads.map((workload) => {
    const direct = rowOf('direct', workload);
    const ours = rowOf('proxy', workload);
    const prism = rowOf('prism-proxy', workload);
    const cell = (row: typeof direct) => (row ? `${integer(row.rps)} (p50 ${row.p50Ms} / p99 ${row.p99Ms} ms)` : '—');
    const flawed = [direct, ours, prism].some((row) => row && row.unexpected > 0) ? ' ⚠' : '';
    const overDirect = middle(ratiosOf(workload)?.proxyOverDirect ?? []);
    const overPrism = middle(ratiosOf(workload)?.proxyOverPrism ?? []);
    return [
      `${workload}${flawed}`,
      cell(direct),
      cell(ours),
      cell(prism),
      overDirect === undefined ? '—' : `${(overDirect * 100).toFixed(0)}%`,
      overPrism === undefined ? '—' : `${overPrism.toFixed(2)}×`,
    ];
  });
  const cpuRows = workloads.map((workload) => {
    const cell = (row: ReturnType<typeof rowOf>, proxy: string | undefined) => {
      if (!row || row.mockCpuUs === undefined) return '—';
      const mock = `mock ${integer(row.mockCpuUs)}`;
      return proxy === undefined ? mock : `${mock} + ${proxy} ${row.proxyCpuUs === undefined ? '?' : integer(row.proxyCpuUs)}`;
    };
    return [
      workload,
      cell(rowOf('direct', workload), undefined),
      cell(rowOf('proxy', workload), 'proxy'),
      cell(rowOf('prism-proxy', workload), 'prism'),
    ];
  });
  const latencyWorkloads = [...new Set(result.latency.map((row) => row.workload))];
  const microseconds = (row: { p50Us: number; p99Us: number } | undefined) => (row ? `${integer(row.p50Us)} / ${integer(row.p99Us)}` : '—');
  const latencyRows = latencyWorkloads.map((workload) => {
    const direct = latencyOf('direct', workload);
    const ours = latencyOf('proxy', workload);
    const prism = latencyOf('prism-proxy', workload);
    return [
      workload,
      microseconds(direct),
      microseconds(ours),
      microseconds(prism),
      direct && ours ? `${fixed((ours.p50Us - direct.p50Us) / 1000, 2)} ms` : '—',
      direct && prism ? `${fixed((prism.p50Us - direct.p50Us) / 1000, 2)} ms` : '—',
    ];
  });
  // The targets, judged on this run's medians.
  const added = latencyWorkloads
    .map((workload) => {
      const direct = latencyOf('direct', workload);
      const ours = latencyOf('proxy', workload);
      return direct && ours ? (ours.p50Us - direct.p50Us) / 1000 : undefined;
    })
    .filter((value): value is number => value !== undefined);
  const worstAdded = added.length > 0 ? Math.max(...added) : undefined;
  const overDirect = workloads.map((workload) => [workload, middle(ratiosOf(workload)?.proxyOverDirect ?? [])] as const);
  const overPrism = workloads.map((workload) => [workload, middle(ratiosOf(workload)?.proxyOverPrism ?? [])] as const);
  const lowest = (entries: readonly (readonly [string, number | undefined])[]) =>
    entries.filter((entry): entry is readonly [string, number] => entry[1] !== undefined).sort((a, b) => a[1] - b[1])[0];
  const lowestDirect = lowest(overDirect);
  const lowestPrism = lowest(overPrism);
  const held = (ok: boolean) => (ok ? 'yes' : '**no**');
  const targets = [
    [
      'latency added at p50 ≤ 1 ms (one request at a time, loopback)',
      worstAdded === undefined ? 'not measured' : `${fixed(worstAdded, 2)} ms at most (${latencyWorkloads.join(', ')})`,
      worstAdded === undefined ? 'not measured' : held(worstAdded <= 1),
    ],
    [
      'throughput through the proxy ≥ 50% of direct (10 connections)',
      lowestDirect ? `${(lowestDirect[1] * 100).toFixed(0)}% at least (${lowestDirect[0]})` : 'not measured',
      lowestDirect ? held(lowestDirect[1] >= 0.5) : 'not measured',
    ],
    [
      'throughput through the proxy ≥ 3× prism proxy (10 connections)',
      lowestPrism ? `${lowestPrism[1].toFixed(2)}× at least (${lowestPrism[0]})` : 'not measured',
      lowestPrism ? held(lowestPrism[1] >= 3) : 'not measured',
    ],
  ];
  return [
    '## Validating proxy: direct, through evidence-harness proxy, through prism proxy',
    '',
    `The same traffic straight to the mock and through each proxy in front of that same mock, the paths taking turns row by row for ${result.rounds} round(s); each figure is the median over the rounds, each ratio the median of the rounds' ratios. Measured ${report.machine.date} on ${report.machine.cores} cores shared with other work (1-min load average ${fixed(report.machine.loadBefore, 2)} at the start, ${fixed(report.machine.loadAfter, 2)} at the end). Started as: direct ${code(result.commands.direct)}; ${code(result.commands.proxy)}; ${code(result.commands['prism-proxy'])}.`,
    '',
    "Issue 14's targets in this run:",
    '',
    table(['Target', 'Measured', 'Held'], targets),
    '',
    `Throughput at ${result.rows[0]?.connections ?? 10} connections (autocannon): requests per second (latency p50 / p99 under that load). \`mixed\` is a client's flow on each connection: health, a create, three polls of its job, and a create without Idempotency-Key that the mock refuses with 400 (expected, not counted as a flaw). ⚠ marks a row with unexpected answers, errors or timeouts.`,
    '',
    table(
      ['Traffic', proxyPathLabels.direct, proxyPathLabels.proxy, proxyPathLabels['prism-proxy'], 'proxy ÷ direct', 'proxy ÷ prism proxy'],
      throughput,
    ),
    '',
    'CPU per request in those runs, in microseconds: process CPU time (user + system, from /proc, in 10 ms ticks) over the measured run ÷ requests, median over the rounds. The load generator, on the same two cores, is not counted.',
    '',
    table(['Traffic', proxyPathLabels.direct, proxyPathLabels.proxy, proxyPathLabels['prism-proxy']], cpuRows),
    '',
    'Latency one request at a time over one keep-alive connection, in microseconds (p50 / p99), and what each proxy adds at p50 over the direct path:',
    '',
    table(
      [
        'Request',
        `${proxyPathLabels.direct} µs`,
        `${proxyPathLabels.proxy} µs`,
        `${proxyPathLabels['prism-proxy']} µs`,
        'added by evidence-harness proxy',
        'added by prism proxy',
      ],
      latencyRows,
    ),
    '',
    `Reproduce: ${code(rowCommand({ group: 'proxy' }))}`,
    '',
    proxyNotes,
  ].join('\n');
}

/** How the proxy's cost was brought down, and what bounds it (issue 14, point 6). */
const proxyNotes = [
  'How the proxy was made cheaper, and what bounds it:',
  '',
  "- **An HTTP client that parses into one buffer** (today undici's `dispatch` interface through src/http/outbound-client.ts; until issue 22 a hand-written client, src/proxy/upstream-client.ts). With node:http's client and a keep-alive Agent, the proxy spent about 300-450 µs of CPU per exchange, 3-4× what the mock spends answering it, and passed 18-41% of the direct rate on health and getJob. Profiles and a side-by-side of three throwaway proxies showed where: a bare node:http proxy (no judging at all) cost about 165-210 µs, the same proxy with a client that writes the request head itself and parses the answer into one buffer about 80-130 µs. The upstream client now keeps its own sockets (one set of listeners per connection, one sweep timer for idle ones), writes head and body in one write, and reads the answer with a strict RFC 9112 parser (Content-Length, chunked, read-to-close, no body for HEAD/1xx/204/304, malformed or oversized answers refused), bounded by `--max-response-bytes` and a 16 KiB head.",
  "- **Less per exchange**: no AbortController per request (about 9 µs each), no SHA-256 await for anonymous callers, the HAR entry built only with `--record`, no copy of short answers for the report. Then, from a CPU profile of the proxy under createEvaluation load (`perf record` with `--perf-basic-prof`, which counts CPU, where `--cpu-prof` counts wall time and charged a preempted `writev` with tens of µs): a create's body is digested (canonical JSON + SHA-256, about 12 µs in place) only when its Idempotency-Key comes again, which most keys never do (a short body keeps its text until then, a longer one is digested at once); the credential scrub of the kept answer looks at credential headers only (about 3 µs); the answer's headers are copied with `for…in` (Object.entries took V8's slow path, about 2 µs). Side by side, nine interleaved rounds of createEvaluation at 10 connections: the proxy went from 241 to 218 µs of CPU per create (−10%), its rate up 8%.",
  "- **Judging stays on the response path.** The `Contract-Violations` header and `--errors` need the verdict before the status line is sent, so answering first and judging after would drop one of them. In microbenchmarks the request rules, reading the answer as the runner does and all 33 checks cost about 20 µs; in place, under load, they cost about three times that: the same build with judging switched off (a throwaway variant that forwards and answers only) spent 156 µs per create against 218 judged, side by side. What is left is spread thin: JSON.parse of the request body (about 7 µs), the schema validators (4), the checks (9), reading the answer (6), the traffic state (5), the exchange's bookkeeping and report entry.",
  "- **What bounds the createEvaluation ratio is the machine, not the judging.** On two cores the load generator (about 100 µs per create), the mock (about 200) and the proxy (218) share the CPU, so the rate through the proxy is about 2 cores ÷ (100 + 200 + 218 µs) at the utilisation reached with 10 connections (83% in the side-by-side run; on a more loaded machine every process's figure is higher, as in the table above). Prism spends about 800 µs per create, but on one thread: it is held by one core, and leaves the other to the load generator and the mock. With prism at about 1,280 req/s, 3× needs about 3,840 req/s through the proxy, which at that utilisation leaves it 120-140 µs per create: less than the throwaway proxy that judges nothing costs (156 µs; 3,700 req/s, 2.9× prism in the same run). So on this machine createEvaluation stays under 3× with every check in line (2.4× to 3.2× in the runs of this work, as prism's own rate swung from 830 to 1,300 req/s with the machine's load), and a robust 3.3× is out of reach even without them; health and getJob hold 3× in every run, the mixed flow in most (2.8× to 3.7×). The 50%-of-direct target moves the same way: health, where the mock does least, fell to 44-47% of direct in the most loaded runs and reached 53-55% in calmer ones. The proxy's cost below that floor is node:http's server side (the mock pays it too), its own client, and the kernel's loopback sends (`writev`, about a fifth of its CPU).",
].join('\n');

function storeSection(report: Report): string {
  const result = report.store!;
  if (!result.available) return '## Shared store: in memory and on Redis\n\nNot measured: redis-server is not installed here.';
  const workloads = [...new Set(result.rows.map((row) => row.workload))];
  const rowOf = (setup: string, workload: string) => result.rows.find((row) => row.setup === setup && row.workload === workload);
  const cell = (row: StoreRow | undefined) =>
    row ? `${integer(row.rps)} (p99 ${fixed(row.p99Ms, 1)} ms)${row.failures > 0 ? ' ⚠' : ''}` : '—';
  const body = workloads.map((workload) => {
    const memory = rowOf('memory', workload);
    const single = rowOf('redis-1', workload);
    const pair = rowOf('redis-2', workload);
    return [
      workload,
      cell(memory),
      cell(single),
      cell(pair),
      memory && single ? percent(single.rps, memory.rps) : '—',
      memory && pair ? percent(pair.rps, memory.rps) : '—',
    ];
  });
  const commandRows = Object.entries(result.commandsPerRequest).map(([operation, counts]) => [
    operation,
    fixed(counts.EVALSHA ?? 0, 2),
    fixed(counts.XADD ?? 0, 2),
    Object.entries(counts)
      .filter(([name]) => name !== 'EVALSHA' && name !== 'XADD')
      .map(([name, count]) => `${name} ${fixed(count, 2)}`)
      .join(', ') || '—',
  ]);
  return [
    '## Shared store: in memory and on Redis',
    '',
    `The same workload at ${result.rows[0]?.connections ?? 10} connections against one replica in memory, one replica on Redis${result.redisVersion ? ` ${result.redisVersion}` : ''} (\`mock --store redis://…\`), and two replicas on one Redis with the load split between them, taking turns. Requests per second (p99); the Redis server shares the machine's two cores with the mocks and the load generator. Issue 15's target: Redis-backed getJob ≥ 40% of in memory.`,
    '',
    table(
      [
        'Request',
        storeSetupLabels.memory,
        storeSetupLabels['redis-1'],
        storeSetupLabels['redis-2'],
        '1 on Redis ÷ memory',
        '2 on Redis ÷ memory',
      ],
      body,
    ),
    '',
    `Redis commands per request, counted by the client over ${result.sampled} sequential requests of each operation (targets: ≤ 2 round trips for getJob, ≤ 3 for createEvaluation). EVALSHA is a store script, one round trip each, awaited by the request; XADD is the journal's append, sent in batches every 5 ms and never awaited.`,
    '',
    table(['Operation', 'EVALSHA (awaited)', 'XADD (batched)', 'Other'], commandRows),
    '',
    result.bytesPer100kJobs === undefined
      ? ''
      : `Redis memory per 100,000 jobs with their idempotency keys: ${fixed(result.bytesPer100kJobs / 2 ** 20, 1)} MiB (used_memory growth over ${integer(result.jobsMeasured)} creates, scaled).`,
    '',
    `Reproduce: ${code(result.command)}`,
  ].join('\n');
}

function memorySection(report: Report): string {
  const memory = report.memory!;
  return [
    '## Memory: RSS idle and with jobs stored',
    '',
    'The mock server (engine and node:http, as `evidence-harness mock` runs them) in a process of its own ' +
      '(`node --expose-gc dist/bench/children/memory-probe.js`, forked by the bench), measuring itself after a full GC' +
      `${memory.gcExposed ? ' (--expose-gc)' : ' (gc not exposed: figures include garbage)'}. ` +
      `The jobs are stored over HTTP by autocannon in the bench process: ${integer(memory.jobs)} createEvaluation requests, ` +
      'each with a new Idempotency-Key, so each stores a job and a key (the store keeps at most 100,000 jobs, evicting the oldest)' +
      `${memory.failures > 0 ? `; ⚠ ${memory.failures} of them were not answered 202` : ''}.`,
    '',
    table(
      ['State', 'Jobs stored', 'RSS MB', 'Heap used MB', 'Reproduce'],
      [
        ['idle (after one request of each kind)', '1', fixed(memory.idle.rssMb), fixed(memory.idle.heapUsedMb), code(memory.command)],
        [
          `after ${integer(memory.jobs)} more creations`,
          integer(memory.stored),
          fixed(memory.loaded.rssMb),
          fixed(memory.loaded.heapUsedMb),
          code(memory.command),
        ],
        ['added', '', fixed(memory.loaded.rssMb - memory.idle.rssMb), fixed(memory.loaded.heapUsedMb - memory.idle.heapUsedMb), ''],
      ],
    ),
  ].join('\n');
}

function targetsSection(report: Report): string {
  const verdicts = judgeTargets(report);
  return [
    '## Targets of issue 6 in this run',
    '',
    `Ratios from this run only; throughput targets are judged at ${judgedConnections} connections, the issue's setting.`,
    '',
    table(
      ['Target', 'Measured', 'Held', 'Margin'],
      verdicts.map((verdict) => [
        verdict.target,
        verdict.measured,
        verdict.held === undefined ? 'not measured' : verdict.held ? 'yes' : '**no**',
        verdict.margin,
      ]),
    ),
  ].join('\n');
}

function machineSection(report: Report): string {
  const { machine, config } = report;
  return [
    '## Machine and run',
    '',
    table(
      ['Fact', 'Value'],
      [
        ['Date', machine.date],
        ['Node.js', machine.node],
        ['CPU', `${machine.cores} cores, ${machine.cpuModel}`],
        ['Memory', `${machine.memoryGb.toFixed(1)} GB`],
        ['Platform', machine.platform],
        ['Load average (1 min) at start / end', `${machine.loadBefore.toFixed(2)} / ${machine.loadAfter.toFixed(2)}`],
        ['Run', `${config.smoke ? 'smoke (BENCH_SMOKE=1: tiny, not for quoting)' : 'full'}, ${machine.durationS.toFixed(0)} s`],
        ['Command', code(config.filtered ? `node dist/bench/run-bench.js ${process.argv.slice(2).join(' ')}` : 'npm run bench')],
      ],
    ),
  ].join('\n');
}

function comparisonSection(report: Report): string | undefined {
  const before = report.baseline;
  if (!before) return undefined;
  const mockRps = (source: Measurements, workload: string, target = 'mock') =>
    source.throughput?.find((row) => row.target === target && row.workload === workload && row.connections === judgedConnections)?.result
      .rps;
  const startupOf = (source: Measurements, target: string) => source.startup?.find((row) => row.target === target)?.medianMs;
  const added = (source: Measurements) => (source.memory ? source.memory.loaded.rssMb - source.memory.idle.rssMb : undefined);
  const mswShare = (source: Measurements) => {
    const row = source.msw?.rows.find((entry) => entry.request === 'getJob');
    return row ? row.engineRps / row.staticRps : undefined;
  };
  const show = (value: number | undefined, format: (value: number) => string) => (value === undefined ? 'n/a' : format(value));
  const rows: string[][] = [];
  for (const workload of ['health', 'createEvaluation', 'getJob', 'verifyReport']) {
    const [was, now] = [mockRps(before, workload), mockRps(report, workload)];
    const [wasBare, nowBare] = [mockRps(before, workload, 'bare'), mockRps(report, workload, 'bare')];
    rows.push([
      `${workload} req/s, ${judgedConnections} connections (mock/bare)`,
      `${show(was, integer)} (${was !== undefined && wasBare ? percent(was, wasBare) : 'n/a'})`,
      `${show(now, integer)} (${now !== undefined && nowBare ? percent(now, nowBare) : 'n/a'})`,
      ratio(now, was),
    ]);
  }
  const [startWas, startNow] = [startupOf(before, 'mock'), startupOf(report, 'mock')];
  const [bareWas, bareNow] = [startupOf(before, 'bare'), startupOf(report, 'bare')];
  rows.push([
    'start-up median ms (× bare)',
    `${show(startWas, (value) => value.toFixed(0))} (${ratio(startWas, bareWas)})`,
    `${show(startNow, (value) => value.toFixed(0))} (${ratio(startNow, bareNow)})`,
    ratio(startWas, startNow),
  ]);
  const [memoryWas, memoryNow] = [added(before), added(report)];
  rows.push(['RSS added by 100,000 jobs, MB', show(memoryWas, fixed), show(memoryNow, fixed), ratio(memoryWas, memoryNow)]);
  const [mswWas, mswNow] = [mswShare(before), mswShare(report)];
  rows.push([
    'MSW getJob, engine / static handler',
    show(mswWas, (value) => `${(value * 100).toFixed(0)}%`),
    show(mswNow, (value) => `${(value * 100).toFixed(0)}%`),
    '',
  ]);
  return [
    '## Before and after the performance work',
    '',
    `"Before" is bench/baseline.json: the same harness run on ${before.machine.date} against commit 3a8bd9a (the code before the ` +
      'changes described below), on this machine. "After" is this run. The two runs are minutes apart, not simultaneous, so ' +
      'compare the ratios to the bare server more than the absolute figures. "Gain" is after/before (for start-up and memory, before/after). ' +
      'To take a baseline again: ' +
      code('git archive 3a8bd9a | tar -x -C DIR') +
      ', copy bench/ and tsconfig.build.json into DIR, link node_modules, then in DIR ' +
      code('npx tsc -p tsconfig.build.json && BENCH_JSON=baseline.json node dist/bench/run-bench.js') +
      '.',
    '',
    table(['Figure', 'Before', 'After', 'Gain'], rows),
  ].join('\n');
}

const method = `## How it is measured

- **Separate processes.** Every server under load runs in a child process of its own (spawned by
  bench/child-server.ts); autocannon runs in the bench process. The load generator and the server
  therefore never share an event loop, but they do share the machine's two cores with each other
  (and with anything else running), so every figure is a figure for "server and load generator
  on two cores", the same for all three servers.
- **Prism** is @stoplight/prism-cli **5.14.2**, the newest release that runs on Node 20 (Prism
  5.16 needs Node 24). The issue's Prism figures were taken with 5.16; the ratios here are
  against 5.14.2 in the same run.
- **The bench is TypeScript** compiled by tsc with the rest of the package (tsconfig.build.json
  includes bench/, output dist/bench/): Node 20 cannot run .ts files, and compiling keeps the bench
  under the same strict type-checking as the code it measures.
- **Bounded**: every load runs for a fixed time, every child has a time limit, every server is
  stopped at the end (SIGTERM, then SIGKILL after 3 s), also when the run fails.
- Speed and memory are never asserted in tests; test/bench/bench-smoke.test.ts runs this harness
  in its smoke mode only to prove it works and writes its tables.`;

export function renderReport(report: Report): string {
  const sections = [
    '# Performance',
    '',
    `Written by ${code('npm run bench')} (bench/run-bench.ts) on ${report.machine.date}; every figure below comes from that run. ` +
      'Edit bench/report.ts or bench/performance-notes.md, not this file.',
    '',
    machineSection(report),
    '',
    targetsSection(report),
  ];
  if (report.throughput) sections.push('', throughputSection(report));
  const cpu = cpuSection(report);
  if (cpu) sections.push('', cpu);
  if (report.logs) sections.push('', logsSection(report));
  if (report.startup) sections.push('', startupSection(report));
  if (report.msw) sections.push('', mswSection(report));
  if (report.conformance) sections.push('', conformanceSection(report));
  if (report.memory) sections.push('', memorySection(report));
  if (report.proxy) sections.push('', proxySection(report));
  if (report.store) sections.push('', storeSection(report));
  const comparison = comparisonSection(report);
  sections.push('', method, '', report.notes.trim());
  if (comparison) sections.push('', comparison);
  sections.push('');
  return sections.join('\n');
}
