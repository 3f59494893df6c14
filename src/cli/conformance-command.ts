/**
 * @module cli/conformance-command
 * `evidence-harness conformance`: checks a live implementation against the OpenAPI document
 * and says exactly where it breaks the contract, with a curl reproduction for each failure.
 */
import { parseArgs } from 'node:util';
import {
  checks,
  conformanceDefaults,
  HeaderLineError,
  headersFromLines,
  parseReportTarget,
  ReportSpecError,
  renderSummary,
  runConformance,
  UnknownCheckError,
  UnreachableTargetError,
  writeReports,
} from '../conformance/index.js';
import { InvalidSpecError } from '../openapi/document.js';
import { type Command, diagnostic, exitCodes, integerOption, parseCommandLine, UsageError } from './command.js';

function checkList(): string {
  const width = Math.max(...checks.map((check) => check.name.length));
  return checks
    .map(
      (check) =>
        `  ${check.name.padEnd(width)}  ${(check.severity === 'required' ? 'required' : `advisory ${check.assumption ?? ''}`).padEnd(13)}  ${check.description}`,
    )
    .join('\n');
}

const help = `Usage: evidence-harness conformance --base-url URL [options]

Checks a live implementation of the contract against the OpenAPI document: every documented
status, media type and schema; schema-valid inputs accepted and single-constraint mutations
rejected (property-based, seeded, shrunk); idempotent replays, 409 conflicts, job lifecycles
and caller isolation. Each failure names the check and operation, what was expected and what
came back, and a curl command that reproduces it (credentials redacted).

Options:
  --base-url URL               the server under test (contract paths are appended)
  --spec FILE                  the OpenAPI 3.1 document (default: the bundled spec/openapi.yaml)
  --header 'Name: value'       the first caller's credentials; repeatable
  --second-caller-header 'Name: value'
                               a second caller's credentials; enables second_caller_isolation
  --seed N                     seed for generated inputs (default: random, printed); same seed, same run
  --max-requests N             at most N HTTP requests (default ${conformanceDefaults.maxRequests})
  --rate N                     at most N requests per second (default: unlimited)
  --timeout MS                 per-request timeout (default ${conformanceDefaults.timeoutMs}); no answer is a failure
  --job-timeout S              seconds a job may take to reach a final state (default ${conformanceDefaults.jobTimeoutMs / 1000})
  --checks a,b                 run only these checks
  --exclude-checks a,b         leave these checks out
  --strict                     advisory failures fail the run too
  --report FORMAT=FILE         write a report: junit=FILE, json=FILE or html=FILE; repeatable
  --quiet                      no progress lines on stderr
  -h, --help                   show this help

Exit codes: 0 every required check passed; 1 a check failed; 2 usage error, invalid spec or
unreachable target.

Checks (required: the contract states it; advisory: a decision of docs/assumptions.md):
${checkList()}

Examples:
  evidence-harness conformance --base-url http://127.0.0.1:4010
  evidence-harness conformance --base-url https://staging.example/api \\
      --header 'Authorization: Bearer alice' --second-caller-header 'Authorization: Bearer bob' \\
      --seed 42 --report junit=reports/conformance.xml --report html=reports/conformance.html
  evidence-harness conformance --base-url http://127.0.0.1:4010 --checks negative_data_rejection,idempotency_conflict
`;

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

function baseUrl(value: string | undefined): string {
  if (!value) throw new UsageError('--base-url is required.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--base-url '${value}' is not a URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--base-url must be http or https, got '${url.protocol}'.`);
  if (url.search || url.hash) throw new UsageError('--base-url must not have a query or fragment.');
  return value;
}

export const conformanceCommand: Command = {
  name: 'conformance',
  summary: 'check a live implementation against the OpenAPI document',
  help,
  async run(argv, io) {
    const { values } = parseCommandLine(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          'base-url': { type: 'string' },
          spec: { type: 'string' },
          header: { type: 'string', multiple: true },
          'second-caller-header': { type: 'string', multiple: true },
          seed: { type: 'string' },
          'max-requests': { type: 'string' },
          rate: { type: 'string' },
          timeout: { type: 'string' },
          'job-timeout': { type: 'string' },
          checks: { type: 'string' },
          'exclude-checks': { type: 'string' },
          strict: { type: 'boolean', default: false },
          report: { type: 'string', multiple: true },
          quiet: { type: 'boolean', default: false },
        },
      }),
    );
    let headers: Record<string, string>;
    let secondCallerHeaders: Record<string, string>;
    let reports: ReturnType<typeof parseReportTarget>[];
    try {
      headers = headersFromLines(values.header ?? []);
      secondCallerHeaders = headersFromLines(values['second-caller-header'] ?? []);
      reports = (values.report ?? []).map(parseReportTarget);
    } catch (error) {
      if (error instanceof HeaderLineError || error instanceof ReportSpecError) throw new UsageError(error.message);
      throw error;
    }
    const seed = integerOption({ value: values.seed, name: 'seed', min: 0, max: 2 ** 31 - 1 });
    const maxRequests = integerOption({ value: values['max-requests'], name: 'max-requests', min: 1, max: 1_000_000 });
    const rate = integerOption({ value: values.rate, name: 'rate', min: 1, max: 100_000 });
    const timeoutMs = integerOption({ value: values.timeout, name: 'timeout', min: 1, max: 600_000 });
    const jobTimeout = integerOption({ value: values['job-timeout'], name: 'job-timeout', min: 0, max: 86_400 });
    try {
      const report = await runConformance({
        baseUrl: baseUrl(values['base-url']),
        ...(values.spec ? { spec: values.spec } : {}),
        headers,
        secondCallerHeaders,
        ...(seed === undefined ? {} : { seed }),
        ...(maxRequests === undefined ? {} : { maxRequests }),
        ...(rate === undefined ? {} : { rate }),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(jobTimeout === undefined ? {} : { jobTimeoutMs: jobTimeout * 1000 }),
        checks: list(values.checks),
        excludeChecks: list(values['exclude-checks']),
        strict: values.strict,
        ...(values.quiet ? {} : { onProgress: (message: string) => io.stderr(diagnostic(`conformance: ${message}`)) }),
      });
      io.stdout(renderSummary(report));
      await writeReports(report, reports);
      for (const target of reports) io.stderr(diagnostic(`conformance: wrote the ${target.format} report to ${target.file}`));
      return report.passed ? exitCodes.ok : exitCodes.failed;
    } catch (error) {
      if (error instanceof UnknownCheckError) throw new UsageError(`${error.message}.`);
      if (error instanceof InvalidSpecError) {
        io.stderr(diagnostic(`invalid OpenAPI document: ${error.message}`));
        return exitCodes.usage;
      }
      if (error instanceof UnreachableTargetError) {
        io.stderr(diagnostic(`conformance: ${error.message}. Is the server running, and is --base-url right?`));
        return exitCodes.usage;
      }
      throw error;
    }
  },
};
