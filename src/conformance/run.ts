/**
 * @module conformance/run
 * `runConformance(options)`: reads the spec, checks the target answers, runs the probes the
 * selected checks need (in a fixed order, one request at a time, so a seed reproduces a run),
 * and judges every exchange as it is recorded. It talks to the target over HTTP only, through
 * node:http or an injected Fetch function, and every part of it is bounded: each answer's size
 * and time, the whole run's time (--time-budget), the requests to an operation that keeps timing
 * out. What did not run makes the verdict "incomplete", never "passed"; credentials given to it
 * are scrubbed from everything it reports.
 */
import { randomInt } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compilePathTemplate } from '../contract/path-template.js';
import { type ContractDocument, loadContract } from '../openapi/document.js';
import { packageVersion } from '../openapi/package-root.js';
import { ResponseValidator } from '../openapi/response-validator.js';
import type { Check, ProbeName } from './checks/check.js';
import { maxResponseTime } from './checks/generic-checks.js';
import { selectChecks, UnknownCheckError } from './checks/registry.js';
import type { Exchange, Intent } from './exchange.js';
import { type ConformanceHooks, HookError, type HookRequest } from './hooks.js';
import type { TlsOptions } from './http/bounded-client.js';
import { credentialVariable, inlineBodyLimit, toCurl } from './http/curl.js';
import { defaultMaxResponseBytes, type FetchFunction, sleep, Transport } from './http/transport.js';
import { Judging, verdictsOn } from './judge.js';
import { OperationFilter, type OperationFilterOptions } from './operation-filter.js';
import { oversizedBodyProbe, undeclaredMethodProbe, undeclaredPathProbe } from './probes/assumption-probes.js';
import { malformedJsonProbe, missingHeaderProbe, negativeProbe, positiveProbe } from './probes/data-probes.js';
import { generatedProbe } from './probes/generated-probe.js';
import { ignoredAuthProbe } from './probes/ignored-auth-probe.js';
import {
  conflictProbe,
  distinctKeysProbe,
  isolationProbe,
  lifecycleProbe,
  replayProbe,
  reserializedReplayProbe,
  unknownJobProbe,
  verificationProbe,
} from './probes/job-probes.js';
import { equivalentMediaTypeProbe, unsupportedMediaTypeProbe } from './probes/media-type-probe.js';
import { isRunId, newRunId, type ProbeContext, type ProbeRequest } from './probes/probe-context.js';
import { jsonBodySchema, parametersIn } from './probes/request-builder.js';
import { checkReplayWait, finishLateReplays, sequenceProbe } from './probes/sequence-probe.js';
import { replayableRequest } from './replay.js';
import type { CassetteRecorder } from './report/cassette.js';
import { CoverageTracker } from './report/coverage.js';
import { type CheckResult, type ConformanceReport, conformanceExitCodes, type RunVerdict } from './report/report.js';
import { credentialsFromBaseUrl, scrubberFor } from './secrets.js';

