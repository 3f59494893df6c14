/**
 * @module bench/groups/msw
 * MSW setupServer throughput, the engine's handlers against a trivial static handler, measured
 * in a child process (MSW patches that process's global fetch) by bench/children/msw-loop.
 */
import type { BenchConfig } from '../bench-config.js';
import { lastJsonLine, runNode } from '../run-node.js';

export interface MswRow {
  readonly request: string;
  readonly engineRps: number;
  readonly staticRps: number;
  readonly failures: number;
}

export interface MswResult {
  readonly concurrency: number;
  readonly durationMs: number;
  readonly samples: number;
  readonly rows: readonly MswRow[];
  readonly command: string;
}

interface ChildOutput {
  concurrency: number;
  durationMs: number;
  samples: number;
  results: Record<string, Record<'engine' | 'static', { rps: number[]; failures: number }>>;
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

export async function runMsw(config: BenchConfig, progress: (line: string) => void): Promise<MswResult> {
  const args = [
    '--duration-ms',
    String(config.msw.durationMs),
    '--concurrency',
    String(config.msw.concurrency),
    '--samples',
    String(config.msw.samples),
  ];
  const script = 'dist/bench/children/msw-loop.js';
  const run = await runNode({ args: [script, ...args], timeoutMs: 120_000 });
  const output = lastJsonLine<ChildOutput>(run);
  const rows = Object.entries(output.results).map(([request, result]) => ({
    request,
    engineRps: mean(result.engine.rps),
    staticRps: mean(result.static.rps),
    failures: result.engine.failures + result.static.failures,
  }));
  for (const row of rows) progress(`msw ${row.request}: engine ${Math.round(row.engineRps)} / static ${Math.round(row.staticRps)} req/s`);
  return { ...output, rows, command: `node ${script} ${args.join(' ')}` };
}
