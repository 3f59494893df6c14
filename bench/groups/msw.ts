/**
 * @module bench/groups/msw
 * MSW setupServer throughput, the engine's handlers against a trivial static handler, in a
 * process of its own (MSW patches its global fetch): bench/children/msw-loop.
 */
import type { BenchOptions } from '../config.js';
import { type GroupResult, num, percent } from '../figures.js';
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
  return {
    group: 'msw',
    figures,
    tables: { msw: { headers: ['Request', 'engine handlers req/s', 'static handler req/s', 'engine ÷ static', 'failed'], rows } },
  };
}