export interface ConformanceOptions {
  /** The server under test, e.g. http://127.0.0.1:8080 (contract paths are appended). */
  readonly baseUrl: string;
  /** A path to an OpenAPI 3.1 document, or one already loaded. Default: the bundled spec/openapi.yaml. */
  readonly spec?: string | ContractDocument;
  /** The first caller's headers (credentials), sent on every request. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The second caller's headers; enables second_caller_isolation. */
  readonly secondCallerHeaders?: Readonly<Record<string, string>>;
  /** Seeds every generated input; default: random (the report says which). */
  readonly seed?: number;
  /**
   * Goes into every Idempotency-Key with the seed; default: a new random one (the report says
   * which). The same seed and run id repeat a run byte for byte on a fresh server; the same
   * seed with a new run id repeats its requests under new keys, so that a long-lived server
   * creates jobs again rather than replaying the first run's.
   */
  readonly runId?: string;
  /** At most this many HTTP requests. Default 400. */
  readonly maxRequests?: number;
  /** Requests per second; default unlimited. */
  readonly rate?: number;
  /** Per-request timeout in ms, headers and body included. Default 10000. */
  readonly timeoutMs?: number;
  /** How long a job may take to reach a final state, in ms. Default 30000. */
  readonly jobTimeoutMs?: number;
  /** The whole run's time, in ms: no request starts after it, and none runs past it. Default 600000. */
  readonly timeBudgetMs?: number;
  /** The most body bytes read from one answer, as sent and decoded. Default 4 MiB. */
  readonly maxResponseBytes?: number;
  /** After this many timeouts in a row on one operation, stop sending to it. Default 3. */
  readonly maxConsecutiveTimeouts?: number;
  /**
   * An answer slower than this (ms, from when the request may go to the end of its body) fails
   * the advisory max_response_time, which runs only when this is given.
   */
  readonly maxResponseTimeMs?: number;
  /** Check names to run (default all) and to leave out. */
  readonly checks?: readonly string[];
  readonly excludeChecks?: readonly string[];
  /**
   * Which operations get requests (--include-operation, --exclude-operation, --include-path,
   * --include-method). What they leave out is not sent, and a check left with nothing to judge
   * is reported as left out, not as incomplete.
   */
  readonly operations?: OperationFilterOptions;
  /** Advisory failures fail the run too. */
  readonly strict?: boolean;
  /** Generated inputs per operation, at most (--max-examples, Schemathesis's name). Default 50. */
  readonly maxExamples?: number;
  /** The older name of maxExamples; maxExamples wins when both are given. */
  readonly examplesPerOperation?: number;
  /**
   * Stop sending once this many exchanges failed a check that counts (required, or any with
   * strict): --max-failures, and --fail-fast for 1. The rest is not sent; the run is failed.
   * Default: no limit.
   */
  readonly maxFailures?: number;
  /** How many identical creates the stateful phase sends at once (concurrent_duplicates_one_job). Default 5. */
  readonly concurrency?: number;
  /** How long after its job is final a key is replayed again (replay_after_job_final), in ms; 0: not. Default 2000. */
  readonly replayWaitMs?: number;
  /** How an https target's certificate is checked: `ca` (PEM text) trusted instead of Node's roots (--ca), or `insecure` (--insecure). */
  readonly tls?: TlsOptions;
  /** beforeRequest, afterResponse and extra checks (--hooks FILE.mjs, loaded by loadHooks). */
  readonly hooks?: ConformanceHooks;
  /** Replaces node:http, e.g. to reach an in-process server. */
  readonly fetch?: FetchFunction;
  /**
   * Stops the run: the request in flight is cut, nothing more is sent, and the report of what
   * ran comes back marked incomplete. Abort it with the signal's name ('SIGINT', 'SIGTERM').
   */
  readonly signal?: AbortSignal;
  /** Where request bodies too long to inline in a curl command are written. Default: not written. */
  readonly bodyDirectory?: string;
  /** Further credentials to scrub from everything reported (a base URL's password). */
  readonly secrets?: readonly string[];
  /** Called after each answer over 1 MiB (the CLI collects garbage there: Transport's afterLargeAnswer). */
  readonly afterLargeAnswer?: () => void;
  /** Receives progress lines while the run goes on. */
  readonly onProgress?: (message: string) => void;
  /** Receives every exchange as it is recorded (for logs, or a second opinion such as Prism's). */
  readonly onExchange?: (exchange: Exchange) => void;
  /**
   * Keeps every exchange sent, judged or not (a generated input's shrinking steps too), in a
   * cassette (--record): credentials are taken out by the recorder.
   */
  readonly cassette?: CassetteRecorder;
}

export const conformanceDefaults = {
  maxRequests: 400,
  timeoutMs: 10_000,
  jobTimeoutMs: 30_000,
  timeBudgetMs: 600_000,
  maxResponseBytes: defaultMaxResponseBytes,
  maxConsecutiveTimeouts: 3,
  examplesPerOperation: 50,
  concurrency: 5,
  replayWaitMs: 2000,
} as const;

/** Thrown when the target does not answer at all; the CLI exits 2. */
export class UnreachableTargetError extends Error {
  override readonly name = 'UnreachableTargetError';
}

interface Phase {
  readonly probe: ProbeName;
  readonly label: string;
  readonly run: (context: ProbeContext, state: { jobId?: string }) => Promise<void>;
}

