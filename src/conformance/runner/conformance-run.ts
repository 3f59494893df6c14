/**
 * @module conformance/runner/conformance-run
 * One run, wired: the transport (node:http or an injected Fetch function), the judge, the
 * coverage tracker, the run state and the sender, and the ProbeContext every phase gets. A phase
 * is one probe's function over that context, so a test can run one phase against a stub Fetch
 * and read what the state recorded. The report is built from the state once the phases are over.
 */

import { registeredAuthScheme } from '../../contract/auth-schemes.js';
import { packageVersion } from '../../openapi/package-root.js';
import type { Check, ProbeName } from '../checks/check.js';
import { sleep, Transport } from '../http/transport.js';
import { Judging, verdictsOn } from '../judge.js';
import type { ProbeContext } from '../probes/probe-context.js';
import { CoverageTracker } from '../report/coverage.js';
import { type CheckResult, type ConformanceReport, conformanceExitCodes, type RunVerdict } from '../report/report.js';
import { Reproductions } from './reproductions.js';
import { RunState } from './run-state.js';
import { Sender } from './sender.js';
import type { RunSettings } from './settings.js';

/** One probe's phase: what the phase table of run.ts lists. */
export interface PhaseOf<Shared> {
  readonly probe: ProbeName;
  readonly label: string;
  readonly run: (context: ProbeContext, shared: Shared) => Promise<void>;
}

export class ConformanceRun {
  readonly state: RunState;
  readonly context: ProbeContext;
  readonly transport: Transport;
  private readonly judging: Judging;
  private readonly coverage: CoverageTracker;
  /** The run's own stop: an interrupt, passed on to the request in flight and to every wait. */
  private readonly stop = new AbortController();
  private readonly onInterrupt = () => this.stop.abort();
  private readonly startedAt: string;

  constructor(readonly settings: RunSettings) {
    const { options, contract, validator, checks, callers, scrubber, limits } = settings;
    this.startedAt = new Date(settings.started).toISOString();
    if (options.signal?.aborted) this.stop.abort();
    else options.signal?.addEventListener('abort', this.onInterrupt, { once: true });
    this.transport = new Transport({
      baseUrl: settings.baseUrl,
      timeoutMs: limits.timeoutMs,
      maxResponseBytes: settings.maxResponseBytes,
      signal: this.stop.signal,
      // Credentials leave each answer as it arrives, before any excerpt could cut one in two.
      ...(scrubber.active ? { scrub: (text: string) => scrubber.scrub(text) } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.tls ? { tls: options.tls } : {}),
      ...(options.connectGuard ? { connectGuard: options.connectGuard } : {}),
      ...(options.rate === undefined ? {} : { rate: options.rate }),
      ...(options.afterLargeAnswer ? { afterLargeAnswer: options.afterLargeAnswer } : {}),
      // A burst of identical creates goes out on that many connections at once.
      maxSockets: Math.max(4, settings.concurrency),
    });
    const reproductions = new Reproductions({
      baseUrl: this.transport.baseUrl,
      secretHeaders: [...Object.keys(callers[1]), ...Object.keys(callers[2])],
      bodyDirectory: options.bodyDirectory,
      note: (message) => this.state.runNote(message),
    });
    const setting = {
      contract,
      validator,
      checks,
      reproduce: (exchange: Parameters<Reproductions['curl']>[0]) => reproductions.curl(exchange),
      replayable: (exchange: Parameters<Reproductions['replayable']>[0]) => reproductions.replayable(exchange),
      maxResponseTimeMs: settings.maxResponseTimeMs,
    };
    this.judging = new Judging(setting);
    this.coverage = new CoverageTracker({
      contract,
      probeRuns: (probe) => settings.needed.has(probe),
      probesLeftOutBecause: settings.pact
        ? "not exercised: a --pact run sends the pact's interactions and their states' requests only"
        : settings.workflowsOnly
          ? 'not sent: the workflows ran alone (--workflows without --checks)'
          : undefined,
    });
    this.state = new RunState({
      limits,
      setting,
      judge: (exchange) => this.judging.add(exchange),
      covered: (exchange, operationId) => this.coverage.sent(exchange, operationId),
      interruptedBy: () => this.interruptedBy(),
      ...(options.onExchange ? { onExchange: options.onExchange } : {}),
      onProgress: (message) => options.onProgress?.(scrubber.scrub(message)),
    });
    const sender = new Sender({
      state: this.state,
      transport: this.transport,
      filter: settings.filter,
      callers,
      timeoutMs: limits.timeoutMs,
      deadline: limits.deadline,
      refused: (refusal) => this.coverage.refused(refusal),
      hooks: options.hooks,
      cassette: options.cassette,
      scrub: (text) => scrubber.scrub(text),
    });
    this.context = this.probeContext(sender, setting);
  }

