/**
 * @module bench/config
 * The command line of `npm run bench`: which groups run, how long, where their JSON goes,
 * whether docs/performance.md is updated and whether the thresholds are checked.
 */
import { parseArgs } from 'node:util';

export const groupNames = ['throughput', 'stages', 'startup', 'msw', 'conformance', 'memory', 'proxy', 'store'] as const;
export type GroupName = (typeof groupNames)[number];

export interface BenchOptions {
  readonly groups: readonly GroupName[];
  /** A few hundred requests per run, no Prism: proves the harness works, measures nothing worth quoting. */
  readonly quick: boolean;
  /** Seconds measured per load run (after a 1-s warm-up in full runs). */
  readonly durationS: number;
  /** Quick runs: requests per load run instead of a duration. */
  readonly amount: number | undefined;
  readonly jsonDir: string;
  /** The doc whose `<!-- bench:ID -->` markers get this run's tables; undefined prints them. */
  readonly doc: string | undefined;
  readonly check: boolean;
  /** Check the JSON already in jsonDir without measuring. */
  readonly checkOnly: boolean;
}

export const usage = `Usage: npm run bench [-- options]
       node dist/bench/run-bench.js [options]

Measures the mock against bare node:http and Prism in the same run (CPU per request from /proc,
throughput ratios), the engine's stages in-process, start-up, MSW, the runner, memory, the proxy
and the shared store. Each group writes its figures to JSON; a full run updates the tables of
docs/performance.md between its markers. Takes about 10 minutes in full. Progress goes to stderr.

Options:
  --group G[,G]     only these groups: ${groupNames.join(', ')}
  --quick           a few hundred requests per run and no Prism: proves the harness, measures nothing
  --check           then judge bench/thresholds.json; exit 1 naming each figure past its bound
  --check-only      judge the JSON already in --json-dir, measuring nothing
  --json-dir DIR    where each group writes GROUP.json (default bench/results)
  --doc FILE        update this Markdown file's tables (default: docs/performance.md, full runs only)
  -h, --help        show this help

Examples:
  npm run bench
  npm run bench -- --check
  node dist/bench/run-bench.js --group throughput,stages --check
`;

export class UsageError extends Error {}

export function parseOptions(argv: readonly string[]): BenchOptions | 'help' {
  let values: ReturnType<typeof parse>['values'];
  try {
    values = parse(argv).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const groups = values.group?.split(',').map((item) => item.trim());
  for (const group of groups ?? []) {
    if (!(groupNames as readonly string[]).includes(group))
      throw new UsageError(`--group: '${group}' is not one of ${groupNames.join(', ')}`);
  }
  const quick = values.quick ?? false;
  return {
    groups: (groups as GroupName[] | undefined) ?? [...groupNames],
    quick,
    durationS: quick ? 0 : 3,
    amount: quick ? 200 : undefined,
    jsonDir: values['json-dir'] ?? 'bench/results',
    // Only a full run of every group rewrites the doc unless told where.
    doc: values.doc ?? (groups || quick || values['check-only'] ? undefined : 'docs/performance.md'),
    check: (values.check ?? false) || (values['check-only'] ?? false),
    checkOnly: values['check-only'] ?? false,
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    options: {
      group: { type: 'string' },
      quick: { type: 'boolean' },
      check: { type: 'boolean' },
      'check-only': { type: 'boolean' },
      'json-dir': { type: 'string' },
      doc: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
