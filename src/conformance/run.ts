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
import type { OutboundConnectGuard } from '../http/outbound-client.js';
import { type ContractDocument, loadContract } from '../openapi/document.js';
import { ResponseValidator } from '../openapi/response-validator.js';
import type { ServerProfile } from '../profile/profile.js';
import type { Check, ProbeName } from './checks/check.js';
import { maxResponseTime } from './checks/generic-checks.js';
import { responseChecks, selectChecks, UnknownCheckError } from './checks/registry.js';
import { workflowSuccessCriteria } from './checks/workflow-checks.js';
import type { Exchange } from './exchange.js';
import type { ConformanceHooks } from './hooks.js';
import type { TlsOptions } from './http/bounded-client.js';
import { credentialVariable } from './http/curl.js';
import { defaultMaxResponseBytes, type FetchFunction } from './http/transport.js';
import { OperationFilter, type OperationFilterOptions } from './operation-filter.js';
import { pactCheckNames } from './pact/pact-check.js';
import type { Pact } from './pact/pact-file.js';
import { pactPlanFor, pactRunChecks, reportedPact, runPactPhase } from './pact/pact-run.js';
import { oversizedBodyProbe, undeclaredMethodProbe, undeclaredPathProbe } from './probes/assumption-probes.js';
import { malformedJsonProbe, missingHeaderProbe, negativeProbe, positiveProbe } from './probes/data-probes.js';
import { largestBodyProbe, oddStringsProbe, pathCharactersProbe } from './probes/edge-probes.js';
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
import { isRunId, newRunId, type ProbeContext } from './probes/probe-context.js';
import { jsonBodySchema, parametersIn } from './probes/request-builder.js';
import { checkReplayWait, finishLateReplays, sequenceProbe } from './probes/sequence-probe.js';
import { learningBudget, learningSteps } from './profile/learning/steps.js';
import { checksWithProfile } from './profile/profile-checks.js';
import type { CassetteRecorder } from './report/cassette.js';
import type { ConformanceReport } from './report/report.js';
import { ConformanceRun } from './runner/conformance-run.js';
import { formatDuration } from './runner/run-state.js';
import type { RunSettings } from './runner/settings.js';
import { credentialsFromBaseUrl, scrubberFor } from './secrets.js';
import { prepareWorkflows, type WorkflowOptions, workflowsPhase } from './workflows/index.js';

export { formatDuration } from './runner/run-state.js';
export { pathFitsTemplate } from './runner/sender.js';

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
  /**
   * Arazzo workflows to run (--workflows FILE, --input, --workflow). Without `checks`, only the
   * workflows run, their answers judged by the response checks and workflow_success_criteria;
   * with `checks`, those checks' probes run too.
   */
  readonly workflows?: WorkflowOptions;
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
   * Holds every connection the run makes to an address policy, checked on the address actually
   * connected to (src/documents `connectGuard(policy)`; the MCP server's, A-45). Default: none.
   */
  readonly connectGuard?: OutboundConnectGuard;
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
   * A pact file (Pact Specification V4, V3 or V2), or one already read: the run verifies its
   * interactions alone, with the pact checks and the runner's response checks, instead of the
   * default probes (--pact). A file that cannot be verified throws PactFileError.
   */
  readonly pact?: string | Pact;
  /** The provider's own provider-state endpoint (--provider-states-url), for a pact's states. */
  readonly providerStatesUrl?: string;
  /**
   * The server's own profile (--profile FILE, docs/profiles.md): each declared entry becomes a
   * required check, and the advisory checks of the points it declares give way to it.
   */
  readonly profile?: ServerProfile;
  /**
   * Runs the learning phase after the probes (--write-profile, A-50): the requests a profile's
   * entries need that the probes do not send, within the budget the run prints first. A run
   * with `profile` runs it too, so every declared entry is shown.
   */
  readonly learn?: boolean;
  /**
   * The clock of the run's waits between requests (a poll's backoff, the learning phase's timed
   * reads): real time unless given. Tests give the clock their stand-in server reads (a
   * VirtualClock), so a job that moves with time is read at its times without a real wait.
   */
  readonly clock?: { now(): number; sleep(ms: number): Promise<void> };
  /**
   * Keeps every exchange sent, judged or not (a generated input's shrinking steps too), in a
   * cassette (--record): credentials are taken out by the recorder.
   */
  readonly cassette?: CassetteRecorder;
}