  private probeContext(sender: Sender, setting: Parameters<typeof verdictsOn>[1]): ProbeContext {
    const { settings, state } = this;
    const deadline = settings.limits.deadline;
    return {
      contract: settings.contract,
      validator: settings.validator,
      seed: settings.seed,
      runId: settings.runId,
      jobTimeoutMs: settings.jobTimeoutMs,
      examplesPerOperation: settings.maxExamples,
      concurrency: settings.concurrency,
      replayWaitMs: settings.replayWaitMs,
      hasSecondCaller: Object.keys(settings.callers[2]).length > 0,
      credentialHeaders: Object.keys(settings.callers[1]),
      credentialSchemes: Object.fromEntries(
        Object.entries(settings.callers[1]).flatMap(([name, value]) => {
          // Only a registered scheme's name: an unknown first word may be the credential itself.
          const first = /^(\S+) +\S/.exec(value.trim())?.[1];
          const scheme = first === undefined ? undefined : registeredAuthScheme(first);
          return scheme === undefined ? [] : [[name, scheme]];
        }),
      ),
      runs: (probe) => settings.needed.has(probe),
      send: (request, intent, options) => sender.send(request, intent, options),
      notSent: (request, intent, reason) => sender.notSent(request, intent, reason),
      record: (exchange) => state.record(exchange),
      conforms: (exchange) => verdictsOn(exchange, setting).every(({ verdict }) => verdict.outcome !== 'fail'),
      remainingRequests: () => state.remainingRequests(),
      dependentsNotSent: (requests) => state.dependentsNotSent(requests),
      includes: (operation) => settings.filter.includes(operation),
      sleep: (ms) => {
        const clock = settings.options.clock;
        if (!clock) return sleep(Math.min(ms, Math.max(0, deadline - Date.now())), this.stop.signal);
        return this.stop.signal.aborted ? Promise.resolve() : clock.sleep(ms);
      },
      now: () => settings.options.clock?.now() ?? performance.now(),
      stopped: this.stop.signal,
      note: (message) => state.note(message),
    };
  }

  /** What interrupted the run ('SIGINT', 'SIGTERM', an MCP client's cancel), if anything did. */
  interruptedBy(): string | undefined {
    const signal = this.settings.options.signal;
    return signal?.aborted ? abortReason(signal.reason) : undefined;
  }

  /** Whether a probe's phases run (the selected checks need it). */
  runs(probe: ProbeName): boolean {
    return this.settings.needed.has(probe);
  }

  /** Runs one phase over the run's context; what it sends and records is counted for its probe. */
  runPhase<Shared>(phase: PhaseOf<Shared>, shared: Shared): Promise<void> {
    return this.state.phase(phase.probe, phase.label, () => phase.run(this.context, shared));
  }

  /** Closes the connections and stops listening for the interrupt. */
  close(): void {
    this.transport.close();
    this.settings.options.signal?.removeEventListener('abort', this.onInterrupt);
  }

