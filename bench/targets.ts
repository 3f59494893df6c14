/**
 * @module bench/targets
 * Issue 6's targets, judged on the figures of this run only: each is held, missed (by how
 * much) or not measured (its group or a server was left out of the run).
 */
import { type LogsResult, median } from './groups/logs.js';
import type { MemoryResult } from './groups/memory.js';
import type { MswResult } from './groups/msw.js';
import type { StartupRow } from './groups/startup.js';
import type { ThroughputRow } from './groups/throughput.js';
import type { TargetName } from './servers.js';
import type { WorkloadName } from './workloads.js';

export interface TargetVerdict {
  readonly target: string;
  readonly measured: string;
  /** undefined: not measured in this run. */
  readonly held: boolean | undefined;
  /** How far above (held) or below (missed) the bar, in words. */
  readonly margin: string;
}

export interface Measurements {
  readonly throughput?: readonly ThroughputRow[];
  readonly logs?: LogsResult;
  readonly startup?: readonly StartupRow[];
  readonly msw?: MswResult;
  readonly memory?: MemoryResult;
}

/** The connection count the Prism figures were taken at. */
export const judgedConnections = 50;

function judgedRow(rows: readonly ThroughputRow[] | undefined, target: TargetName, workload: WorkloadName): ThroughputRow | undefined {
  return rows?.find((entry) => entry.target === target && entry.workload === workload && entry.connections === judgedConnections);
}

/** A row that measured failures (non-2xx answers, errors, timeouts) measured something else than its request. */
function isFlawedRow(row: ThroughputRow): boolean {
  return row.result.non2xx + row.result.errors + row.result.timeouts > 0;
}

/** A row's rate, or undefined when it was not measured or is flawed. */
function rps(rows: readonly ThroughputRow[] | undefined, target: TargetName, workload: WorkloadName): number | undefined {
  const row = judgedRow(rows, target, workload);
  return row && !isFlawedRow(row) ? row.result.rps : undefined;
}

/** A row's server CPU per answered request in µs, when /proc gave it. */
export function cpuPerRequestUs(row: ThroughputRow | undefined): number | undefined {
  if (!row?.serverCpu || row.result.total === 0) return undefined;
  return (row.serverCpu.cpuMs * 1000) / row.result.total;
}

function isFlawed(rows: readonly ThroughputRow[] | undefined, workload: WorkloadName): boolean {
  return (rows ?? []).some((row) => row.workload === workload && row.connections === judgedConnections && isFlawedRow(row));
}

/** A verdict withheld because a row it rests on measured failures instead of answers. */
function withheld(verdict: TargetVerdict, rows: readonly ThroughputRow[] | undefined, workload: WorkloadName): TargetVerdict {
  return isFlawed(rows, workload)
    ? { ...verdict, measured: 'not judged: non-2xx answers in its row (⚠)', held: undefined, margin: '' }
    : verdict;
}

/** A "measured ≥ bar" target on a ratio. */
function atLeast(options: { target: string; value: number | undefined; bar: number; unit: (value: number) => string }): TargetVerdict {
  const { target, value, bar, unit } = options;
  if (value === undefined || !Number.isFinite(value)) return { target, measured: 'not measured', held: undefined, margin: '' };
  const held = value >= bar;
  const by = held ? value / bar : bar / value;
  return {
    target,
    measured: unit(value),
    held,
    margin: held ? `${by.toFixed(2)}× the bar` : `${((1 - value / bar) * 100).toFixed(0)}% short of the bar`,
  };
}

