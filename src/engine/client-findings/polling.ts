/**
 * @module engine/client-findings/polling
 * Rules about polling a job: not faster than the minimum interval, and slower each time until
 * the ceiling the project's own waitForJob uses (docs/assumptions.md A-26).
 */
import { jobIdOfPath } from '../coverage.js';
import type { Observation } from '../observation.js';
import { RecentMap } from './recent-map.js';
import { type ClientRule, rememberedKeys } from './rule.js';

/** The shortest wait between two polls of one job the judge accepts. */
export const minPollIntervalMs = 100;
/** Waits this long or longer need not grow: waitForJob stops doubling at 5 s. */
export const backoffCeilingMs = 5000;
/** A wait "grows" when it is at least this much longer than the one before. */
const growth = 1.1;
/** How many waits in a row may fail to grow before the rule speaks (five polls at one pace). */
const flatWaitsAllowed = 3;

function isPoll(observation: Observation): boolean {
  const method = observation.method.toUpperCase();
  return observation.operationId === 'getJob' && (method === 'GET' || method === 'HEAD');
}

/** Caller and job: another caller polling the same job is another client. */
const pollKey = (observation: Observation, jobId = jobIdOfPath(observation.path)) => `${observation.caller}\n${jobId}`;

/**
 * A 202 starts a job's polling afresh: job ids repeat after a reset of a seeded mock, and the
 * first poll of a new job may follow the last poll of the old one at once.
 */
function isNewJob(observation: Observation): string | undefined {
  return observation.operationId === 'createEvaluation' && observation.status === 202 ? observation.job?.jobId : undefined;
}

export const pollTooFast: ClientRule = {
  name: 'poll_too_fast',
  summary: `polls the same job less than ${minPollIntervalMs} ms after the poll before`,
  create() {
    /** The last poll of each job: when, and whether its answer named a wait (Retry-After). */
    const last = new RecentMap<string, { time: number; askedToWait: boolean }>({ maxEntries: rememberedKeys });
    return (observation) => {
      const created = isNewJob(observation);
      if (created !== undefined) last.delete(pollKey(observation, created));
      if (!isPoll(observation)) return undefined;
      const key = pollKey(observation);
      const before = last.get(key);
      last.set(key, { time: observation.time, askedToWait: observation.retryAfterSeconds !== undefined });
      if (before === undefined) return undefined;
      // After a Retry-After the wait it named is the rule (even 0), and retry_after_ignored judges it.
      if (before.askedToWait) return undefined;
      const waited = observation.time - before.time;
      if (waited >= minPollIntervalMs) return undefined;
      return {
        message: `polled ${observation.path.slice(0, 120)} ${waited} ms after the poll before; wait at least ${minPollIntervalMs} ms, and longer each time (the real service rate-limits tight loops)`,
      };
    };
  },
};

interface PollPace {
  readonly time: number;
  /** The wait before the last poll; undefined after the first poll or after a Retry-After. */
  readonly wait?: number;
  readonly flat: number;
  /** The waits of the current run, the one before it first (at most flatWaitsAllowed + 2). */
  readonly run: readonly number[];
  /** The rule speaks once per job. */
  readonly reported: boolean;
}

export const pollWithoutBackoff: ClientRule = {
  name: 'poll_without_backoff',
  summary: `polls a job at a steady pace under ${backoffCeilingMs} ms instead of waiting longer each time`,
  create() {
    const paces = new RecentMap<string, PollPace>({ maxEntries: rememberedKeys });
    return (observation) => {
      const created = isNewJob(observation);
      if (created !== undefined) paces.delete(pollKey(observation, created));
      if (!isPoll(observation)) return undefined;
      const key = pollKey(observation);
      const before = paces.get(key);
      // A Retry-After sets the next wait itself: the pace is measured again from there.
      const afterRetryAfter = observation.retryAfterSeconds !== undefined;
      if (!before) {
        paces.set(key, { time: observation.time, flat: 0, run: [], reported: false });
        return undefined;
      }
      const wait = observation.time - before.time;
      // Waits under the minimum are poll_too_fast's; the ceiling's are waitForJob's cap.
      const counts = wait >= minPollIntervalMs && wait < backoffCeilingMs && before.wait !== undefined;
      const flat = counts && wait < (before.wait ?? 0) * growth ? before.flat + 1 : counts ? 0 : before.flat;
      const speaks = !before.reported && flat >= flatWaitsAllowed + 1;
      const run = flat === 0 ? [wait] : [...before.run, wait].slice(-(flatWaitsAllowed + 2));
      paces.set(key, {
        time: observation.time,
        ...(afterRetryAfter ? {} : { wait }),
        flat: afterRetryAfter ? 0 : flat,
        run: afterRetryAfter ? [] : run,
        reported: before.reported || speaks,
      });
      if (!speaks) return undefined;
      return {
        message: `polled ${observation.path.slice(0, 120)} at a steady pace, the wait not growing (waits: ${run.join(', ')} ms); back off, doubling the wait up to about ${backoffCeilingMs} ms, as waitForJob does`,
      };
    };
  },
};
