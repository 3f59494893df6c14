/**
 * @module conformance/failures
 * Failures as typed values (STYLE 7): a check's verdict on one exchange, and the failure the
 * report shows — which check, which operation, what was expected against what was received,
 * its severity, and a curl command (or a sequence of them) that reproduces it. A failure has a
 * key (check, operation, title) under which duplicates merge and are counted, and one order
 * (severity, check, operation) that every report lists failures in.
 */

export type Severity = 'required' | 'advisory';

/** What a check decided about one exchange. */
export type Verdict =
  | { readonly outcome: 'pass' }
  /**
   * The check does not apply to this exchange; with a reason, it did apply but could not judge
   * it (no whole answer, still rate limited…), and the reason explains a check left unjudged.
   */
  | { readonly outcome: 'skip'; readonly reason?: string }
  | { readonly outcome: 'fail'; readonly title: string; readonly expected: string; readonly received: string };

export const pass: Verdict = { outcome: 'pass' };
export const skip: Verdict = { outcome: 'skip' };

/** The check applies to the exchange but cannot judge it, for `reason`. */
export function unjudged(reason: string): Verdict {
  return { outcome: 'skip', reason };
}

export function fail(details: { title: string; expected: string; received: string }): Verdict {
  return { outcome: 'fail', ...details };
}

/**
 * The request of a failure, kept so that `conformance replay` can send it again and judge the
 * new answer with the same check: the path under the base URL, the headers without the caller's
 * credentials (the replay adds its own), and why it was sent.
 */
export interface ReplayableRequest {
  readonly caller: 1 | 2;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Where a body too long to keep in the report was written (beside the reports, as for its curl
   * line); `conformance replay` reads it from there.
   */
  readonly bodyFile?: string;
  /** The exchange's intent, as the check judged it (plain data). */
  readonly intent: unknown;
}

/** One failure as reported: enough to act on without reading the runner's code. */
export interface Failure {
  readonly check: string;
  readonly severity: Severity;
  /** The operationId, or "METHOD /path" for a request outside the contract. */
  readonly operation: string;
  readonly title: string;
  readonly expected: string;
  readonly received: string;
  /** Why the request was sent, e.g. "/evidence/0/id: 257 characters (maxLength 256)". */
  readonly input: string;
  /** A copy-pasteable curl command; credentials are read from environment variables. */
  readonly curl: string;
  /**
   * For a failure of a stateful sequence: its steps as curl commands, to run in order (the
   * last one is the step that failed; a line may send several requests at once or poll).
   */
  readonly sequence?: readonly string[];
  /** The exchange's sequence number in the run. */
  readonly exchange: number;
  /**
   * The request, for `conformance replay`; absent when it cannot be sent again on its own (it
   * builds on a job created earlier in the run, or its body is too large to keep).
   */
  readonly replay?: ReplayableRequest;
  /** How many exchanges failed the same way (same check, operation and title). */
  readonly occurrences: number;
}

/** What makes two failures the same problem: the check, the operation and the title. */
export type FailureIdentity = Pick<Failure, 'check' | 'operation' | 'title'>;

/**
 * A failure's fingerprint, for de-duplication: failures with one key are one entry in every
 * report, with their occurrences counted. The title carries what differs between problems of
 * one check on one operation (the status, the schema keyword and where); the input and the
 * exchange do not, so the same problem found by two inputs is reported once.
 */
export function failureKey(failure: FailureIdentity): string {
  return JSON.stringify([failure.check, failure.operation, failure.title]);
}

const severityRank: Readonly<Record<Severity, number>> = { required: 0, advisory: 1 };

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The reports' one order: required before advisory, then by check and operation (code point
 * order, the same in every locale), then in the order found (the exchange's number, fixed by
 * the seed: a probe's own order, such as a sequence's pointers in document order, is kept), the
 * title last. Every report lists failures in it, and `conformance replay` numbers them by it.
 */
export function compareFailures(a: Failure, b: Failure): number {
  return (
    severityRank[a.severity] - severityRank[b.severity] ||
    byText(a.check, b.check) ||
    byText(a.operation, b.operation) ||
    a.exchange - b.exchange ||
    byText(a.title, b.title)
  );
}

/**
 * Failures merged by key, in compareFailures order: one entry per key, the earliest exchange's
 * details kept and every entry's occurrences added up.
 */
export function mergeFailures(failures: Iterable<Failure>): Failure[] {
  const merged = new Map<string, Failure>();
  for (const failure of [...failures].sort(compareFailures)) {
    const key = failureKey(failure);
    const kept = merged.get(key);
    merged.set(key, kept ? { ...kept, occurrences: kept.occurrences + failure.occurrences } : failure);
  }
  return [...merged.values()];
}

/**
 * Failures grouped as they are found: the first of each key is built and kept (building one
 * may write a body file for its curl line, so later ones are only counted).
 */
export class FailureGroups {
  private readonly groups = new Map<string, Failure>();

  /** Counts a failure under its identity; `build` makes the entry (with that identity) when it is new. */
  add(identity: FailureIdentity, build: () => Omit<Failure, 'occurrences'>): void {
    const key = failureKey(identity);
    const kept = this.groups.get(key);
    this.groups.set(key, kept ? { ...kept, occurrences: kept.occurrences + 1 } : { ...build(), occurrences: 1 });
  }

  get size(): number {
    return this.groups.size;
  }

  /** The groups in compareFailures order. */
  list(): Failure[] {
    return [...this.groups.values()].sort(compareFailures);
  }
}