export function judgeTargets(measurements: Measurements): TargetVerdict[] {
  const { throughput, startup, msw, memory, logs } = measurements;
  const times = (value: number) => `${value.toFixed(1)}×`;
  const verdicts: TargetVerdict[] = [];
  // The bare server's own ratio over Prism (no server on this machine could do better), and
  // the same comparison in server CPU per request, which the load generator does not bound.
  const ceiling = (bare: number | undefined, prism: number | undefined, workload: WorkloadName) => {
    if (bare === undefined || !prism) return '';
    const [mockCpu, prismCpu, bareCpu] = (['mock', 'prism', 'bare'] as const).map((target) =>
      cpuPerRequestUs(judgedRow(throughput, target, workload)),
    );
    const cpu =
      mockCpu && prismCpu && bareCpu
        ? `; in CPU per request Prism costs ${times(prismCpu / mockCpu)} the mock, ${times(prismCpu / bareCpu)} bare`
        : '';
    return ` (bare node:http: ${times(bare / prism)}${cpu})`;
  };
  const overPrism = (workload: WorkloadName, bar: number): TargetVerdict => {
    const [mock, prism, bare] = (['mock', 'prism', 'bare'] as const).map((target) => rps(throughput, target, workload));
    const verdict = atLeast({
      target: `${workload} ≥ ${bar}× Prism (${judgedConnections} connections)`,
      value: mock !== undefined && prism ? mock / prism : undefined,
      bar,
      unit: times,
    });
    const measured = verdict.held === undefined ? verdict.measured : verdict.measured + ceiling(bare, prism, workload);
    return withheld({ ...verdict, measured }, throughput, workload);
  };
  verdicts.push(overPrism('createEvaluation', 6), overPrism('getJob', 10));
  const getMock = rps(throughput, 'mock', 'getJob');
  const getBare = rps(throughput, 'bare', 'getJob');
  verdicts.push(
    withheld(
      atLeast({
        target: `getJob ≥ 60% of bare node:http (${judgedConnections} connections)`,
        value: getMock !== undefined && getBare ? getMock / getBare : undefined,
        bar: 0.6,
        unit: (value) => `${(value * 100).toFixed(0)}%`,
      }),
      throughput,
      'getJob',
    ),
  );
  const mockStart = startup?.find((row) => row.target === 'mock')?.medianMs;
  const bareStart = startup?.find((row) => row.target === 'bare')?.medianMs;
  // "Within 1.5× of bare" is a ceiling, so it is judged as bare×1.5 / mock ≥ 1.
  const startRatio = mockStart !== undefined && bareStart ? mockStart / bareStart : undefined;
  const startVerdict = atLeast({
    target: 'startup ≤ 1.5× bare node:http (median)',
    value: startRatio === undefined ? undefined : 1.5 / startRatio,
    bar: 1,
    unit: () => '',
  });
  verdicts.push({
    ...startVerdict,
    measured:
      startRatio === undefined ? 'not measured' : `${startRatio.toFixed(2)}× (${mockStart!.toFixed(0)} ms vs ${bareStart!.toFixed(0)} ms)`,
    margin:
      startRatio === undefined
        ? ''
        : startVerdict.held
          ? `${(1.5 * bareStart! - mockStart!).toFixed(0)} ms under the ceiling`
          : `${(mockStart! - 1.5 * bareStart!).toFixed(0)} ms over the ceiling`,
  });
  const mswGet = msw?.rows.find((row) => row.request === 'getJob');
  verdicts.push(
    atLeast({
      target: 'MSW: engine handlers ≥ 50% of a static handler (getJob)',
      value: mswGet ? mswGet.engineRps / mswGet.staticRps : undefined,
      bar: 0.5,
      unit: (value) => `${(value * 100).toFixed(0)}%`,
    }),
  );
  const added = memory ? memory.loaded.rssMb - memory.idle.rssMb : undefined;
  const scaled = memory && added !== undefined && memory.stored > 0 ? (added * 100_000) / memory.stored : undefined;
  const memoryVerdict = atLeast({
    target: '100,000 stored jobs add ≤ 150 MB RSS',
    value: scaled === undefined ? undefined : 150 / Math.max(scaled, 0.001),
    bar: 1,
    unit: () => '',
  });
  verdicts.push({
    ...memoryVerdict,
    measured:
      scaled === undefined
        ? 'not measured'
        : memory!.stored >= 100_000
          ? `${added!.toFixed(1)} MB`
          : `${added!.toFixed(1)} MB for ${memory!.stored} jobs (≈ ${scaled.toFixed(0)} MB per 100,000)`,
    margin:
      scaled === undefined
        ? ''
        : memoryVerdict.held
          ? `${(150 - scaled).toFixed(0)} MB under the ceiling`
          : `${(scaled - 150).toFixed(0)} MB over`,
  });
  verdicts.push(logsVerdict(logs));
  return verdicts;
}

/**
 * Issue 10: request logs on cost at most 15% of --quiet's throughput, judged on the row where
 * they cost the most (each row's figure the median of its rounds' ratios); withheld when a row
 * measured failures.
 */
function logsVerdict(logs: LogsResult | undefined): TargetVerdict {
  const target = 'request logs on ≥ 85% of --quiet (issue 10)';
  const rows = logs?.rows ?? [];
  if (rows.length === 0) return { target, measured: 'not measured', held: undefined, margin: '' };
  if (rows.some((row) => row.quiet.failures + row.logged.failures > 0)) {
    return { target, measured: 'not judged: non-2xx answers in its rows', held: undefined, margin: '' };
  }
  const worst = rows.map((row) => ({ row, ratio: median(row.ratios) })).sort((a, b) => a.ratio - b.ratio)[0]!;
  const verdict = atLeast({ target, value: worst.ratio, bar: 0.85, unit: (value) => `${(value * 100).toFixed(0)}%` });
  return {
    ...verdict,
    measured: verdict.held === undefined ? verdict.measured : `${verdict.measured} (${worst.row.workload}, the lowest row)`,
  };
}