  /** The report of what ran, scrubbed of every credential; `settings` is its settings block. */
  report(settings: Readonly<Record<string, unknown>>): ConformanceReport {
    const { state } = this;
    state.closingNotes(this.settings.filter.flags());
    const checks = this.checkResults();
    const interrupted = this.interruptedBy();
    const incomplete = this.incompleteBecause(checks, interrupted);
    const counts = (result: CheckResult) => result.severity === 'required' || this.settings.limits.strict;
    const verdict: RunVerdict = checks.some((result) => result.status === 'failed' && counts(result))
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
      target: this.transport.baseUrl,
      spec: this.settings.contract.source,
      seed: this.settings.seed,
      runId: this.settings.runId,
      startedAt: this.startedAt,
      durationMs: Date.now() - this.settings.started,
      requests: state.requests,
      maxRequests: this.settings.limits.maxRequests,
      requestsNotSent: state.requestsNotSent,
      strict: this.settings.limits.strict,
      verdict,
      exitCode,
      incomplete,
      ...(interrupted ? { interrupted } : {}),
      passed: verdict === 'passed',
      checks,
      coverage: this.coverage.report(),
      notes: state.notes,
      settings,
    };
    return this.settings.scrubber.scrubDeep(report);
  }

  /**
   * Each check's result. A check that judged nothing because the user's filters left out its
   * requests (and nothing else was missing) was left out on purpose, as with --exclude-checks:
   * said, not "incomplete".
   */
  private checkResults(): CheckResult[] {
    const { state } = this;
    const judged = this.judging.results({
      whyNothing: (check, seen) => state.whyNothing(check, seen),
      whyPartly: (check) => state.whyPartly(check),
    });
    const byName = new Map<string, Check>(this.settings.checks.map((check) => [check.name, check]));
    return judged.map((result): CheckResult => {
      const check = byName.get(result.name);
      // Workflows alone send what their author chose: a response check none of it concerns is left out.
      if (this.settings.workflowsOnly && result.status === 'skipped' && result.applied === 0 && !check?.probes.includes('workflows'))
        return { ...result, leftOut: true, note: 'no answer of the workflows was of the kind it judges' };
      if (!check || result.status !== 'skipped' || result.applied > 0) return result;
      // A pact chooses what is sent, as the filters do: a check none of its answers concerns (no
      // error answer for error_body) was left out by the pact, unless some request was missed
      // or an answer could not be judged (the note then starts "sent, but none could be judged").
      if (this.settings.pact && !state.missedRequests(check) && !result.note?.startsWith('sent, but'))
        return { ...result, leftOut: true, note: 'no interaction of the pact got an answer it judges' };
      // The rules between two callers need a second caller's credentials: without them (and not
      // asked for by name), a choice the run states with how to make it, so --help's first
      // example can pass a correct server.
      const named = this.settings.options.checks?.includes(check.name) === true;
      if (
        !named &&
        check.probes.every((probe) => probe === 'isolation' || probe === 'key-scope') &&
        Object.keys(this.settings.callers[2]).length === 0
      )
        return {
          ...result,
          leftOut: true,
          note: "not checked without a second caller: give --second-caller-header 'Authorization: Bearer bob' (another caller's credentials)",
        };
      // Every request it needs was answered, and no answer showed what it judges (jobs final at
      // once, no 429): reported, not incomplete, unless the user asked for it by name.
      if (check.optionalEvidence && !state.missedRequests(check) && !named)
        return { ...result, leftOut: true, note: `nothing to judge: ${result.note ?? 'no answer showed what it judges'}` };
      if (!state.leftOutByFilters(check)) return result;
      return {
        ...result,
        leftOut: true,
        note: `left out by ${this.settings.filter.flags()}: the requests it judges go to operations the filters leave out`,
      };
    });
  }

  /** Why the run is incomplete: an interrupt, or a check that counts and did not run (in full). */
  private incompleteBecause(checks: readonly CheckResult[], interrupted: string | undefined): string[] {
    const counts = (result: CheckResult) => result.severity === 'required' || this.settings.limits.strict;
    return [
      ...(interrupted ? [`the run was interrupted by ${interrupted}`] : []),
      ...checks
        .filter((result) => result.status === 'skipped' && !result.leftOut && counts(result))
        .map((result) =>
          result.applied > 0
            ? `${result.name} (${result.severity}) ${result.note ?? 'ran only in part'}`
            : `${result.name} (${result.severity}) did not run: ${result.note ?? 'nothing to judge'}`,
        ),
    ];
  }
}

/**
 * The words a report gives for what stopped a run: the reason the caller aborted with when it is
 * text ('SIGINT', 'the MCP client cancelled the call'), cut to a line; an abort without one (a
 * plain `controller.abort()`, a closed connection) is just "an abort".
 */
export function abortReason(reason: unknown): string {
  if (typeof reason === 'string' && reason.trim() !== '') return reason.replace(/\s+/g, ' ').trim().slice(0, 120);
  if (reason instanceof Error && reason.name !== 'AbortError' && reason.message) return abortReason(reason.message);
  return 'an abort';
}