export const conformanceDefaults = {
  maxRequests: 500,
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
  { probe: 'path-characters', label: 'unknown jobs with reserved and encoded characters', run: pathCharactersProbe },
  { probe: 'verification', label: 'verification example', run: verificationProbe },
  { probe: 'positive', label: 'examples and boundary values', run: positiveProbe },
  { probe: 'positive', label: 'equivalent media types', run: equivalentMediaTypeProbe },
  { probe: 'largest-body', label: 'the largest valid bodies', run: largestBodyProbe },
  { probe: 'odd-strings', label: 'odd but valid strings', run: oddStringsProbe },
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

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const run = await startRun(options);
  const { settings } = run;
  try {
    run.state.progress(
      `checking ${run.transport.baseUrl} against ${settings.contract.source} (seed ${settings.seed}, run id ${settings.runId}, at most ${settings.limits.maxRequests} requests, ${settings.checks.length} checks, time budget ${formatDuration(settings.limits.timeBudgetMs)})`,
    );
    if (settings.basicAuth)
      run.state.progress('the user name and password in --base-url are sent as an Authorization: Basic header, and never printed');
    await preflight(run.context, run.transport.baseUrl);
    const { workflows } = settings;
    // The user's own flows first: a small --max-requests still covers them.
    if (workflows)
      await run.runPhase({ probe: 'workflows', label: `workflows of ${workflows.document.source}`, run: workflowsPhase(workflows) }, {});
    if (settings.pact) {
      const scrub = (text: string) => settings.scrubber.scrub(text);
      await runPactPhase(run, settings.pact, { tls: settings.options.tls, signal: settings.options.signal, scrub });
    } else {
      const shared: { jobId?: string } = {};
      for (const phase of phases) if (run.runs(phase.probe)) await run.runPhase(phase, shared);
      // A --profile run asks the same questions: its entries are judged on what they show.
      if ((options.learn || options.profile) && learningSteps.length > 0) {
        run.state.allowLearning(learningBudget());
        run.state.progress(
          `${options.learn ? "learning the server's profile" : 'asking what the profile declares'}: at most ${learningBudget()} more requests, beyond --max-requests`,
        );
        for (const step of learningSteps)
          await run.runPhase({ probe: 'learning', label: `learning: ${step.label}`, run: step.run }, shared);
      }
    }
  } finally {
    run.close();
  }
  return run.report(reportedSettings(settings));
}

/**
 * Reads and checks the options and wires a run, sending nothing yet: runConformance runs its
 * phases; a test may run one phase over `run.context` against an injected Fetch function.
 */
export async function startRun(options: ConformanceOptions): Promise<ConformanceRun> {
  return new ConformanceRun(await resolveSettings(options));
}