/** The probes in the order they run: stateful ones first, so a small --max-requests still covers them. */
const phases: readonly Phase[] = [
  {
    probe: 'lifecycle',
    label: 'job lifecycle',
    run: async (context, state) => {
      const jobId = await lifecycleProbe(context);
      if (jobId) state.jobId = jobId;
    },
  },
  { probe: 'distinct-keys', label: 'two keys, two jobs', run: (context, state) => distinctKeysProbe(context, state.jobId) },
  { probe: 'isolation', label: 'second caller', run: (context, state) => isolationProbe(context, state.jobId) },
  { probe: 'replay', label: 'idempotent replay', run: replayProbe },
  { probe: 'reserialized-replay', label: 're-serialised replay', run: reserializedReplayProbe },
  { probe: 'conflict', label: 'idempotency conflict', run: conflictProbe },
  // Stateful sequences judged by a reference model of the idempotency rules, shrunk when they fail.
  { probe: 'conflict-at-depth', label: 'sequences: conflict at every depth', run: sequenceProbe('conflict-at-depth') },
  { probe: 'replay-after-final', label: 'sequences: replay after the job is final', run: sequenceProbe('replay-after-final') },
  { probe: 'key-scope', label: "sequences: the first caller's key, second caller", run: sequenceProbe('key-scope') },
  { probe: 'key-forms', label: 'sequences: one key in other forms', run: sequenceProbe('key-forms') },
  { probe: 'concurrent-duplicates', label: 'sequences: identical creates at once', run: sequenceProbe('concurrent-duplicates') },
  { probe: 'concurrent-bodies', label: 'sequences: different bodies at once', run: sequenceProbe('concurrent-bodies') },
  { probe: 'refused-then-valid', label: 'sequences: a key after a refused create', run: sequenceProbe('refused-then-valid') },
  { probe: 'ignored-auth', label: 'requests without credentials', run: (context, state) => ignoredAuthProbe(context, state.jobId) },
  { probe: 'unknown-job', label: 'unknown job', run: unknownJobProbe },
  { probe: 'verification', label: 'verification example', run: verificationProbe },
  { probe: 'positive', label: 'examples and boundary values', run: positiveProbe },
  { probe: 'positive', label: 'equivalent media types', run: equivalentMediaTypeProbe },
  { probe: 'negative', label: 'single-constraint mutations', run: negativeProbe },
  { probe: 'missing-header', label: 'missing required headers', run: missingHeaderProbe },
  { probe: 'malformed-json', label: 'malformed JSON', run: malformedJsonProbe },
  { probe: 'media-type', label: 'unsupported media types', run: unsupportedMediaTypeProbe },
  { probe: 'oversized-body', label: 'oversized body', run: oversizedBodyProbe },
  { probe: 'undeclared-method', label: 'undeclared methods', run: undeclaredMethodProbe },
  { probe: 'undeclared-path', label: 'undeclared path', run: undeclaredPathProbe },
  { probe: 'replay-after-final', label: 'sequences: replay after --replay-wait', run: finishLateReplays },
  { probe: 'positive', label: 'generated inputs (fast-check)', run: generatedProbe },
];

function neededProbes(checks: readonly Check[]): Set<ProbeName> {
  const needed = new Set(checks.flatMap((check) => check.probes));
  // The isolation probe reads the lifecycle probe's job.
  if (needed.has('isolation') || needed.has('ignored-auth')) needed.add('lifecycle');
  return needed;
}

