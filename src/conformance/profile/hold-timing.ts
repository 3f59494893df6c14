/**
 * @module conformance/profile/hold-timing
 * How `--profile` judges an answer against the timing entries (docs/assumptions.md A-3, "Holding
 * a timeline"). A read is a failure only when the declared progression makes it impossible given
 * when it was sent and answered: a state reached before its declared ms could have passed, by
 * a margin of the larger of 50% and 1 s; a state kept long after it should have ended, by a
 * margin of twice the declared time plus 1 s. A busy machine (a slow answer, a late timer)
 * widens the window a read is judged in; it never fails a server that keeps its timeline.
 */
import type { ServerProfile } from '../../profile/profile.js';
import type { Check } from '../checks/check.js';
import type { Exchange } from '../exchange.js';
import { skip } from '../failures.js';
import type { Observation } from './observe.js';

/** The body sizes the limit's resolution leaves undecided: a body up to this much over the declared limit is not judged. */
export const limitResolutionBytes = 1024;

const finalStates = new Set(['COMPLETE', 'FAILED']);

/** The margins of the rule, in one place (docs/assumptions.md A-3). */
export const timingTolerance = {
  /** Early: a state may come this share of its declared time early… */
  earlyShare: 0.5,
  /** …or this many ms early, whichever is more. */
  earlyMs: 1000,
  /** Late: a state may last this many times its declared end… */
  lateFactor: 2,
  /** …plus this many ms. */
  lateMs: 1000,
  /** By reads without ms: a state ahead of the read count is not judged after this long (the server may move jobs by time too). */
  readsAheadGraceMs: 1000,
} as const;

interface ReadSeen {
  readonly state: string;
  readonly read: number;
  readonly sentMs: number;
  readonly answeredMs: number;
  readonly createAnsweredMs: number;
}

/** The states a job passes, from the one it is created in, the final states sharing the last rank. */
function ranks(profile: ServerProfile): { waiting: readonly string[]; rankOf: (state: string) => number | undefined } {
  const { first, through } = profile.entries['A-3.timeline'];
  const waiting: string[] = [first, ...through.filter((state) => state !== first)].filter((state) => !finalStates.has(state));
  return {
    waiting,
    rankOf: (state) => (finalStates.has(state) ? waiting.length : waiting.includes(state) ? waiting.indexOf(state) : undefined),
  };
}

function progressionDeparture(seen: ReadSeen, profile: ServerProfile): string | undefined {
  const progression = profile.entries['A-3.progression'];
  // The mock's scenarios are not a server's decision: nothing to hold a server to.
  if (progression.by === 'scenario') return undefined;
  const { waiting, rankOf } = ranks(profile);
  const rank = rankOf(seen.state);
  // A state the timeline does not name is A-3.timeline's failure, not this entry's.
  if (rank === undefined) return undefined;
  const ms = (progression.ms ?? {}) as Readonly<Record<string, number | undefined>>;
  // When each rank is entered, in ms from the create.
  const enteredAt = [0];
  for (const state of waiting) enteredAt.push(enteredAt.at(-1)! + (ms[state] ?? 0));
  const timeTooEarly = () => {
    const due = enteredAt[rank]!;
    const margin = Math.max(due * timingTolerance.earlyShare, timingTolerance.earlyMs);
    return seen.answeredMs + margin < due
      ? `${seen.state} at ${Math.round(seen.answeredMs)} ms after the create was sent, before its declared ${due} ms could have passed (margin ${Math.round(margin)} ms)`
      : undefined;
  };
  const timeTooLate = () => {
    if (rank >= waiting.length) return undefined;
    const end = enteredAt[rank + 1]!;
    const latest = timingTolerance.lateFactor * end + timingTolerance.lateMs;
    const earliestElapsed = seen.sentMs - seen.createAnsweredMs;
    return earliestElapsed > latest
      ? `still ${seen.state} at least ${Math.round(earliestElapsed)} ms after the job was created; the profile moves it on at ${end} ms (judged late after ${latest} ms)`
      : undefined;
  };
  if (progression.by === 'time') return timeTooEarly() ?? timeTooLate();
  const reads = progression.reads as Readonly<Record<string, number | undefined>>;
  // Read n answers the state of the highest rank entered at or before it (a create is read 0).
  let entered = 0;
  let expected = 0;
  for (let index = 0; index < waiting.length; index += 1) {
    entered += (reads[waiting[index]!] ?? 0) + (index === 0 ? 1 : 0);
    if (seen.read >= entered) expected = index + 1;
  }
  if (rank < expected)
    return `still ${seen.state} at read ${seen.read}; the profile moves it on by read ${seen.read} (${JSON.stringify(progression.reads)})`;
  if (rank > expected) {
    if (progression.ms) return timeTooEarly();
    if (seen.answeredMs < timingTolerance.readsAheadGraceMs)
      return `already ${seen.state} at read ${seen.read}, ${Math.round(seen.answeredMs)} ms after the create; the profile moves it by reads (${JSON.stringify(progression.reads)})`;
  }
  return undefined;
}

