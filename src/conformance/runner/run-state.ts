/**
 * @module conformance/runner/run-state
 * What changes while a run goes on, in one object that owns it (STYLE 20): the probe whose
 * phase is running, the requests sent, in flight and not sent (and why, per probe and per
 * check), the notes, the timeout streaks of each operation, the failing exchanges that
 * --max-failures counts, and the progress lines. Each rule is one method: the sender asks it
 * whether a request may go and tells it what came back; the probes tell it what they could not
 * do; the report asks it why a check judged nothing. It sends nothing itself, so every rule can
 * be tested without HTTP.
 */
import type { Check, ProbeName } from '../checks/check.js';
import type { Exchange } from '../exchange.js';
import { UngenerableValueError } from '../generators/pattern-values.js';
import { type JudgeSetting, verdictsOn } from '../judge.js';

/** A duration as a person writes it: 600000 → "10m", 5000 → "5s", 1500 → "1500ms". */
export function formatDuration(ms: number): string {
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0 && ms >= 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** The bounds of a run that decide whether a request may still go. */
export interface RunLimits {
  readonly maxRequests: number;
  readonly maxFailures?: number | undefined;
  /** Advisory failures count toward --max-failures too. */
  readonly strict: boolean;
  /** When the time budget ends (ms since the epoch), and how long it was. */
  readonly deadline: number;
  readonly timeBudgetMs: number;
  readonly timeoutMs: number;
  readonly maxConsecutiveTimeouts: number;
}

export interface RunStateOptions {
  readonly limits: RunLimits;
  /** What the checks are asked about a request that was not sent (which of them needed it). */
  readonly setting: Pick<JudgeSetting, 'contract' | 'validator' | 'checks' | 'maxResponseTimeMs'>;
  /** Judges each recorded exchange; returns the checks it fails. */
  readonly judge: (exchange: Exchange) => readonly Pick<Check, 'severity'>[];
  /** Counts what a recorded exchange exercised of the contract. */
  readonly covered?: (exchange: Exchange, operationId: string | undefined) => void;
  /** The signal that interrupted the run, if one did. */
  readonly interruptedBy?: () => string | undefined;
  /** Receives each recorded exchange (ConformanceOptions.onExchange). */
  readonly onExchange?: (exchange: Exchange) => void;
  /** Receives progress lines, already scrubbed of credentials. */
  readonly onProgress?: (message: string) => void;
  /** The clock; a test may pass its own. */
  readonly now?: () => number;
}

/** A planned request that was not sent: why, how many, and the request as it would have been recorded. */
export interface Refusal {
  readonly reason: string;
  /** The request, unanswered: which checks needed it. */
  readonly request?: Exchange;
  /** How many planned requests this stands for (default 1). */
  readonly requests?: number;
}

function add<K>(counts: Map<K, number>, key: K, by = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

function addTo<K>(counts: Map<K, Map<string, number>>, key: K, reason: string, by = 1): void {
  const reasons = counts.get(key) ?? new Map<string, number>();
  add(reasons, reason, by);
  counts.set(key, reasons);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Reasons with counts, as the notes and a check's note say them. */
function summarised(reasons: ReadonlyMap<string, number>): string[] {
  return [...reasons].map(([reason, count]) => `${plural(count, 'request')} not sent: ${reason}`);
}

function atMostThree(all: readonly string[]): string {
  return all.length > 3 ? `${all.slice(0, 3).join('; ')}; and ${all.length - 3} more reason(s) in the notes` : all.join('; ');
}

export class RunState {
  /** The report's notes, in the order they were first said. */
  readonly notes: string[] = [];
  private currentProbe: ProbeName = 'positive';
  private sent = 0;
  private notSentCount = 0;
  private lastId = 0;
  /** Requests sent and not yet answered: a burst sent at once must not pass --max-requests. */
  private inFlight = 0;
  /** Exchanges that failed a check that counts toward the verdict, for --max-failures. */
  private failingExchanges = 0;
  /** Exchanges recorded per probe, so a check that judged none of its probes' can say they were sent. */
  private readonly recorded = new Map<ProbeName, number>();
  private readonly probeNotes = new Map<ProbeName, string[]>();
  /** Per probe: why requests it wanted were not sent, with counts. */
  private readonly unsent = new Map<ProbeName, Map<string, number>>();
  /**
   * Per check: why requests it would have judged were not sent, with counts. A check that
   * judged some of its requests but not these did not run in full, and cannot pass.
   */
  private readonly unsentForCheck = new Map<string, Map<string, number>>();
  /** Per probe and per check: requests the operation filters left out (never a reason for "incomplete"). */
  private readonly leftOutByProbe = new Map<ProbeName, number>();
  private readonly leftOutForCheck = new Map<string, number>();
  /** Why the last request was refused: the reason requests built on it were not sent either. */
  private lastRefusal: string | undefined;
  /** Whether that refusal was the user's operation filter: requests built on it are left out too, not missing. */
  private lastRefusalLeftOut = false;
  private readonly timeoutStreaks = new Map<string, number>();
  private readonly stoppedGroups = new Map<string, string>();
  private readonly now: () => number;

  constructor(private readonly options: RunStateOptions) {
    this.now = options.now ?? Date.now;
  }

  /** HTTP requests sent so far (retries and followed redirects included). */
  get requests(): number {
    return this.sent;
  }

  /** Planned requests not sent (the report's requestsNotSent). */
  get requestsNotSent(): number {
    return this.notSentCount;
  }

  /** The probe whose phase is running: what notes, refusals and recorded exchanges are counted for. */
  get probe(): ProbeName {
    return this.currentProbe;
  }

  /** Requests the learning phase may send beyond --max-requests (its printed budget, A-52). */
  private learningAllowance = 0;

  /** The most requests the run may send: --max-requests, and the learning phase's budget once it starts. */
  get maxRequests(): number {
    return this.options.limits.maxRequests + this.learningAllowance;
  }

  /**
   * Lets the learning phase send up to `budget` more requests: it is bounded by its own budget,
   * printed before it starts, so a run that used --max-requests still asks its questions.
   */
  allowLearning(budget: number): void {
    this.learningAllowance = budget;
  }

  remainingRequests(): number {
    return Math.max(0, this.maxRequests - this.sent);
  }

  /** Exchanges recorded while `probe`'s phases ran. */
  recordedFor(probe: ProbeName): number {
    return this.recorded.get(probe) ?? 0;
  }

  /** A progress line (ConformanceOptions.onProgress). */
  progress(message: string): void {
    this.options.onProgress?.(message);
  }

  /**
   * Runs one phase for `probe`: what it records, notes and cannot send is counted for that
   * probe, and its request count goes to the progress lines. A phase runs even when nothing more
   * may be sent: each request it plans is refused, and counted against the checks that needed it.
   */
  async phase(probe: ProbeName, label: string, run: () => Promise<void>): Promise<void> {
    this.currentProbe = probe;
    const before = this.sent;
    try {
      await run();
    } catch (error) {
      if (!(error instanceof UngenerableValueError)) throw error;
      this.notJudged(probe, error.reason);
    }
    const count = this.sent - before;
    this.progress(`${label}: ${plural(count, 'request')} (${this.sent}/${this.maxRequests} sent)`);
  }

  /**
   * A phase that could not build a value the spec asks for (a pattern outside the shapes the
   * generators build, docs/conformance.md) stops there: the probe's checks did not run in
   * full, say why, and cannot pass; the rest of the run goes on.
   */
  private notJudged(probe: ProbeName, reason: string): void {
    const why = `not judged: ${reason}`;
    this.note(why);
    addTo(this.unsent, probe, why, 1);
    for (const check of this.options.setting.checks) if (check.probes.includes(probe)) addTo(this.unsentForCheck, check.name, why);
  }

  /** A note in the report about the running probe (why it did less than usual). */
  note(message: string): void {
    // Several probes find the same gap (a spec without getJob is noted by each probe that needs
    // it): the report says it once, and each probe's checks still know why they did not run.
    if (!this.notes.includes(message)) this.notes.push(message);
    const forProbe = this.probeNotes.get(this.currentProbe) ?? [];
    if (!forProbe.includes(message)) this.probeNotes.set(this.currentProbe, [...forProbe, message]);
  }

  /** A note about the run as a whole, not about a probe (a folder that could not be written). */
  runNote(message: string): void {
    this.notes.push(message);
  }

  /** Why nothing more may be sent at all, if so: an interrupt, --max-failures, the time budget. */
  stoppedBecause(): string | undefined {
    const { maxFailures, deadline, timeBudgetMs } = this.options.limits;
    const signal = this.options.interruptedBy?.();
    if (signal) return `the run was interrupted (${signal})`;
    if (maxFailures !== undefined && this.failingExchanges >= maxFailures)
      return `--max-failures ${maxFailures} was reached (${plural(this.failingExchanges, 'failing exchange')})`;
    if (this.now() >= deadline) return `the --time-budget of ${formatDuration(timeBudgetMs)} ran out`;
    return undefined;
  }

  /**
   * Why a request to `group` (an operationId, or the routes outside the contract) may not go:
   * the run stopped, --max-requests is used up (counting those in flight), or the operation was
   * stopped after its timeouts.
   */
  refusalFor(group: string): string | undefined {
    const stopped = this.stoppedBecause();
    if (stopped) return stopped;
    if (this.sent + this.inFlight >= this.maxRequests)
      return this.learningAllowance > 0
        ? `--max-requests ${this.options.limits.maxRequests} and the learning phase's ${this.learningAllowance} were reached`
        : `--max-requests ${this.options.limits.maxRequests} was reached`;
    return this.stoppedGroups.get(group);
  }

  /** A request goes: its exchange id, taken now so that requests sent at once keep the order they were sent in. */
  requestGoes(): number {
    this.lastId += 1;
    this.inFlight += 1;
    return this.lastId;
  }

  /** A request came back, having sent `requestsSent` HTTP requests (a 429 retry and redirects count). */
  requestCameBack(requestsSent: number): void {
    this.inFlight -= 1;
    this.sent += requestsSent;
  }

  /**
   * A request to `group` timed out or not: after --max-consecutive-timeouts in a row the group
   * is stopped, and the rest of its requests are refused with that reason.
   */
  timedOut(group: string, timedOut: boolean): void {
    if (!timedOut) {
      this.timeoutStreaks.set(group, 0);
      return;
    }
    const streak = (this.timeoutStreaks.get(group) ?? 0) + 1;
    this.timeoutStreaks.set(group, streak);
    const { maxConsecutiveTimeouts, timeoutMs } = this.options.limits;
    if (streak < maxConsecutiveTimeouts) return;
    const reason = `${group} stopped after ${streak} timeouts in a row (--timeout ${timeoutMs} ms)`;
    this.stoppedGroups.set(group, reason);
    this.note(reason);
  }

  /**
   * Records an exchange for judging. `operationId`: the operation the request was built for,
   * even when its path left the template (coverage counts it there).
   */
  record(exchange: Exchange, operationId: string | undefined = exchange.operationId): void {
    add(this.recorded, this.currentProbe);
    const failed = this.options.judge(exchange);
    if (failed.some((check) => check.severity === 'required' || this.options.limits.strict)) this.failingExchanges += 1;
    this.options.covered?.(exchange, operationId);
    this.options.onExchange?.(exchange);
  }

  /**
   * Counts a planned request as not sent, for its probe and, when the request is known, for
   * each check that would have judged it: the checks its probe serves whose verdict on it,
   * unanswered, is more than "does not apply". A stopped operation thus leaves incomplete only
   * the checks that needed its answers.
   */
  notSent(refusal: Refusal): undefined {
    const planned = refusal.requests ?? 1;
    this.notSentCount += planned;
    this.lastRefusal = refusal.reason;
    this.lastRefusalLeftOut = false;
    addTo(this.unsent, this.currentProbe, refusal.reason, planned);
    for (const name of this.checksNeeding(refusal.request)) addTo(this.unsentForCheck, name, refusal.reason);
    return undefined;
  }

  /** Counts a request the operation filters leave out, for its probe and the checks that would have judged it. */
  leftOut(refusal: Refusal): undefined {
    this.lastRefusal = refusal.reason;
    this.lastRefusalLeftOut = true;
    add(this.leftOutByProbe, this.currentProbe, refusal.requests ?? 1);
    for (const name of this.checksNeeding(refusal.request)) add(this.leftOutForCheck, name);
    return undefined;
  }

  /**
   * Counts `requests` planned requests as not sent because one they build on was just refused,
   * for the same reason (left out, when the filters refused it).
   */
  dependentsNotSent(requests: number): void {
    const refusal = { reason: this.lastRefusal ?? 'a request they build on was not sent', requests };
    if (this.lastRefusalLeftOut) this.leftOut(refusal);
    else this.notSent(refusal);
  }

  /** The checks of the running probe that would have judged `request`, unanswered. */
  private checksNeeding(request: Exchange | undefined): string[] {
    if (!request) return [];
    return verdictsOn(request, this.options.setting)
      .filter(({ check, verdict }) => check.probes.includes(this.currentProbe) && !(verdict.outcome === 'skip' && !verdict.reason))
      .map(({ check }) => check.name);
  }

  /** The notes said once the phases are over: what was not sent, and why; what the filters left out. */
  closingNotes(filterFlags: string): void {
    const reasonsNotSent = new Map<string, number>();
    for (const reasons of this.unsent.values()) for (const [reason, count] of reasons) add(reasonsNotSent, reason, count);
    for (const [reason, count] of reasonsNotSent) this.notes.push(`${count} planned request(s) not sent: ${reason}`);
    const leftOutRequests = [...this.leftOutByProbe.values()].reduce((total, count) => total + count, 0);
    if (leftOutRequests > 0) this.notes.push(`${leftOutRequests} planned request(s) left out by ${filterFlags}`);
  }

  /** Why a check judged nothing: its probes' requests not sent, their notes, or requests sent with no answer to judge. */
  whyNothing(check: Check, seen: { unjudged: number }): string | undefined {
    const reasons = new Map<string, number>();
    for (const probe of check.probes) for (const [reason, count] of this.unsent.get(probe) ?? []) add(reasons, reason, count);
    const probeReasons = check.probes.flatMap((probe) => this.probeNotes.get(probe) ?? []);
    const all = [...new Set([...summarised(reasons), ...probeReasons])];
    if (all.length > 0) return atMostThree(all);
    if (seen.unjudged > 0) return undefined;
    const sent = check.probes.reduce((total, probe) => total + this.recordedFor(probe), 0);
    return sent > 0 ? `its requests were sent (${sent}), but no answer showed what it judges` : undefined;
  }

  /** Which requests a check would have judged were not sent, if any. */
  whyPartly(check: Check): string | undefined {
    const reasons = this.unsentForCheck.get(check.name);
    return reasons && reasons.size > 0 ? atMostThree(summarised(reasons)) : undefined;
  }

  /**
   * Whether a check that judged nothing was left out on purpose: the user's filters left out
   * requests it judges, and nothing else it needed went missing.
   */
  leftOutByFilters(check: Check): boolean {
    const byFilter =
      (this.leftOutForCheck.get(check.name) ?? 0) + check.probes.reduce((total, probe) => total + (this.leftOutByProbe.get(probe) ?? 0), 0);
    return byFilter > 0 && !this.missedRequests(check);
  }

  /** Whether requests the check would have judged were not sent (a limit, a refusal, a state not set up). */
  missedRequests(check: Check): boolean {
    return this.unsentForCheck.has(check.name) || check.probes.some((probe) => this.unsent.has(probe));
  }
}