/** A duration as a person writes it: 600000 → "10m", 5000 → "5s", 1500 → "1500ms". */
export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0 && ms >= 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** Requests outside the contract share one timeout streak; each operation has its own. */
const outsideTheContract = 'routes outside the contract';

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const maxResponseTimeMs = options.maxResponseTimeMs;
  if (maxResponseTimeMs !== undefined && !(maxResponseTimeMs > 0))
    throw new RangeError(`runConformance: maxResponseTimeMs must be above 0, got ${maxResponseTimeMs}`);
  // max_response_time has nothing to judge by without a limit: it is selected only with one.
  if (maxResponseTimeMs === undefined && options.checks?.includes(maxResponseTime.name))
    throw new UnknownCheckError(`--checks ${maxResponseTime.name} needs --max-response-time DURATION`);
  const checks = selectChecks({
    include: options.checks ?? [],
    exclude: options.excludeChecks ?? [],
    ...(options.hooks?.checks ? { extra: options.hooks.checks } : {}),
  }).filter((check) => maxResponseTimeMs !== undefined || check.name !== maxResponseTime.name);
  const contract = typeof options.spec === 'object' ? options.spec : await loadContract(options.spec ? { source: options.spec } : {});
  // One error per answer is enough to report, and ajv's allErrors on a hostile array of millions
  // of items would build millions of error objects.
  const validator = new ResponseValidator(contract, { allErrors: false });
  const filter = new OperationFilter({ contract, filter: options.operations ?? {} });
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  if (options.runId !== undefined && !isRunId(options.runId))
    throw new RangeError(
      `runConformance: runId must be 1 to 32 letters, digits, '-' or '_', got ${JSON.stringify(options.runId.slice(0, 40))}`,
    );
  const runId = options.runId ?? newRunId();
  const concurrency = options.concurrency ?? conformanceDefaults.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 2 || concurrency > 16)
    throw new RangeError(`runConformance: concurrency must be an integer from 2 to 16, got ${concurrency}`);
  const replayWaitMs = checkReplayWait(options.replayWaitMs ?? conformanceDefaults.replayWaitMs);
  const maxRequests = options.maxRequests ?? conformanceDefaults.maxRequests;
  const timeoutMs = options.timeoutMs ?? conformanceDefaults.timeoutMs;
  const jobTimeoutMs = options.jobTimeoutMs ?? conformanceDefaults.jobTimeoutMs;
  const timeBudgetMs = options.timeBudgetMs ?? conformanceDefaults.timeBudgetMs;
  const maxResponseBytes = options.maxResponseBytes ?? conformanceDefaults.maxResponseBytes;
  const maxConsecutiveTimeouts = options.maxConsecutiveTimeouts ?? conformanceDefaults.maxConsecutiveTimeouts;
  const maxExamples = options.maxExamples ?? options.examplesPerOperation ?? conformanceDefaults.examplesPerOperation;
  if (!Number.isInteger(maxExamples) || maxExamples < 0)
    throw new RangeError(`runConformance: maxExamples must be a whole number, got ${maxExamples}`);
  const maxFailures = options.maxFailures;
  if (maxFailures !== undefined && (!Number.isInteger(maxFailures) || maxFailures < 1))
    throw new RangeError(`runConformance: maxFailures must be a whole number from 1, got ${maxFailures}`);
  const strict = options.strict === true;
  const deadline = started + timeBudgetMs;
  const fromUrl = credentialsFromBaseUrl(options.baseUrl);
  const firstCaller = { ...(fromUrl.authorization ? { Authorization: fromUrl.authorization } : {}), ...(options.headers ?? {}) };
  const callers = { 1: firstCaller, 2: options.secondCallerHeaders ?? {} } as const;
  const scrubber = scrubberFor({
    headers: callers[1],
    secondCallerHeaders: callers[2],
    extra: [...fromUrl.secrets, ...(options.secrets ?? [])],
  });
  const progress = (message: string) => options.onProgress?.(scrubber.scrub(message));
  const secretHeaders = [...Object.keys(callers[1]), ...Object.keys(callers[2])];
  // The run's own stop: an interrupt, passed on to the request in flight and to every wait.
  const stop = new AbortController();
  const onInterrupt = () => stop.abort();
  if (options.signal?.aborted) stop.abort();
  else options.signal?.addEventListener('abort', onInterrupt, { once: true });
  const interruptedBy = () => (options.signal?.aborted ? String(options.signal.reason ?? 'SIGINT') : undefined);
  const transport = new Transport({
    baseUrl: fromUrl.baseUrl,
    timeoutMs,
    maxResponseBytes,
    signal: stop.signal,
    // Credentials leave each answer as it arrives, before any excerpt could cut one in two.
    ...(scrubber.active ? { scrub: (text: string) => scrubber.scrub(text) } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.tls ? { tls: options.tls } : {}),
    ...(options.rate === undefined ? {} : { rate: options.rate }),
    ...(options.afterLargeAnswer ? { afterLargeAnswer: options.afterLargeAnswer } : {}),
    // A burst of identical creates goes out on that many connections at once.
    maxSockets: Math.max(4, concurrency),
  });
  let bodyDirectoryMade = false;
  /** Set once a body file could not be written: later long bodies stay out of curl lines too. */
  let bodyFilesFailed = false;
  /** The body file each exchange's curl line reads, by exchange id: its replay reads the same. */
  const bodyFiles = new Map<number, string>();
  const reproduce = (exchange: Pick<Exchange, 'id' | 'caller' | 'request'>) => {
    const body = exchange.request.body;
    let bodyFile: string | undefined;
    if (body !== undefined && body.length > inlineBodyLimit && options.bodyDirectory && !bodyFilesFailed) {
      try {
        if (!bodyDirectoryMade) mkdirSync(options.bodyDirectory, { recursive: true });
        bodyDirectoryMade = true;
        bodyFile = join(options.bodyDirectory, `exchange-${exchange.id}.json`);
        writeFileSync(bodyFile, body);
        bodyFiles.set(exchange.id, bodyFile);
      } catch (error) {
        // A folder we cannot write must not abort the run: the reproduction says where the body is missing.
        bodyFilesFailed = true;
        bodyFile = undefined;
        notes.push(
          `Long request bodies could not be written to ${options.bodyDirectory} (${(error as NodeJS.ErrnoException).code ?? 'error'}); their curl lines leave the body out.`,
        );
      }
    }
    return toCurl(exchange.request, { secretHeaders, caller: exchange.caller, ...(bodyFile ? { bodyFile } : {}) });
  };
  const replayable = (exchange: Exchange) =>
    replayableRequest({ exchange, baseUrl: transport.baseUrl, credentialHeaders: secretHeaders, bodyFile: bodyFiles.get(exchange.id) });
  const setting = { contract, validator, checks, reproduce, replayable, maxResponseTimeMs };
  const judging = new Judging(setting);
  const needed = neededProbes(checks);
  const coverage = new CoverageTracker({ contract, probeRuns: (probe) => needed.has(probe) });
  const notes: string[] = [];
  const probeNotes = new Map<ProbeName, string[]>();
  /** Per probe: why requests it wanted were not sent, with counts. */
  const unsent = new Map<ProbeName, Map<string, number>>();
  /**
   * Per check: why requests it would have judged were not sent, with counts. A check that
   * judged some of its requests but not these did not run in full, and cannot pass.
   */
  const unsentForCheck = new Map<string, Map<string, number>>();
  /** Why the last request was refused: the reason requests built on it were not sent either. */
  let lastRefusal: string | undefined;
  /** Whether that refusal was the user's operation filter: requests built on it are left out too, not missing. */
  let lastRefusalLeftOut = false;
  /** Per probe and per check: requests the operation filters left out, with counts (never a reason for "incomplete"). */
  const leftOutByProbe = new Map<ProbeName, number>();
  const leftOutForCheck = new Map<string, number>();
  const timeoutStreaks = new Map<string, number>();
  const stoppedGroups = new Map<string, string>();
  let currentProbe: ProbeName = 'positive';
  let requests = 0;
  let requestsNotSent = 0;
  let sequence = 0;
  /** Requests sent and not yet answered: a burst sent at once must not pass --max-requests. */
  let inFlight = 0;

  function note(message: string): void {
    // Several probes find the same gap (a spec without getJob is noted by each probe that needs
    // it): the report says it once, and each probe's checks still know why they did not run.
    if (!notes.includes(message)) notes.push(message);
    const forProbe = probeNotes.get(currentProbe) ?? [];
    if (!forProbe.includes(message)) probeNotes.set(currentProbe, [...forProbe, message]);
  }

  function count(counts: Map<string, number>, reason: string, by = 1): void {
    counts.set(reason, (counts.get(reason) ?? 0) + by);
  }

  /**
   * Counts a planned request as not sent, for its probe and, when the request is known, for
   * each check that would have judged it: the checks its probe serves whose verdict on it,
   * unanswered, is more than "does not apply". A stopped operation thus leaves incomplete only
   * the checks that needed its answers.
   */
  function notSent(options: { reason: string; request?: Exchange; requests?: number }): undefined {
    const planned = options.requests ?? 1;
    requestsNotSent += planned;
    lastRefusal = options.reason;
    lastRefusalLeftOut = false;
    const reasons = unsent.get(currentProbe) ?? new Map<string, number>();
    count(reasons, options.reason, planned);
    unsent.set(currentProbe, reasons);
    if (options.request) {
      for (const { check, verdict } of verdictsOn(options.request, setting)) {
        if (!check.probes.includes(currentProbe) || (verdict.outcome === 'skip' && !verdict.reason)) continue;
        const forCheck = unsentForCheck.get(check.name) ?? new Map<string, number>();
        count(forCheck, options.reason);
        unsentForCheck.set(check.name, forCheck);
      }
    }
    return undefined;
  }

  /** Counts a request the operation filters leave out, for its probe and the checks that would have judged it. */
  function leftOut(options: { reason: string; request?: Exchange; requests?: number }): undefined {
    const planned = options.requests ?? 1;
    lastRefusal = options.reason;
    lastRefusalLeftOut = true;
    leftOutByProbe.set(currentProbe, (leftOutByProbe.get(currentProbe) ?? 0) + planned);
    if (options.request) {
      for (const { check, verdict } of verdictsOn(options.request, setting)) {
        if (!check.probes.includes(currentProbe) || (verdict.outcome === 'skip' && !verdict.reason)) continue;
        leftOutForCheck.set(check.name, (leftOutForCheck.get(check.name) ?? 0) + 1);
      }
    }
    return undefined;
  }

  /** Exchanges that failed a check that counts toward the verdict, for --max-failures. */
  let failingExchanges = 0;

  /** Why nothing more may be sent at all, if so. */
  function runStopped(): string | undefined {
    const signal = interruptedBy();
    if (signal) return `the run was interrupted (${signal})`;
    if (maxFailures !== undefined && failingExchanges >= maxFailures)
      return `--max-failures ${maxFailures} was reached (${failingExchanges} failing exchange${failingExchanges === 1 ? '' : 's'})`;
    if (Date.now() >= deadline) return `the --time-budget of ${formatDuration(timeBudgetMs)} ran out`;
    return undefined;
  }

  /** Runs a hook; one that throws stops the run (HookError), since what it was for did not happen. */
  async function callHook<T>(name: string, call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw new HookError(`the ${name} hook threw: ${scrubber.scrub(String((error as Error)?.message ?? error)).slice(0, 400)}`);
    }
  }

  /** Exchanges recorded per probe, so a check that judged none of its probes' can say they were sent. */
  const recorded = new Map<ProbeName, number>();

  /** `operationId`: the operation the request was built for, even when its path left the template (coverage counts it there). */
  function record(exchange: Exchange, operationId: string | undefined = exchange.operationId): void {
    recorded.set(currentProbe, (recorded.get(currentProbe) ?? 0) + 1);
    const failed = judging.add(exchange);
    if (failed.some((check) => check.severity === 'required' || strict)) failingExchanges += 1;
    coverage.sent(exchange, operationId);
    options.onExchange?.(exchange);
  }

  async function send(request: ProbeRequest, intent: Intent, sendOptions: { record?: boolean } = {}): Promise<Exchange | undefined> {
    // A request whose path leaves its operation's template (an empty jobId: /v0/jobs/) is a
    // route outside the contract: contract checks do not judge its answer.
    const operation = request.operation && pathFitsTemplate(request.path, request.operation.path) ? request.operation : undefined;
    const group = operation?.operationId ?? outsideTheContract;
    const caller = request.caller ?? 1;
    // The request as it would have been recorded, unanswered: what the checks are asked about when it is not sent.
    const refuse = (reason: string, byFilter = false) => {
      coverage.refused({ operationId: request.operation?.operationId, intent, request, reason });
      return (byFilter ? leftOut : notSent)({
        reason,
        request: {
          id: 0,
          ...(operation ? { operationId: operation.operationId } : {}),
          caller,
          intent,
          request: { method: request.method, url: transport.urlOf(request.path), headers: request.headers ?? {} },
          transportError: `not sent: ${reason}`,
          notes: [],
          rateLimited: false,
          durationMs: 0,
        },
      });
    };
    // Judged on the operation the request was built for: a mutated path still belongs to it.
    // The preflight only asks whether the target answers; it goes whatever the filters say.
    const filteredOut = intent.kind === 'preflight' ? undefined : filter.leftOutBecause(request.operation);
    if (filteredOut) return refuse(filteredOut, true);
    const stopped = runStopped();
    if (stopped) return refuse(stopped);
    if (requests + inFlight >= maxRequests) return refuse(`--max-requests ${maxRequests} was reached`);
    const groupStopped = stoppedGroups.get(group);
    if (groupStopped) return refuse(groupStopped);
    // The id is taken when the request goes, so requests sent at once keep the order they were sent in.
    sequence += 1;
    const id = sequence;
    inFlight += 1;
    const startedAt = Date.now();
    let headers: Record<string, string> = request.withoutCredentials ? { ...request.headers } : { ...callers[caller], ...request.headers };
    let body = request.body;
    if (options.hooks?.beforeRequest) {
      const hooked: HookRequest = {
        method: request.method,
        url: transport.urlOf(request.path),
        headers,
        ...(body === undefined ? {} : { body }),
      };
      const returned = await callHook('beforeRequest', () => options.hooks?.beforeRequest?.(hooked));
      const final = returned ?? hooked;
      headers = { ...final.headers };
      body = final.body;
    }
    const result = await transport.send(
      { method: request.method, path: request.path, headers, ...(body === undefined ? {} : { body }) },
      { timeoutMs, runDeadline: deadline },
    );
    inFlight -= 1;
    requests += result.requestsSent;
    // Cut by the run's own stop or by the end of the budget: that says nothing about the server.
    if (result.interrupted || result.cutByRunDeadline) return refuse(runStopped() ?? 'the run was stopped');
    if (result.timedOut) {
      const streak = (timeoutStreaks.get(group) ?? 0) + 1;
      timeoutStreaks.set(group, streak);
      if (streak >= maxConsecutiveTimeouts) {
        const reason = `${group} stopped after ${streak} timeouts in a row (--timeout ${timeoutMs} ms)`;
        stoppedGroups.set(group, reason);
        note(reason);
      }
    } else {
      timeoutStreaks.set(group, 0);
    }
    const exchange: Exchange = {
      id,
      ...(operation ? { operationId: operation.operationId } : {}),
      caller,
      intent,
      request: result.request,
      ...(result.response ? { response: result.response } : {}),
      ...(result.transportError ? { transportError: result.transportError } : {}),
      notes: result.notes,
      rateLimited: result.rateLimited,
      durationMs: result.durationMs,
    };
    options.cassette?.add(exchange, { startedAt });
    if (options.hooks?.afterResponse) await callHook('afterResponse', () => options.hooks?.afterResponse?.(exchange));
    if (sendOptions.record !== false) record(exchange, request.operation?.operationId);
    return exchange;
  }

  const context: ProbeContext = {
    contract,
    validator,
    seed,
    runId,
    jobTimeoutMs,
    examplesPerOperation: maxExamples,
    concurrency,
    replayWaitMs,
    hasSecondCaller: Object.keys(callers[2]).length > 0,
    credentialHeaders: Object.keys(callers[1]),
    runs: (probe) => needed.has(probe),
    send,
    record,
    conforms: (exchange) => verdictsOn(exchange, setting).every(({ verdict }) => verdict.outcome !== 'fail'),
    remainingRequests: () => Math.max(0, maxRequests - requests),
    dependentsNotSent: (requests) => {
      (lastRefusalLeftOut ? leftOut : notSent)({ reason: lastRefusal ?? 'a request they build on was not sent', requests });
    },
    includes: (operation) => filter.includes(operation),
    sleep: (ms) => sleep(Math.min(ms, Math.max(0, deadline - Date.now())), stop.signal),
    note,
  };

  try {
    progress(
      `checking ${transport.baseUrl} against ${contract.source} (seed ${seed}, run id ${runId}, at most ${maxRequests} requests, ${checks.length} checks, time budget ${formatDuration(timeBudgetMs)})`,
    );
    if (fromUrl.authorization)
      progress('the user name and password in --base-url are sent as an Authorization: Basic header, and never printed');
    await preflight(context, transport.baseUrl);
    const state: { jobId?: string } = {};
    for (const phase of phases) {
      if (!needed.has(phase.probe)) continue;
      // A phase runs even when nothing more may be sent: each request it plans is refused, and
      // counted against the checks that needed it.
      currentProbe = phase.probe;
      const before = requests;
      await phase.run(context, state);
      const count = requests - before;
      progress(`${phase.label}: ${count} request${count === 1 ? '' : 's'} (${requests}/${maxRequests} sent)`);
    }
  } finally {
    transport.close();
    options.signal?.removeEventListener('abort', onInterrupt);
  }
  const reasonsNotSent = new Map<string, number>();
  for (const reasons of unsent.values())
    for (const [reason, count] of reasons) reasonsNotSent.set(reason, (reasonsNotSent.get(reason) ?? 0) + count);
  for (const [reason, count] of reasonsNotSent) notes.push(`${count} planned request(s) not sent: ${reason}`);
  const leftOutRequests = [...leftOutByProbe.values()].reduce((total, count) => total + count, 0);
  if (leftOutRequests > 0) notes.push(`${leftOutRequests} planned request(s) left out by ${filter.flags()}`);

  const summarised = (reasons: Map<string, number>) =>
    [...reasons].map(([reason, count]) => `${count} request${count === 1 ? '' : 's'} not sent: ${reason}`);
  const atMostThree = (all: readonly string[]) =>
    all.length > 3 ? `${all.slice(0, 3).join('; ')}; and ${all.length - 3} more reason(s) in the notes` : all.join('; ');
  const judged = judging.results({
    whyNothing: (check, seen) => {
      const reasons = new Map<string, number>();
      for (const probe of check.probes)
        for (const [reason, count] of unsent.get(probe) ?? []) reasons.set(reason, (reasons.get(reason) ?? 0) + count);
      const probeReasons = check.probes.flatMap((probe) => probeNotes.get(probe) ?? []);
      const all = [...new Set([...summarised(reasons), ...probeReasons])];
      if (all.length === 0) {
        if (seen.unjudged > 0) return undefined;
        const sent = check.probes.reduce((total, probe) => total + (recorded.get(probe) ?? 0), 0);
        return sent > 0 ? `its requests were sent (${sent}), but no answer showed what it judges` : undefined;
      }
      return atMostThree(all);
    },
    whyPartly: (check) => {
      const reasons = unsentForCheck.get(check.name);
      return reasons && reasons.size > 0 ? atMostThree(summarised(reasons)) : undefined;
    },
  });
  // A check that judged nothing because the user's filters left out its requests (and nothing
  // else was missing) was left out on purpose, as with --exclude-checks: said, not "incomplete".
  const results = judged.map((result): CheckResult => {
    const check = checks.find((candidate) => candidate.name === result.name);
    if (!check || result.status !== 'skipped' || result.applied > 0) return result;
    const byFilter =
      (leftOutForCheck.get(check.name) ?? 0) + check.probes.reduce((total, probe) => total + (leftOutByProbe.get(probe) ?? 0), 0);
    const missing = unsentForCheck.has(check.name) || check.probes.some((probe) => unsent.has(probe));
    if (byFilter === 0 || missing) return result;
    return {
      ...result,
      leftOut: true,
      note: `left out by ${filter.flags()}: the requests it judges go to operations the filters leave out`,
    };
  });
  const counts = (result: CheckResult) => result.severity === 'required' || strict;
  const interrupted = interruptedBy();
  const incomplete = [
    ...(interrupted ? [`the run was interrupted by ${interrupted}`] : []),
    ...results
      .filter((result) => result.status === 'skipped' && !result.leftOut && counts(result))
      .map((result) =>
        result.applied > 0
          ? `${result.name} (${result.severity}) ${result.note ?? 'ran only in part'}`
          : `${result.name} (${result.severity}) did not run: ${result.note ?? 'nothing to judge'}`,
      ),
  ];
  const verdict: RunVerdict = results.some((result) => result.status === 'failed' && counts(result))
    ? 'failed'
    : incomplete.length > 0
      ? 'incomplete'
      : 'passed';
  const exitCode = interrupted
    ? interrupted === 'SIGTERM'
      ? conformanceExitCodes.SIGTERM
      : conformanceExitCodes.SIGINT
    : conformanceExitCodes[verdict];
  const report: ConformanceReport = {
    tool: 'evidence-harness conformance',
    version: packageVersion(),
    target: transport.baseUrl,
    spec: contract.source,
    seed,
    runId,
    startedAt,
    durationMs: Date.now() - started,
    requests,
    maxRequests,
    requestsNotSent,
    strict,
    verdict,
    exitCode,
    incomplete,
    ...(interrupted ? { interrupted } : {}),
    passed: verdict === 'passed',
    checks: results,
    coverage: coverage.report(),
    notes,
    settings: {
      headers: Object.keys(callers[1]),
      secondCallerHeaders: Object.keys(callers[2]),
      credentialVariables: Object.fromEntries([
        ...Object.keys(callers[1]).map((name) => [credentialVariable(name, 1), `the value of ${name} (--header)`]),
        ...Object.keys(callers[2]).map((name) => [credentialVariable(name, 2), `the value of ${name} (--second-caller-header)`]),
      ]),
      timeoutMs,
      jobTimeoutMs,
      timeBudgetMs,
      maxResponseBytes,
      maxConsecutiveTimeouts,
      concurrency,
      ...(replayWaitMs === conformanceDefaults.replayWaitMs ? {} : { replayWaitMs }),
      rate: options.rate ?? null,
      ...(maxExamples === conformanceDefaults.examplesPerOperation ? {} : { maxExamples }),
      ...(maxFailures === undefined ? {} : { maxFailures }),
      ...(maxResponseTimeMs === undefined ? {} : { maxResponseTimeMs }),
      checks: checks.map((check) => check.name),
      ...(filter.active ? { operationFilters: filter.flags() } : {}),
    },
  };
  return scrubber.scrubDeep(report);
}

/** Whether a filled path still has the shape of its template: each {parameter} one non-empty segment. */
export function pathFitsTemplate(path: string, template: string): boolean {
  return compilePathTemplate(template).test(path.split('?')[0] ?? path);
}

/**
 * Sends the spec's simplest operation (a GET with no parameters, e.g. health) so a target
 * that does not answer at all stops the run at once, with exit 2, instead of failing every check.
 */
async function preflight(context: ProbeContext, baseUrl: string): Promise<void> {
  const simplest = context.contract.operations.find(
    (operation) =>
      operation.method === 'get' &&
      !jsonBodySchema(operation) &&
      parametersIn(operation, 'path').length === 0 &&
      !operation.parameters.some((parameter) => parameter.required),
  );
  // The simplest operation the filters keep; with none, the root, which needs only to answer.
  const exchange = await context.send(
    simplest && context.includes(simplest) ? { operation: simplest, method: 'GET', path: simplest.path } : { method: 'GET', path: '/' },
    { kind: 'preflight' },
  );
  if (exchange && !exchange.response) throw new UnreachableTargetError(`${baseUrl} is unreachable: ${exchange.transportError}`);
}
