/**
 * @module conformance/run
 * `runConformance(options)`: reads the spec, checks the target answers, runs the probes the
 * selected checks need (in a fixed order, one request at a time, so a seed reproduces a run),
 * and judges every recorded exchange. It talks to the target over HTTP only, through the global
 * fetch or an injected Fetch function.
 */
import { randomInt } from 'node:crypto';
import { type ContractDocument, loadContract } from '../openapi/document.js';
import { packageVersion } from '../openapi/package-root.js';
import { ResponseValidator } from '../openapi/response-validator.js';
import type { Check, ProbeName } from './checks/check.js';
import { selectChecks } from './checks/registry.js';
import type { Exchange, Intent } from './exchange.js';
import { type FetchFunction, Transport } from './http/transport.js';
import { judgeRun, verdictsOn } from './judge.js';
import { oversizedBodyProbe, undeclaredMethodProbe, undeclaredPathProbe } from './probes/assumption-probes.js';
import { malformedJsonProbe, missingHeaderProbe, negativeProbe, positiveProbe } from './probes/data-probes.js';
import { generatedProbe } from './probes/generated-probe.js';
import {
  conflictProbe,
  isolationProbe,
  lifecycleProbe,
  replayProbe,
  reserializedReplayProbe,
  unknownJobProbe,
  verificationProbe,
} from './probes/job-probes.js';
import type { ProbeContext, ProbeRequest } from './probes/probe-context.js';
import { jsonBodySchema, parametersIn } from './probes/request-builder.js';
import type { ConformanceReport } from './report/report.js';

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
  /** At most this many HTTP requests. Default 400. */
  readonly maxRequests?: number;
  /** Requests per second; default unlimited. */
  readonly rate?: number;
  /** Per-request timeout in ms. Default 10000. */
  readonly timeoutMs?: number;
  /** How long a job may take to reach a final state, in ms. Default 30000. */
  readonly jobTimeoutMs?: number;
  /** Check names to run (default all) and to leave out. */
  readonly checks?: readonly string[];
  readonly excludeChecks?: readonly string[];
  /** Advisory failures fail the run too. */
  readonly strict?: boolean;
  /** Generated inputs per operation, at most. Default 50. */
  readonly examplesPerOperation?: number;
  /** Replaces the global fetch, e.g. to reach an in-process server. */
  readonly fetch?: FetchFunction;
  /** Receives progress lines while the run goes on. */
  readonly onProgress?: (message: string) => void;
  /** Receives every exchange as it is recorded (for logs, or a second opinion such as Prism's). */
  readonly onExchange?: (exchange: Exchange) => void;
}

export const conformanceDefaults = { maxRequests: 400, timeoutMs: 10_000, jobTimeoutMs: 30_000, examplesPerOperation: 50 } as const;

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
  { probe: 'isolation', label: 'second caller', run: (context, state) => isolationProbe(context, state.jobId) },
  { probe: 'replay', label: 'idempotent replay', run: replayProbe },
  { probe: 'reserialized-replay', label: 're-serialised replay', run: reserializedReplayProbe },
  { probe: 'conflict', label: 'idempotency conflict', run: conflictProbe },
  { probe: 'unknown-job', label: 'unknown job', run: unknownJobProbe },
  { probe: 'verification', label: 'verification example', run: verificationProbe },
  { probe: 'positive', label: 'examples and boundary values', run: positiveProbe },
  { probe: 'negative', label: 'single-constraint mutations', run: negativeProbe },
  { probe: 'missing-header', label: 'missing required headers', run: missingHeaderProbe },
  { probe: 'malformed-json', label: 'malformed JSON', run: malformedJsonProbe },
  { probe: 'oversized-body', label: 'oversized body', run: oversizedBodyProbe },
  { probe: 'undeclared-method', label: 'undeclared methods', run: undeclaredMethodProbe },
  { probe: 'undeclared-path', label: 'undeclared path', run: undeclaredPathProbe },
  { probe: 'positive', label: 'generated inputs (fast-check)', run: generatedProbe },
];

