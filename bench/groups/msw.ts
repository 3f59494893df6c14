/**
 * @module bench/groups/msw
 * MSW setupServer: throughput, the engine's handlers against a trivial static handler, in a
 * process of its own (MSW patches its global fetch): bench/children/msw-loop; and the import
 * cost, a fresh process per sample to the first answer: bench/children/first-call.
 */
import type { BenchOptions } from '../config.js';
import { type GroupResult, num, percent, type Table, times } from '../figures.js';
import { median } from '../load.js';
import { lastJsonLine, runNode } from '../processes.js';

type Output = Record<string, { engine: number; static: number; failures: number }>;

export async function runMsw(options: BenchOptions, progress: (line: string) => void): Promise<GroupResult> {
  const args = options.quick ? ['--duration-ms', '50', '--samples', '1'] : ['--duration-ms', '1000', '--samples', '2'];
  const output = lastJsonLine<Output>(await runNode({ args: ['dist/bench/children/msw-loop.js', ...args], timeoutMs: 120_000 }));
  const figures: Record<string, number | null> = {};
  const rows = Object.entries(output).map(([request, result]) => {
    figures[`msw.${request}.engineOverStatic`] = result.failures > 0 ? null : result.engine / result.static;
    progress(`msw ${request}: engine ${Math.round(result.engine)} / static ${Math.round(result.static)} req/s`);
    return [request, num(result.engine), num(result.static), percent(result.engine / result.static), String(result.failures)];
  });
  const imports = await importCost(options);
  figures['msw.import.ratio'] = imports.ratio;
  figures['msw.import.cpuRatio'] = imports.cpuRatio;
  progress(`msw import: ${imports.summary}`);
  return {
    group: 'msw',
    figures,
    tables: {
      msw: { headers: ['Request', 'engine handlers req/s', 'static handler req/s', 'engine ÷ static', 'failed'], rows },
      'msw-import': imports.table,
    },
  };
}

const kinds = {
  engine: 'evidence-harness/msw/node: setupMockService, listen, first createEvaluation',
  unbundled: "the same, from tsc's unbundled output (dist/mocks/node.js, as shipped before the bundle)",
  static: 'msw/node: setupServer(http.post(…, () => HttpResponse.json(…))), listen, the same request',
} as const;
type Kind = keyof typeof kinds;

/**
 * Fresh processes, the kinds in turn (engine, static, unbundled, then backwards) so drift and
 * bursts of load from elsewhere fall on all; the ratio of engine's and static's medians is the figure. Each child
 * times itself from its own start, so spawning and exit, the same for both, stay out.
 */
async function importCost(options: BenchOptions): Promise<{ ratio: number; cpuRatio: number; summary: string; table: Table }> {
  // Enough samples that the median moves less between runs of one build than the distance
  // between the build and the 1.15 bound (the runs: docs/performance.md, "Import cost").
  const samples = options.quick ? 1 : 21;
  const runs: Record<Kind, { ms: number[]; cpuMs: number[]; wallMs: number[] }> = {
    engine: { ms: [], cpuMs: [], wallMs: [] },
    unbundled: { ms: [], cpuMs: [], wallMs: [] },
    static: { ms: [], cpuMs: [], wallMs: [] },
  };
  // The unbundled form is shown, not judged: quick runs leave it out.
  const order: readonly Kind[] = options.quick ? ['engine', 'static'] : ['engine', 'static', 'unbundled'];
  // Round -1 warms the file system cache for both, unmeasured (full runs only).
  for (let round = options.quick ? 0 : -1; round < samples; round += 1) {
    for (const kind of round % 2 === 0 ? order : [...order].reverse()) {
      const run = await runNode({ args: ['dist/bench/children/first-call.js', kind], timeoutMs: 60_000 });
      const { ms, cpuMs } = lastJsonLine<{ ms: number; cpuMs: number }>(run);
      if (round < 0) continue;
      runs[kind].ms.push(ms);
      runs[kind].cpuMs.push(cpuMs);
      runs[kind].wallMs.push(run.wallMs);
    }
  }
  const engine = median(runs.engine.ms);
  const fixed = median(runs.static.ms);
  const ratio = engine / fixed;
  const cpuRatio = median(runs.engine.cpuMs) / median(runs.static.cpuMs);
  return {
    ratio,
    cpuRatio,
    summary: `engine ${engine.toFixed(0)} ms, static ${fixed.toFixed(0)} ms, ${ratio.toFixed(2)}× (CPU ${cpuRatio.toFixed(2)}×)`,
    table: {
      headers: [
        'From process start to the first answer',
        'Median ms',
        'Each, ms',
        '× static',
        'Median CPU ms',
        'CPU × static',
        'Median wall ms of the process',
      ],
      rows: order.map((kind) => [
        kinds[kind],
        num(median(runs[kind].ms)),
        runs[kind].ms.map((value) => value.toFixed(0)).join(', '),
        times(median(runs[kind].ms) / fixed),
        num(median(runs[kind].cpuMs)),
        times(median(runs[kind].cpuMs) / median(runs.static.cpuMs)),
        num(median(runs[kind].wallMs)),
      ]),
      note: `${samples} sample${samples === 1 ? '' : 's'} of each, interleaved; ratio of the medians: ${times(ratio)} (CPU: ${times(cpuRatio)}).`,
    },
  };
}
