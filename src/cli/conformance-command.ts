/**
 * @module cli/conformance-command
 * `evidence-harness conformance`: checks a live implementation against the OpenAPI document
 * and says exactly where it breaks the contract, with a curl reproduction for each failure.
 * It scrubs every credential it was given from everything it prints or writes, exits with the
 * run's verdict (0 passed, 1 failed, 3 incomplete), and on SIGINT/SIGTERM still writes the
 * summary and reports of what ran (exit 130/143).
 */
import { existsSync, readdirSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { TlsOptions } from '../conformance/http/bounded-client.js';
import {
  type BaseUrlCredentials,
  CassetteRecorder,
  type ConformanceHooks,
  type ConformanceOptions,
  type ConformanceReport,
  checks,
  conformanceDefaults,
  conformanceExitCodes,
  credentialsFromBaseUrl,
  formatDuration,
  HeaderLineError,
  HookError,
  headersFromLines,
  isRunId,
  loadHooks,
  PactFileError,
  parseReportTarget,
  ReportSpecError,
  type ReportTarget,
  renderSummary,
  runConformance,
  scrubberFor,
  UnknownCheckError,
  UnknownOperationError,
  UnreachableTargetError,
  writeReports,
} from '../conformance/index.js';
import { maxReplayWaitMs } from '../conformance/probes/sequence-probe.js';
import { ProfileLearner } from '../conformance/profile/learn.js';
import { replayFailures } from '../conformance/replay.js';
import { WorkflowDocumentError } from '../conformance/workflows/index.js';
import { type AddressPolicy, DocumentFileError, isHttpUrl, readDocumentFileSync } from '../documents/index.js';
import { specFileProblem } from '../documents/spec-file.js';
import { writeOutputFile } from '../files/output-file.js';
import { type ContractDocument, InvalidSpecError, loadContract } from '../openapi/document.js';
import { packageVersion } from '../openapi/package-root.js';
import { collectGarbageThrottled } from '../server/memory-release.js';
import { type Command, type CommandIo, diagnostic, exitCodes, formatSize, integerOption, UsageError } from './command.js';
import { checkOutputAtStart, readProfileOption, tlsOptions } from './file-options.js';
import { type OptionTable, type OptionValues, optionsHelp, parseOptions } from './options.js';
import { addressPolicyFrom, addressPolicyOptions, allowRemoteRefsOption, specAdvice } from './spec-file.js';
import { secretInputsOf, workflowOptionTable, workflowRunOptions } from './workflow-options.js';
import { callerOf, interruptedProfileLine, writeLearntProfile } from './write-profile.js';

function checkList(): string {
  const width = Math.max(...checks.map((check) => check.name.length));
  return checks
    .map(
      (check) =>
        `  ${check.name.padEnd(width)}  ${(check.severity === 'required' ? 'required' : `advisory ${check.assumption ?? ''}`).padEnd(13)}  ${check.description}`,
    )
    .join('\n');
}

/** The run's options, written once: the parser, --help and docs/cli.md come from here. */
export const conformanceOptions = {
  'base-url': {
    kind: 'string',
    value: 'URL',
    help: 'the server under test (contract paths are appended); a user name and password in it are sent as an Authorization: Basic header',
  },
  spec: {
    kind: 'string',
    value: 'FILE|URL',
    help: 'the OpenAPI 3.1 document, a file or an http(s) URL (default: the bundled spec/openapi.yaml). Schemathesis: its first argument; Dredd: the API description',
  },
  'allow-remote-refs': allowRemoteRefsOption,
  ...addressPolicyOptions,
  pact: {
    kind: 'string',
    value: 'FILE',
    path: 'file',
    help: "verify a pact (Pact Specification V4, V3 or V2) against the server instead of running the default probes: each HTTP interaction's provider states set up, its request sent, its answer judged by the pact (pact_interaction_matches) and by the runner's response checks. States the contract reaches through its API (a job in a given state, a used Idempotency-Key, no job) are set up through the API; others need --provider-states-url, and without them the interaction is not sent (exit 3). Pact: pact_verifier_cli --file",
  },
  'provider-states-url': {
    kind: 'string',
    value: 'URL',
    help: "with --pact: set up every provider state by POSTing { state, params, action: 'setup' } to the provider's own endpoint (and 'teardown' after), its JSON answer filling ProviderState generators. Pact: pact_verifier_cli --state-change-url; pact-js providerStatesSetupUrl",
  },
  ca: {
    kind: 'string',
    value: 'FILE',
    help: "trust the PEM certificates in FILE (a private CA, a self-signed server) for an https --base-url, instead of Node's bundled roots. Schemathesis: --tls-verify FILE",
  },
  insecure: {
    kind: 'boolean',
    help: "do not check the https target's certificate (encrypted, but the server is not authenticated). Schemathesis: --tls-verify false; Dredd: none",
  },
  header: { kind: 'string', value: "'Name: value'", multiple: true, help: "the first caller's credentials; repeatable" },
  'second-caller-header': {
    kind: 'string',
    value: "'Name: value'",
    multiple: true,
    help: "a second caller's credentials; enables second_caller_isolation",
  },
  seed: {
    kind: 'integer',
    value: 'N',
    min: 0,
    max: 2 ** 31 - 1,
    help: 'seed for generated inputs (default: random, printed); the same seed sends the same requests, under new Idempotency-Keys each run',
  },
  'run-id': {
    kind: 'string',
    value: 'ID',
    help: 'goes into every Idempotency-Key with the seed (default: random, printed); the same --seed and --run-id repeat a run byte for byte on a fresh server (1-32 of A-Z a-z 0-9 - _)',
  },
  'max-requests': {
    kind: 'integer',
    value: 'N',
    min: 1,
    max: 1_000_000,
    help: `at most N HTTP requests (default ${conformanceDefaults.maxRequests})`,
  },
  concurrency: {
    kind: 'integer',
    value: 'N',
    min: 2,
    max: 16,
    help: `identical creates sent at once by the stateful sequences, to catch duplicates racing into two jobs, and different bodies at once at most (2-16, default ${conformanceDefaults.concurrency})`,
  },
  'replay-wait': {
    kind: 'duration',
    value: 'DURATION',
    bareUnit: 's',
    minMs: 0,
    maxMs: maxReplayWaitMs,
    help: `how long after a job is final its key is replayed once more (replay_after_job_final), so a key forgotten sooner fails; the wait overlaps the run's other requests (default ${formatDuration(conformanceDefaults.replayWaitMs)}, up to ${formatDuration(maxReplayWaitMs)}, far within the key's 24 h of A-16; 0: no late replay; a bare number is s)`,
  },
  rate: { kind: 'integer', value: 'N', min: 1, max: 100_000, help: 'at most N requests per second (default: unlimited)' },
  timeout: {
    kind: 'duration',
    value: 'DURATION',
    bareUnit: 'ms',
    minMs: 1,
    maxMs: 600_000,
    help: `per-request deadline, headers and body, shared by the request's redirects and 429 retry (default ${formatDuration(conformanceDefaults.timeoutMs)}; a bare number is ms)`,
  },
  'job-timeout': {
    kind: 'duration',
    value: 'DURATION',
    bareUnit: 's',
    minMs: 0,
    maxMs: 86_400_000,
    help: `how long the created job is polled for COMPLETE or FAILED, from its first read (default ${formatDuration(conformanceDefaults.jobTimeoutMs)}; a bare number is s)`,
  },
  'time-budget': {
    kind: 'duration',
    value: 'DURATION',
    minMs: 1000,
    maxMs: 86_400_000,
    help: `the whole run's time, from its start: nothing is sent after it, and what was not sent makes the run incomplete (default ${formatDuration(conformanceDefaults.timeBudgetMs)}; needs a unit)`,
  },
  'max-response-bytes': {
    kind: 'size',
    value: 'SIZE',
    min: 1024,
    max: 1024 ** 3,
    help: `read at most SIZE of one answer, as sent and decoded: 1048576, 512KiB, 8MiB (default ${formatSize(conformanceDefaults.maxResponseBytes)})`,
  },
  'max-consecutive-timeouts': {
    kind: 'integer',
    value: 'N',
    min: 1,
    max: 1_000_000,
    help: `stop sending to an operation after N timeouts in a row (default ${conformanceDefaults.maxConsecutiveTimeouts})`,
  },
  'max-examples': {
    kind: 'integer',
    value: 'N',
    min: 0,
    max: 100_000,
    help: `generated inputs per operation, at most (default ${conformanceDefaults.examplesPerOperation}; 0: none). Schemathesis: --max-examples`,
  },
  'max-failures': {
    kind: 'integer',
    value: 'N',
    min: 1,
    max: 1_000_000,
    help: 'stop sending after N exchanges failed a required check (with --strict, any check); the rest is not sent, the run is failed. Schemathesis: --max-failures; Dredd: --bail (for 1)',
  },
  'fail-fast': { kind: 'boolean', help: 'the same as --max-failures 1 (Schemathesis: -x/--exitfirst)' },
  'max-response-time': {
    kind: 'duration',
    value: 'DURATION',
    bareUnit: 'ms',
    minMs: 1,
    maxMs: 600_000,
    help: 'an answer slower than this fails the advisory max_response_time, which runs only with this option (a bare number is ms). Schemathesis: --max-response-time',
  },
  checks: { kind: 'string', value: 'a,b', help: 'run only these checks' },
  'exclude-checks': { kind: 'string', value: 'a,b', help: 'leave these checks out' },
  'include-operation': {
    kind: 'string',
    value: 'ID,...',
    multiple: true,
    help: 'send requests only to these operations (operationIds); repeatable. Schemathesis: --include-operation-id; Dredd: --only',
  },
  'exclude-operation': { kind: 'string', value: 'ID,...', multiple: true, help: 'send no request to these operations; repeatable' },
  'include-path': {
    kind: 'string',
    value: 'PATH,...',
    multiple: true,
    help: 'only the operations of these path templates (/v0/jobs/{jobId})',
  },
  'include-method': {
    kind: 'string',
    value: 'M,...',
    multiple: true,
    help: 'only the operations of these methods (GET, POST). A check whose requests the filters all leave out is skipped as left out, like --exclude-checks: it does not make the run incomplete',
  },
  profile: {
    kind: 'string',
    value: 'FILE',
    path: 'file',
    help: 'hold the server to its own profile (docs/profiles.md): each declared entry is a required check, and the advisory checks of the points it declares are not run',
  },
  'write-profile': {
    kind: 'string',
    value: 'FILE',
    path: 'file',
    help: "learn the server's profile from the run's answers and write it to FILE (YAML), each entry with what was seen; what no answer showed is left out, and entries answered two ways are reported, and an answer a profile may not hold (over the mock's bounds, or holding a credential) is left out with the reason. FILE is checked at start like --report's; an interrupted run writes none",
  },
  strict: {
    kind: 'boolean',
    help: 'advisory checks count too (their failures fail, their skips make it incomplete)',
  },
  report: {
    kind: 'string',
    value: 'FORMAT=FILE',
    multiple: true,
    help: 'write a report: junit=FILE, json=FILE or html=FILE; repeatable',
  },
  'keep-bodies': {
    kind: 'string',
    value: 'DIR',
    help: 'write request bodies too long for a curl line (over 16 KiB) into DIR, which the curl lines read (default: beside the first --report; without either, such curl lines leave the body out and nothing is written)',
  },
  record: {
    kind: 'string',
    value: 'FILE.har',
    help: "write every exchange sent as a HAR 1.2 cassette (browsers' devtools and proxies open it), credentials scrubbed. Schemathesis: --report-har-path (--cassette-path)",
  },
  'rerun-failed': {
    kind: 'string',
    value: 'REPORT.json',
    help: 'run only the checks that failed in that JSON report (with --checks, those of them); Schemathesis: --rerun-failed-checks',
  },
  hooks: {
    kind: 'string',
    value: 'FILE.mjs',
    help: 'a module exporting any of beforeRequest(request) (may change its headers and body, e.g. refresh a token), afterResponse(exchange), and checks: extra checks ({ name, description, severity, judge(exchange, context) }) selected and reported like the built-in ones. Schemathesis: --hooks / SCHEMATHESIS_HOOKS; Dredd: --hookfiles',
  },
  quiet: { kind: 'boolean', help: 'no progress lines on stderr' },
  ...workflowOptionTable,
} as const satisfies OptionTable;

/** The replay's options, written once. */
export const replayOptions = {
  failure: { kind: 'string', value: 'N', multiple: true, help: 'only failure N, as the summary numbers them; repeatable' },
  'base-url': { kind: 'string', value: 'URL', help: "where to send (default: the report's target)" },
  spec: { kind: 'string', value: 'FILE', help: "the OpenAPI document (default: the report's)" },
  'allow-remote-refs': allowRemoteRefsOption,
  ...addressPolicyOptions,
  header: {
    kind: 'string',
    value: "'Name: value'",
    multiple: true,
    help: "the first caller's credentials (never kept in a report); repeatable",
  },
  'second-caller-header': { kind: 'string', value: "'Name: value'", multiple: true, help: "the second caller's" },
  timeout: {
    kind: 'duration',
    value: 'DURATION',
    bareUnit: 'ms',
    minMs: 1,
    maxMs: 600_000,
    help: `per-request deadline (default ${formatDuration(conformanceDefaults.timeoutMs)}; a bare number is ms)`,
  },
  ca: { kind: 'string', value: 'FILE', help: 'trust this PEM certificate for an https target, as for a run' },
  insecure: { kind: 'boolean', help: "do not check an https target's certificate, as for a run" },
} as const satisfies OptionTable;

const help = `Usage: evidence-harness conformance --base-url URL [options]
       evidence-harness conformance replay REPORT.json [--failure N] [options] (below)

Checks a live implementation of the contract against the OpenAPI document: every documented
status, media type and schema; schema-valid inputs accepted and single-constraint mutations
rejected (property-based, seeded, shrunk); idempotent replays, 409 conflicts, two keys giving
two jobs, job lifecycles and caller isolation. Each failure names the check and operation, what
was expected and what came back, and a curl command that reproduces it (credentials read from
environment variables, never printed). Every part of a run is bounded, whatever the server does.

Options:
${optionsHelp(conformanceOptions)}

Durations: 500ms, 1.5s, 30s, 10m (no hours: 120m); a bare number is in the unit shown above.

Exit codes: 0 passed: every required check ran and passed; 1 a check failed; 2 usage error,
invalid spec or unreachable target; 3 incomplete: nothing failed, but a required check did not
run, or ran only in part (the summary says why; --exclude-checks it if that is intended); 130/143 interrupted by
SIGINT/SIGTERM (the summary and reports of what ran are still written, marked incomplete; no
profile is written, and a file already at --write-profile's path is left as it was).

On Linux with glibc and Node 22.15 or later, the runner restarts itself once at launch (same PID)
with MALLOC_MMAP_THRESHOLD_=32768, so that a server answering megabytes does not fragment its
memory (EVIDENCE_HARNESS_MALLOC_TUNING=off prevents it).

Checks (required: the contract states it; advisory: a decision of docs/assumptions.md):
${checkList()}

With --pact, the pact's interactions are judged by pact_interaction_matches (required) and, for
V4 pending interactions, pact_pending_interaction_matches (advisory), with the response checks
above that judge any answer (docs/pact-verify.md).

Examples:
  evidence-harness conformance --base-url http://127.0.0.1:4010
  evidence-harness conformance --base-url https://staging.example/api \\
      --header 'Authorization: Bearer alice' --second-caller-header 'Authorization: Bearer bob' \\
      --seed 42 --report junit=reports/conformance.xml --report html=reports/conformance.html
  evidence-harness conformance --base-url http://127.0.0.1:4010 --checks negative_data_rejection,idempotency_conflict
  evidence-harness conformance --base-url http://127.0.0.1:4010 --workflows spec/workflows.arazzo.yaml \\
      --input secondCallerAuthorization='Bearer bob'
  evidence-harness conformance --base-url http://127.0.0.1:4010 --pact pacts/web-app-evidence-service.json
`;

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

/**
 * Largest report read for replay and --rerun-failed: 64 MiB. A report holds at most the run's
 * failures, each with its bounded reproduction; a larger file is not one this tool wrote.
 */
const maxReportBytes = 64 * 1024 * 1024;

/** A JSON report written by --report json=FILE, read for replay and --rerun-failed (src/documents: a regular file, bounded). */
function readReport(file: string, flag: string): ConformanceReport {
  const advice = 'give a report written by --report json=FILE';
  let text: string;
  try {
    text = readDocumentFileSync({ path: file, maxBytes: maxReportBytes }).text;
  } catch (error) {
    if (error instanceof DocumentFileError) throw new UsageError(`${flag} ${file}: ${error.message}; ${advice}`);
    throw error;
  }
  let report: ConformanceReport;
  try {
    report = JSON.parse(text) as ConformanceReport;
  } catch {
    throw new UsageError(`${flag} ${file}: not a JSON report; ${advice}`);
  }
  if (report?.tool !== 'evidence-harness conformance' || !Array.isArray(report.checks))
    throw new UsageError(`${flag} ${file}: not a report of evidence-harness conformance (--report json=FILE)`);
  return report;
}

/** The checks that failed in a report, within --checks when given. */
function rerunChecks(file: string, only: readonly string[]): string[] {
  const failed = readReport(file, '--rerun-failed')
    .checks.filter((check) => check.status === 'failed')
    .map((check) => check.name)
    .filter((name) => only.length === 0 || only.includes(name));
  if (failed.length === 0)
    throw new UsageError(
      `--rerun-failed ${file}: no check failed in that report${only.length > 0 ? ' among --checks' : ''}; nothing to rerun`,
    );
  return failed;
}

const replayHelp = `Usage: evidence-harness conformance replay REPORT.json [options]

Sends each recorded failure's request of a JSON report (--report json=FILE) again, judges the new
answer with the same check, and says per failure "still fails" (with the new answer) or "no
longer fails". A failure whose request builds on a job made earlier in the recorded run (a
replay, a poll, a stateful sequence) cannot be sent alone: it is named, and --rerun-failed
REPORT.json reruns its check. Runner-made Idempotency-Keys are replaced by fresh ones.

Options:
${optionsHelp(replayOptions)}

Exit codes: 0 no replayed failure still fails; 1 one still fails; 2 usage error; 3 none still
fails, but one could not be replayed or judged.
`;

async function replayCommand(argv: readonly string[], rawIo: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions(replayOptions, argv, { allowPositionals: true });
  const rawHeaderValues = [...(values.header ?? []), ...(values['second-caller-header'] ?? [])].map((line) =>
    line.slice(line.indexOf(':') + 1).trim(),
  );
  const urlSecrets = rawUrlSecrets(values['base-url']);
  const scrubber = scrubberFor({ headerValues: rawHeaderValues, extra: urlSecrets });
  const io: CommandIo = { stdout: (text) => rawIo.stdout(scrubber.scrub(text)), stderr: (text) => rawIo.stderr(scrubber.scrub(text)) };
  if (positionals.length !== 1) throw new UsageError('replay takes one JSON report: evidence-harness conformance replay REPORT.json');
  const report = readReport(positionals[0]!, 'replay');
  let headers: Record<string, string>;
  let secondCallerHeaders: Record<string, string>;
  try {
    headers = headersFromLines(values.header ?? []);
    secondCallerHeaders = headersFromLines(values['second-caller-header'] ?? []);
  } catch (error) {
    if (error instanceof HeaderLineError) throw new UsageError(error.message);
    throw error;
  }
  const target = baseUrl(values['base-url'] ?? report.target);
  const timeoutMs = values.timeout;
  const tls = tlsOptions({ ca: values.ca, insecure: values.insecure });
  const total = report.checks.reduce((count, check) => count + check.failures.length, 0);
  const failures = (values.failure ?? []).map((value) => integerOption({ value, name: 'failure', min: 1, max: Math.max(1, total) })!);
  if (total === 0) {
    io.stdout(`The report has no failure to replay (verdict ${report.verdict}).\n`);
    return exitCodes.ok;
  }
  const specSource = values.spec ?? report.spec;
  let contract: ContractDocument;
  try {
    contract = await specContract({
      source: specSource,
      tls,
      allowRemoteRefs: values['allow-remote-refs'] === true,
      addressPolicy: addressPolicyFrom(values),
    });
  } catch (error) {
    if (error instanceof InvalidSpecError) {
      io.stderr(diagnostic(`invalid OpenAPI document: ${error.message}`));
      return exitCodes.usage;
    }
    throw new UsageError(`the spec ${specSource} cannot be read (${(error as Error).message}); give it with --spec`);
  }
  const results = await replayFailures({
    report,
    contract,
    baseUrl: target.baseUrl,
    ...(failures.length > 0 ? { failures } : {}),
    headers: { ...(target.authorization ? { Authorization: target.authorization } : {}), ...headers },
    secondCallerHeaders,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    scrub: (text) => scrubber.scrub(text),
    ...(tls ? { tls } : {}),
  });
  const words = {
    'still-fails': 'still fails',
    'no-longer-fails': 'no longer fails',
    'cannot-tell': 'cannot tell',
    'not-replayable': 'not replayed',
  };
  const lines = [`Replaying ${results.length} failure(s) of ${positionals[0]} against ${target.baseUrl}:`, ''];
  for (const result of results) {
    lines.push(`${result.index}. ${result.failure.check} · ${result.failure.operation} · ${result.failure.title}`);
    lines.push(`   ${words[result.outcome]}${result.title ? `: ${result.title}` : ''} — ${result.detail}`);
  }
  const count = (outcome: string) => results.filter((result) => result.outcome === outcome).length;
  lines.push(
    '',
    `${count('still-fails')} still fail(s), ${count('no-longer-fails')} no longer fail(s), ${count('cannot-tell') + count('not-replayable')} not judged`,
  );
  io.stdout(`${lines.join('\n')}\n`);
  if (count('still-fails') > 0) return conformanceExitCodes.failed;
  return count('cannot-tell') + count('not-replayable') > 0 ? conformanceExitCodes.incomplete : exitCodes.ok;
}

/** A --spec document through the one loader (src/documents): a URL resolved against itself, its credentials never printed. */
async function specContract(options: {
  source: string;
  tls: TlsOptions | undefined;
  allowRemoteRefs: boolean;
  addressPolicy: AddressPolicy;
}): Promise<ContractDocument> {
  return loadContract({
    source: options.source,
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
    addressPolicy: options.addressPolicy,
  });
}

/** --pact and --provider-states-url as run options; the second needs the first. */
function pactOptions(values: { pact?: string | undefined; 'provider-states-url'?: string | undefined }): {
  pact?: string;
  providerStatesUrl?: string;
} {
  const url = values['provider-states-url'];
  if (url !== undefined && values.pact === undefined)
    throw new UsageError("--provider-states-url sets up a pact's provider states; give --pact FILE too.");
  if (values.pact === undefined) return {};
  if (values.pact === '') throw new UsageError('--pact needs a file, for example --pact pacts/web-app-evidence-service.json');
  return { pact: values.pact, ...(url === undefined ? {} : { providerStatesUrl: url }) };
}

/** A repeatable option of comma lists, as one list. */
function lists(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((value) => list(value));
}

/** The base URL, checked; its userinfo (never echoed) becomes an Authorization header. */
function baseUrl(value: string | undefined): BaseUrlCredentials {
  if (!value) throw new UsageError('--base-url is required.');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // Not echoed: it may hold a password.
    throw new UsageError('--base-url is not a URL (for example http://127.0.0.1:8080).');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--base-url must be http or https, got '${url.protocol}'.`);
  if (url.search || url.hash) throw new UsageError('--base-url must not have a query or fragment.');
  return credentialsFromBaseUrl(value);
}

/** The credentials in a raw --base-url, even one that does not parse, so no message can print them. */
function rawUrlSecrets(value: string | undefined): string[] {
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)@/i.exec(value ?? '')?.[1];
  if (!userinfo) return [];
  const colon = userinfo.indexOf(':');
  return colon >= 0 ? [userinfo, userinfo.slice(colon + 1)] : [userinfo];
}

/**
 * Where request bodies too long for a curl line are written: --keep-bodies, else beside the first
 * report; without either, nowhere (A-42: no file of a run survives it unless the user named
 * its folder, and a body written only to be removed at exit would leave its curl line broken).
 */
function bodyDirectoryFor(reports: readonly ReportTarget[], keepBodies: string | undefined): string | undefined {
  if (keepBodies !== undefined) {
    if (keepBodies === '') throw new UsageError('--keep-bodies needs a folder, for example --keep-bodies conformance-bodies');
    return keepBodies;
  }
  const first = reports[0];
  return first ? join(dirname(first.file), 'conformance-bodies') : undefined;
}

/**
 * Removes the body folders earlier versions left in the temp folder (`evidence-harness-UID/bodies-PID`
 * and `bodies-seed-N`, never removed): this user's own, and only those of processes that are gone.
 */
function removeOldTempBodies(): void {
  const folder = join(tmpdir(), `evidence-harness-${process.getuid?.() ?? 'user'}`);
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of entries) {
    const pid = /^bodies-(\d+)$/.exec(name)?.[1];
    if (pid === undefined && !/^bodies-seed-\d+$/.test(name)) continue;
    if (pid !== undefined && isRunning(Number(pid))) continue;
    rmSync(join(folder, name), { recursive: true, force: true });
  }
  try {
    rmdirSync(folder);
  } catch {
    // Not empty: something else of this user's is there.
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The body files a run wrote into `folder`, and their size: said at the end, so the user knows what is kept. */
function keptBodies(folder: string | undefined): { count: number; bytes: number } | undefined {
  if (folder === undefined || !existsSync(folder)) return undefined;
  let count = 0;
  let bytes = 0;
  for (const name of readdirSync(folder)) {
    if (!/^exchange-\d+\.json$/.test(name)) continue;
    count += 1;
    bytes += statSync(join(folder, name)).size;
  }
  return count === 0 ? undefined : { count, bytes };
}

/** Checks before the run that every report (and the body folder) can be written: a run is not thrown away at its end. */
async function prepareOutputs(options: {
  reports: readonly ReportTarget[];
  record?: string | undefined;
  keepBodies?: string | undefined;
  writeProfile?: string | undefined;
}): Promise<void> {
  if (options.writeProfile === '') throw new UsageError('--write-profile needs a file name, for example --write-profile profile.yaml');
  if (options.record === '') throw new UsageError('--record needs a file name, for example --record run.har');
  for (const target of options.reports) await checkOutputAtStart({ path: target.file, label: `--report ${target.format}=` });
  if (options.writeProfile !== undefined) await checkOutputAtStart({ path: options.writeProfile, label: '--write-profile' });
  if (options.keepBodies !== undefined) await checkOutputAtStart({ path: options.keepBodies, label: '--keep-bodies', folder: true });
  if (options.record !== undefined) await checkOutputAtStart({ path: options.record, label: '--record' });
}

export const conformanceCommand: Command = {
  name: 'conformance',
  summary: 'check a live implementation against the OpenAPI document',
  // main answers --help before the command runs, so the replay's options are listed here too.
  help: `${help}\n${replayHelp}`,
  optionTables: { conformance: conformanceOptions, 'conformance replay': replayOptions },
  async run(argv, rawIo) {
    if (argv[0] === 'replay') return replayCommand(argv.slice(1), rawIo);
    const { values } = parseOptions(conformanceOptions, argv);
    // Every credential on the command line is scrubbed from everything this command prints.
    const rawHeaderValues = [...(values.header ?? []), ...(values['second-caller-header'] ?? [])].map((line) =>
      line.slice(line.indexOf(':') + 1).trim(),
    );
    const urlSecrets = rawUrlSecrets(values['base-url']);
    const workflowOptions = workflowRunOptions({ workflows: values.workflows, input: values.input, workflow: values.workflow });
    const scrubber = scrubberFor({ headerValues: rawHeaderValues, extra: [...urlSecrets, ...(await secretInputsOf(workflowOptions))] });
    const io: CommandIo = { stdout: (text) => rawIo.stdout(scrubber.scrub(text)), stderr: (text) => rawIo.stderr(scrubber.scrub(text)) };
    let headers: Record<string, string>;
    let secondCallerHeaders: Record<string, string>;
    let reports: ReportTarget[];
    try {
      headers = headersFromLines(values.header ?? []);
      secondCallerHeaders = headersFromLines(values['second-caller-header'] ?? []);
      reports = (values.report ?? []).map(parseReportTarget);
    } catch (error) {
      if (error instanceof HeaderLineError || error instanceof ReportSpecError) throw new UsageError(error.message);
      throw error;
    }
    const target = baseUrl(values['base-url']);
    if (target.authorization && Object.keys(headers).some((name) => name.toLowerCase() === 'authorization'))
      throw new UsageError(
        '--base-url has a user name and password, and --header gives an Authorization header too; give only one of them.',
      );
    const seed = values.seed;
    const runId = values['run-id'];
    if (runId !== undefined && !isRunId(runId))
      throw new UsageError(
        `--run-id must be 1 to 32 letters, digits, '-' or '_' (it goes into Idempotency-Key headers), got '${runId.slice(0, 40)}'. Copy it from the summary line of the run to repeat.`,
      );
    const bounds = runBoundsOf(values);
    if (target.authorization && !values.quiet)
      io.stderr(
        diagnostic('conformance: the user name and password in --base-url are sent as an Authorization: Basic header (never printed).'),
      );
    for (const fragment of scrubber.tooShort)
      io.stderr(
        diagnostic(
          `conformance: a credential value of ${fragment.length} character(s) is too short to be scrubbed from what the server sends back.`,
        ),
      );
    // Ctrl-C or a SIGTERM stops the run; the summary and reports of what ran are still written.
    const interrupt = new AbortController();
    const onSignal = (signal: NodeJS.Signals) => {
      if (interrupt.signal.aborted) process.exit(signal === 'SIGTERM' ? conformanceExitCodes.SIGTERM : conformanceExitCodes.SIGINT);
      io.stderr(diagnostic(`conformance: ${signal}: stopping, then writing the summary and reports of what ran (again to quit at once).`));
      interrupt.abort(signal);
    };
    const tls = tlsOptions({ ca: values.ca, insecure: values.insecure });
    let hooks: ConformanceHooks | undefined;
    try {
      hooks = values.hooks === undefined ? undefined : await loadHooks(resolve(values.hooks));
    } catch (error) {
      if (error instanceof HookError) throw new UsageError(`--hooks ${error.message}`);
      throw error;
    }
    if (values.spec !== undefined && !isHttpUrl(values.spec)) {
      // A missing file is a mistake in the command line, not a broken document: say which.
      const problem = specFileProblem(values.spec);
      if (problem) throw new UsageError(`--spec: ${problem}; ${specAdvice}`);
    }
    const bodyDirectory = bodyDirectoryFor(reports, values['keep-bodies']);
    removeOldTempBodies();
    await prepareOutputs({
      reports,
      record: values.record,
      keepBodies: values['keep-bodies'],
      writeProfile: values['write-profile'],
    });
    const cassette =
      values.record === undefined
        ? undefined
        : new CassetteRecorder({
            secretHeaders: [
              ...Object.keys(headers),
              ...Object.keys(secondCallerHeaders),
              ...(target.authorization ? ['Authorization'] : []),
            ],
            scrub: (text) => scrubber.scrub(text),
          });
    const profile = await readProfileOption(values.profile);
    const learner = values['write-profile'] === undefined ? undefined : new ProfileLearner();
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const report = await runConformance({
        baseUrl: target.baseUrl,
        ...(values.spec
          ? {
              spec: await specContract({
                source: values.spec,
                tls,
                allowRemoteRefs: values['allow-remote-refs'] === true,
                addressPolicy: addressPolicyFrom(values),
              }),
            }
          : {}),
        headers: { ...(target.authorization ? { Authorization: target.authorization } : {}), ...headers },
        secondCallerHeaders,
        ...(seed === undefined ? {} : { seed }),
        ...(runId === undefined ? {} : { runId }),
        ...bounds,
        checks: values['rerun-failed'] === undefined ? list(values.checks) : rerunChecks(values['rerun-failed'], list(values.checks)),
        excludeChecks: list(values['exclude-checks']),
        operations: {
          includeOperations: lists(values['include-operation']),
          excludeOperations: lists(values['exclude-operation']),
          includePaths: lists(values['include-path']),
          includeMethods: lists(values['include-method']),
        },
        strict: values.strict,
        signal: interrupt.signal,
        // This process is the runner alone: collect at once after an answer of megabytes, so a
        // server answering megabytes to every request cannot push peak memory up (issue 11).
        afterLargeAnswer: collectGarbageThrottled(),
        ...(bodyDirectory === undefined ? {} : { bodyDirectory }),
        ...(cassette ? { cassette } : {}),
        ...(tls ? { tls } : {}),
        ...(hooks ? { hooks } : {}),
        ...workflowOptions,
        ...pactOptions(values),
        secrets: [...target.secrets, ...urlSecrets, ...rawUrlSecrets(values['provider-states-url'])],
        ...(profile ? { profile } : {}),
        ...(learner ? { onExchange: (exchange) => learner.record(exchange), learn: true } : {}),
        ...(values.quiet ? {} : { onProgress: (message: string) => io.stderr(diagnostic(`conformance: ${message}`)) }),
      });
      io.stdout(renderSummary(report));
      await writeReports(report, reports, { scrub: (text) => scrubber.scrub(text) });
      for (const written of reports) io.stderr(diagnostic(`conformance: wrote the ${written.format} report to ${written.file}`));
      // An interrupted run writes no profile (A-52): what it never reached would read as "not seen".
      if (learner && values['write-profile'] !== undefined && interrupt.signal.aborted) io.stderr(diagnostic(interruptedProfileLine));
      else if (learner && values['write-profile'] !== undefined)
        await writeLearntProfile({
          learner,
          file: values['write-profile'],
          caller: callerOf(headers, secondCallerHeaders),
          io,
          report,
          scrub: (text) => scrubber.scrub(text),
        });
      const kept = keptBodies(bodyDirectory);
      if (kept)
        io.stderr(
          diagnostic(
            `conformance: ${kept.count} request bodies too long for a curl line (${(kept.bytes / 2 ** 20).toFixed(1)} MB) are in ${bodyDirectory}, which the curl lines read`,
          ),
        );
      if (cassette && values.record) {
        const har = scrubber.scrub(cassette.toHar({ name: 'evidence-harness conformance', version: packageVersion() }));
        await writeOutputFile({ path: values.record, data: har, label: '--record' });
        io.stderr(diagnostic(`conformance: wrote ${cassette.size} exchange(s) to ${values.record} (HAR 1.2)`));
      }
      return report.exitCode;
    } catch (error) {
      return runFailure({ error, io, hooks: values.hooks });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};

/** The run's bounds given on the command line, as runConformance takes them (absent: its defaults). */
function runBoundsOf(values: OptionValues<typeof conformanceOptions>): Partial<ConformanceOptions> {
  const maxFailuresGiven = values['max-failures'];
  if (values['fail-fast'] && maxFailuresGiven !== undefined && maxFailuresGiven !== 1)
    throw new UsageError(
      `--fail-fast stops at the first failure, and --max-failures ${maxFailuresGiven} asks for more; give only one of them.`,
    );
  const given: Partial<Record<keyof ConformanceOptions, number | undefined>> = {
    maxRequests: values['max-requests'],
    concurrency: values.concurrency,
    replayWaitMs: values['replay-wait'],
    rate: values.rate,
    timeoutMs: values.timeout,
    jobTimeoutMs: values['job-timeout'],
    timeBudgetMs: values['time-budget'],
    maxResponseBytes: values['max-response-bytes'],
    maxConsecutiveTimeouts: values['max-consecutive-timeouts'],
    maxExamples: values['max-examples'],
    maxFailures: values['fail-fast'] ? 1 : maxFailuresGiven,
    maxResponseTimeMs: values['max-response-time'],
  };
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined));
}

/** A run that could not go on: a usage error (exit 2) with its message, or thrown on. */
function runFailure(options: { error: unknown; io: CommandIo; hooks: string | undefined }): number {
  const { error, io } = options;
  if (error instanceof UnknownCheckError || error instanceof UnknownOperationError) throw new UsageError(`${error.message}.`);
  if (error instanceof PactFileError) throw new UsageError(`--pact ${error.message}.`);
  const message =
    error instanceof InvalidSpecError
      ? `invalid OpenAPI document: ${error.message}`
      : error instanceof HookError
        ? `conformance: --hooks ${options.hooks}: ${error.message}`
        : error instanceof WorkflowDocumentError
          ? `conformance: --workflows ${error.message}`
          : error instanceof UnreachableTargetError
            ? `conformance: ${error.message}. Is the server running, and is --base-url right?`
            : undefined;
  if (message === undefined) throw error;
  io.stderr(diagnostic(message));
  return exitCodes.usage;
}