function neededProbes(checks: readonly Check[]): Set<ProbeName> {
  const needed = new Set(checks.flatMap((check) => check.probes));
  // The isolation probe reads the lifecycle probe's job.
  if (needed.has('isolation')) needed.add('lifecycle');
  return needed;
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const checks = selectChecks({ include: options.checks ?? [], exclude: options.excludeChecks ?? [] });
  const contract = typeof options.spec === 'object' ? options.spec : await loadContract(options.spec ? { source: options.spec } : {});
  const validator = new ResponseValidator(contract);
  const seed = options.seed ?? randomInt(0, 2 ** 31 - 1);
  const maxRequests = options.maxRequests ?? conformanceDefaults.maxRequests;
  const timeoutMs = options.timeoutMs ?? conformanceDefaults.timeoutMs;
  const jobTimeoutMs = options.jobTimeoutMs ?? conformanceDefaults.jobTimeoutMs;
  const progress = options.onProgress ?? (() => undefined);
  const callers = { 1: options.headers ?? {}, 2: options.secondCallerHeaders ?? {} } as const;
  const secretHeaders = [...Object.keys(callers[1]), ...Object.keys(callers[2])];
  const transport = new Transport({
    baseUrl: options.baseUrl,
    timeoutMs,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.rate === undefined ? {} : { rate: options.rate }),
  });
  const setting = { contract, validator, checks, secretHeaders };
  const needed = neededProbes(checks);
  const exchanges: Exchange[] = [];
  const notes: string[] = [];
  const probeNotes = new Map<ProbeName, string[]>();
  let currentProbe: ProbeName = 'positive';
  let requests = 0;
  let requestsNotSent = 0;
  let sequence = 0;

  function record(exchange: Exchange): void {
    exchanges.push(exchange);
    options.onExchange?.(exchange);
  }

  async function send(request: ProbeRequest, intent: Intent, sendOptions: { record?: boolean } = {}): Promise<Exchange | undefined> {
    if (requests >= maxRequests) {
      requestsNotSent += 1;
      return undefined;
    }
    const caller = request.caller ?? 1;
    const result = await transport.send({
      method: request.method,
      path: request.path,
      headers: { ...callers[caller], ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    requests += result.requestsSent;
    sequence += 1;
    const exchange: Exchange = {
      id: sequence,
      ...(request.operation ? { operationId: request.operation.operationId } : {}),
      caller,
      intent,
      request: result.request,
      ...(result.response ? { response: result.response } : {}),
      ...(result.transportError ? { transportError: result.transportError } : {}),
      notes: result.notes,
      rateLimited: result.rateLimited,
      durationMs: result.durationMs,
    };
    if (sendOptions.record !== false) record(exchange);
    return exchange;
  }

  const context: ProbeContext = {
    contract,
    validator,
    seed,
    jobTimeoutMs,
    examplesPerOperation: options.examplesPerOperation ?? conformanceDefaults.examplesPerOperation,
    hasSecondCaller: Object.keys(callers[2]).length > 0,
    runs: (probe) => needed.has(probe),
    send,
    record,
    conforms: (exchange) => verdictsOn(exchange, setting).every(({ verdict }) => verdict.outcome !== 'fail'),
    remainingRequests: () => Math.max(0, maxRequests - requests),
    note: (message) => {
      notes.push(message);
      probeNotes.set(currentProbe, [...(probeNotes.get(currentProbe) ?? []), message]);
    },
  };

  progress(
    `checking ${transport.baseUrl} against ${contract.source} (seed ${seed}, at most ${maxRequests} requests, ${checks.length} checks)`,
  );
  await preflight(context, transport.baseUrl);
  const state: { jobId?: string } = {};
  for (const phase of phases) {
    if (!needed.has(phase.probe)) continue;
    currentProbe = phase.probe;
    const before = requests;
    await phase.run(context, state);
    const count = requests - before;
    progress(`${phase.label}: ${count} request${count === 1 ? '' : 's'} (${requests}/${maxRequests} sent)`);
  }
  if (requestsNotSent > 0) notes.push(`${requestsNotSent} planned request(s) not sent: --max-requests ${maxRequests} was reached`);

  const results = judgeRun({
    exchanges,
    setting,
    notesFor: (check) => {
      const reasons = check.probes.flatMap((probe) => probeNotes.get(probe) ?? []);
      if (reasons.length > 0) return reasons.join('; ');
      return requestsNotSent > 0 ? 'no request of its kind was sent before --max-requests was reached' : undefined;
    },
  });
  const strict = options.strict === true;
  return {
    tool: 'evidence-harness conformance',
    version: packageVersion(),
    target: transport.baseUrl,
    spec: contract.source,
    seed,
    startedAt,
    durationMs: Date.now() - started,
    requests,
    maxRequests,
    requestsNotSent,
    strict,
    passed: results.every((result) => result.status !== 'failed' || (result.severity === 'advisory' && !strict)),
    checks: results,
    notes,
    settings: {
      headers: Object.keys(callers[1]),
      secondCallerHeaders: Object.keys(callers[2]),
      timeoutMs,
      jobTimeoutMs,
      rate: options.rate ?? null,
      checks: checks.map((check) => check.name),
    },
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
  const exchange = await context.send(
    simplest ? { operation: simplest, method: 'GET', path: simplest.path } : { method: 'GET', path: '/' },
    { kind: 'preflight' },
  );
  if (exchange && !exchange.response) throw new UnreachableTargetError(`${baseUrl} is unreachable: ${exchange.transportError}`);
}