function limitDeparture(
  seen: { operation: string; bytes: number; refused: boolean; status?: number },
  profile: ServerProfile,
): string | undefined {
  const limit = (profile.entries['A-13.body-limits'] as Readonly<Record<string, number | undefined>>)[seen.operation];
  if (limit === undefined) return undefined;
  if (seen.refused && seen.bytes <= limit)
    return `${seen.operation} refused a body of ${seen.bytes} bytes (${seen.status}), within its declared limit of ${limit}`;
  if (!seen.refused && seen.bytes > limit + limitResolutionBytes)
    return `${seen.operation} accepted a body of ${seen.bytes} bytes (${seen.status}), over its declared limit of ${limit}`;
  if (seen.refused && seen.bytes > limit) {
    const declared = seen.operation === 'verifyReport' ? 400 : profile.entries['A-13.body-too-large'].status;
    if (seen.status !== undefined && seen.status !== declared)
      return `${seen.operation} refused a body of ${seen.bytes} bytes with ${seen.status}, not ${declared} (A-13.body-too-large)`;
  }
  return undefined;
}

/** How an observation of a timing entry departs from the profile, or undefined; `handled` false for another entry. */
export function timingDeparture(observation: Observation, profile: ServerProfile): { handled: boolean; problem?: string } {
  const value = observation.value as Record<string, unknown>;
  switch (observation.entry) {
    case 'A-3.progression':
      return { handled: true, problem: progressionDeparture(value as unknown as ReadSeen, profile) };
    case 'A-13.body-limits':
      return {
        handled: true,
        problem: limitDeparture(value as unknown as { operation: string; bytes: number; refused: boolean; status?: number }, profile),
      };
    case 'A-4.limitations': {
      const declared = profile.entries['A-4.limitations'] as Readonly<Record<string, string | undefined>>;
      const [part, seen] = Object.entries(value)[0] ?? [];
      const want = part === undefined ? undefined : declared[part];
      return {
        handled: true,
        problem:
          want !== undefined && seen !== want ? `a ${part!.toUpperCase()} job with limitations ${String(seen)}, not ${want}` : undefined,
      };
    }
    default:
      return { handled: false };
  }
}

/** The checks that a valid input is accepted: a valid body over a declared limit is the server's decision to refuse. */
const acceptanceChecks = new Set(['positive_data_acceptance']);

/** Whether the exchange's body is over the limit the profile declares for its operation. */
function overDeclaredLimit(exchange: Exchange, profile: ServerProfile): boolean {
  const limit = (profile.entries['A-13.body-limits'] as Readonly<Record<string, number | undefined>>)[exchange.operationId ?? ''];
  const body = exchange.request.body;
  return limit !== undefined && body !== undefined && body.length > limit / 3 && new TextEncoder().encode(body).length > limit;
}

/**
 * `check` under a declared A-13.body-limits: a valid body over the operation's declared limit
 * is not judged by the acceptance checks (the limit's own check judges its refusal).
 */
export function withDeclaredBodyLimits(check: Check, profile: ServerProfile): Check {
  if (!profile.declared.has('A-13.body-limits') || !acceptanceChecks.has(check.name)) return check;
  return { ...check, judge: (exchange, context) => (overDeclaredLimit(exchange, profile) ? skip : check.judge(exchange, context)) };
}
