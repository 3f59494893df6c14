/**
 * @module conformance/report/causes
 * One cause behind many failures, said once: when most failures are answers of 401 or
 * 403, the server wants credentials the run did not give (or refuses those it gave); when many
 * are 5xx or 429, they are transient failures of the server or of a mock scenario, not findings
 * about the inputs. The summary starts with the cause and groups the failures under it.
 */
import type { Failure } from '../failures.js';

export interface Cause {
  /** One line: what explains the failures, and what to do. */
  readonly line: string;
  /** The failures it explains, by their number in the reports' one order (from 1). */
  readonly failures: readonly number[];
}

/** Fewer failing answers than this are not a pattern worth a line of their own. */
const minimumAnswers = 5;

function statusOf(failure: Failure): number | undefined {
  const match = /^(\d{3})\b/.exec(failure.received);
  return match ? Number(match[1]) : undefined;
}

function counted(statuses: Map<number, number>): string {
  return [...statuses]
    .sort((a, b) => b[1] - a[1])
    .map(([status, count]) => `${status} ×${count}`)
    .join(', ');
}

/**
 * The causes behind `failures` (in the reports' order). `credentialHeaders` are the header names
 * --header gave (never their values).
 */
export function causesOf(failures: readonly Failure[], options: { credentialHeaders: readonly string[] }): Cause[] {
  const groups = {
    credentials: { numbers: [] as number[], statuses: new Map<number, number>(), answers: 0 },
    transient: { numbers: [] as number[], statuses: new Map<number, number>(), answers: 0 },
  };
  let total = 0;
  failures.forEach((failure, index) => {
    total += failure.occurrences;
    const status = statusOf(failure);
    if (status === undefined) return;
    const group = status === 401 || status === 403 ? groups.credentials : status === 429 || status >= 500 ? groups.transient : undefined;
    if (!group) return;
    group.numbers.push(index + 1);
    group.answers += failure.occurrences;
    group.statuses.set(status, (group.statuses.get(status) ?? 0) + failure.occurrences);
  });
  const causes: Cause[] = [];
  const { credentials, transient } = groups;
  // Credentials explain a run only when they explain most of it.
  if (credentials.answers >= minimumAnswers && credentials.answers * 2 >= total) {
    const given = options.credentialHeaders;
    causes.push({
      line:
        given.length === 0
          ? `Cause: the server wants credentials: ${credentials.answers} failing answers were ${counted(credentials.statuses)}. Pass them with --header 'Authorization: Bearer …' (and a second caller's with --second-caller-header).`
          : `Cause: the server refuses the credentials given (--header ${given.join(', ')}): ${credentials.answers} failing answers were ${counted(credentials.statuses)}. Check them, or the header the server reads.`,
      failures: credentials.numbers,
    });
  }
  if (transient.answers >= minimumAnswers)
    causes.push({
      line: `Cause: transient failures: ${transient.answers} failing answers were ${counted(transient.statuses)}, from your server or a mock scenario, not from the inputs. Slow down with --rate N, give jobs time with --job-timeout, or run without the scenario.`,
      failures: transient.numbers,
    });
  return causes;
}
