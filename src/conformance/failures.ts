/**
 * @module conformance/failures
 * Failures as typed values (STYLE 7): a check's verdict on one exchange, and the failure the
 * report shows — which check, which operation, what was expected against what was received,
 * and a curl command that reproduces it.
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