/** Every default applied and every bound checked, once; the spec loaded and the checks selected. */
async function resolveSettings(options: ConformanceOptions): Promise<RunSettings> {
  const started = Date.now();
  const maxResponseTimeMs = options.maxResponseTimeMs;
  if (maxResponseTimeMs !== undefined && !(maxResponseTimeMs > 0))
    throw new RangeError(`runConformance: maxResponseTimeMs must be above 0, got ${maxResponseTimeMs}`);
  // max_response_time has nothing to judge by without a limit: it is selected only with one.
  if (maxResponseTimeMs === undefined && options.checks?.includes(maxResponseTime.name))
    throw new UnknownCheckError(`--checks ${maxResponseTime.name} needs --max-response-time DURATION`);
  if (options.providerStatesUrl !== undefined && options.pact === undefined)
    throw new RangeError('runConformance: providerStatesUrl sets up the states of a pact; give pact too');
  const pact =
    options.pact === undefined ? undefined : await pactPlanFor({ pact: options.pact, providerStatesUrl: options.providerStatesUrl });
  const pactOnly = (options.checks ?? []).filter((name) => (Object.values(pactCheckNames) as string[]).includes(name));
  if (!pact && pactOnly.length > 0)
    throw new UnknownCheckError(`--checks ${pactOnly.join(',')} judges a pact's interactions; give --pact FILE`);
  const contract = typeof options.spec === 'object' ? options.spec : await loadContract(options.spec ? { source: options.spec } : {});
  const workflows = options.workflows ? await prepareWorkflows(options.workflows, contract) : undefined;
  if (!workflows && options.checks?.includes(workflowSuccessCriteria.name))
    throw new UnknownCheckError(`--checks ${workflowSuccessCriteria.name} needs --workflows FILE`);
  // With workflows and no --checks (nor a pact), the workflows run alone, as with respect or
  // Schemathesis's stateful runs: the response checks judge their answers, and nothing else is sent.
  const workflowsOnly = workflows !== undefined && pact === undefined && (options.checks ?? []).length === 0;
  const judgingWorkflows = new Set([...responseChecks, workflowSuccessCriteria].map((check) => check.name));
  const selected = selectChecks({
    include: options.checks ?? [],
    exclude: options.excludeChecks ?? [],
    extra: [...(pact?.checks ?? []), ...(options.hooks?.checks ?? [])],
  }).filter(
    (check) =>
      (maxResponseTimeMs !== undefined || check.name !== maxResponseTime.name) &&
      (workflows !== undefined || check.name !== workflowSuccessCriteria.name) &&
      (!workflowsOnly || judgingWorkflows.has(check.name) || options.hooks?.checks?.includes(check)),
  );
  const judged = pact
    ? pactRunChecks({ plan: pact, selected, include: options.checks ?? [], hooks: options.hooks?.checks ?? [] })
    : selected;
  const withWorkflows =
    workflows && !judged.includes(workflowSuccessCriteria) && !options.excludeChecks?.includes(workflowSuccessCriteria.name)
      ? [...judged, workflowSuccessCriteria]
      : judged;
  const checks = options.profile && !pact && !workflowsOnly ? checksWithProfile(withWorkflows, options.profile) : withWorkflows;
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
  const maxExamples = options.maxExamples ?? options.examplesPerOperation ?? conformanceDefaults.examplesPerOperation;
  if (!Number.isInteger(maxExamples) || maxExamples < 0)
    throw new RangeError(`runConformance: maxExamples must be a whole number, got ${maxExamples}`);
  const maxFailures = options.maxFailures;
  if (maxFailures !== undefined && (!Number.isInteger(maxFailures) || maxFailures < 1))
    throw new RangeError(`runConformance: maxFailures must be a whole number from 1, got ${maxFailures}`);
  const timeBudgetMs = options.timeBudgetMs ?? conformanceDefaults.timeBudgetMs;
  const fromUrl = credentialsFromBaseUrl(options.baseUrl);
  const firstCaller = { ...(fromUrl.authorization ? { Authorization: fromUrl.authorization } : {}), ...(options.headers ?? {}) };
  const callers = { 1: firstCaller, 2: options.secondCallerHeaders ?? {} } as const;
  return {
    options,
    contract,
    validator,
    checks,
    // A pact run sends the pact's interactions only (and the workflows, when given too).
    needed: pact
      ? new Set<ProbeName>(workflows ? ['pact', 'workflows'] : ['pact'])
      : workflowsOnly
        ? new Set<ProbeName>(['workflows'])
        : neededProbes(checks),
    workflows,
    workflowsOnly,
    ...(pact ? { pact } : {}),
    filter,
    seed,
    runId,
    baseUrl: fromUrl.baseUrl,
    basicAuth: fromUrl.authorization !== undefined,
    callers,
    scrubber: scrubberFor({
      headers: callers[1],
      secondCallerHeaders: callers[2],
      extra: [...fromUrl.secrets, ...(options.secrets ?? []), ...(workflows?.secrets ?? [])],
    }),
    limits: {
      maxRequests: options.maxRequests ?? conformanceDefaults.maxRequests,
      maxFailures,
      strict: options.strict === true,
      deadline: started + timeBudgetMs,
      timeBudgetMs,
      timeoutMs: options.timeoutMs ?? conformanceDefaults.timeoutMs,
      maxConsecutiveTimeouts: options.maxConsecutiveTimeouts ?? conformanceDefaults.maxConsecutiveTimeouts,
    },
    jobTimeoutMs: options.jobTimeoutMs ?? conformanceDefaults.jobTimeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? conformanceDefaults.maxResponseBytes,
    maxExamples,
    concurrency,
    replayWaitMs,
    maxResponseTimeMs,
    started,
  };
}

/** The report's settings: the options that shape the run (header names only, never values). */
function reportedSettings(settings: RunSettings): Record<string, unknown> {
  const { callers, limits, options, maxExamples, maxResponseTimeMs, filter } = settings;
  return {
    headers: Object.keys(callers[1]),
    secondCallerHeaders: Object.keys(callers[2]),
    credentialVariables: Object.fromEntries([
      ...Object.keys(callers[1]).map((name) => [credentialVariable(name, 1), `the value of ${name} (--header)`]),
      ...Object.keys(callers[2]).map((name) => [credentialVariable(name, 2), `the value of ${name} (--second-caller-header)`]),
    ]),
    timeoutMs: limits.timeoutMs,
    jobTimeoutMs: settings.jobTimeoutMs,
    timeBudgetMs: limits.timeBudgetMs,
    maxResponseBytes: settings.maxResponseBytes,
    maxConsecutiveTimeouts: limits.maxConsecutiveTimeouts,
    concurrency: settings.concurrency,
    ...(settings.replayWaitMs === conformanceDefaults.replayWaitMs ? {} : { replayWaitMs: settings.replayWaitMs }),
    rate: options.rate ?? null,
    ...(maxExamples === conformanceDefaults.examplesPerOperation ? {} : { maxExamples }),
    ...(limits.maxFailures === undefined ? {} : { maxFailures: limits.maxFailures }),
    ...(maxResponseTimeMs === undefined ? {} : { maxResponseTimeMs }),
    checks: settings.checks.map((check) => check.name),
    ...(options.profile ? { profile: { source: options.profile.source, declared: [...options.profile.declared] } } : {}),
    ...(settings.pact ? { pact: reportedPact(settings.pact) } : {}),
    ...(filter.active ? { operationFilters: filter.flags() } : {}),
    ...(settings.workflows
      ? {
          workflows: {
            file: settings.workflows.document.source,
            only: settings.workflows.only,
            inputs: Object.keys(settings.workflows.inputs),
            alone: settings.workflowsOnly,
          },
        }
      : {}),
  };
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
