/**
 * @module engine/client-findings/retries
 * Rules about retrying: waiting as Retry-After asks, and keeping the Idempotency-Key of a
 * create whose outcome the client does not know, so a retry cannot make a second job.
 */
import { RecentMap } from './recent-map.js';
import { type ClientRule, rememberedKeys } from './rule.js';

/** Clock granularity allowed when comparing a retry's arrival with the time Retry-After named. */
const slackMs = 20;
/** A create retried later than this after a failure is taken for a new request. */
const retryWindowMs = 60_000;

export const retryAfterIgnored: ClientRule = {
  name: 'retry_after_ignored',
  summary: 'sends the next request to an operation before the Retry-After of its 429 or 503 has passed',
  create() {
    /**
     * Caller and operation (and, for getJob, the job: polls of two jobs keep their own pace) →
     * when the client may send again, when it learned that, and what asked it to wait.
     */
    const waits = new RecentMap<string, { notBefore: number; answeredAt: number; status: number; seconds: number }>({
      maxEntries: rememberedKeys,
    });
    return (observation) => {
      if (observation.operationId === undefined) return undefined;
      const key = `${observation.caller}\n${observation.operationId}${observation.operationId === 'getJob' ? `\n${observation.path}` : ''}`;
      const wait = waits.get(key);
      waits.delete(key);
      const { retryAfterSeconds, status } = observation;
      // An error the request asked for (Prefer: code=) is a test's doing, not the service's.
      if (retryAfterSeconds !== undefined && (status === 429 || status === 503) && !observation.asked) {
        waits.set(key, {
          notBefore: observation.endTime + retryAfterSeconds * 1000,
          answeredAt: observation.endTime,
          status,
          seconds: retryAfterSeconds,
        });
      }
      // A request sent before the 429 or 503 was answered could not know of it: the wait still holds for the next.
      if (wait && observation.time < wait.answeredAt) {
        if (waits.get(key) === undefined) waits.set(key, wait);
        return undefined;
      }
      if (!wait || observation.time >= wait.notBefore - slackMs) return undefined;
      const early = wait.notBefore - observation.time;
      return {
        message: `sent ${observation.method} ${observation.path.slice(0, 120)} ${early} ms before the Retry-After: ${wait.seconds} of the ${wait.status} before it had passed; wait as long as Retry-After says`,
      };
    };
  },
};

interface CreateSeen {
  readonly key: string;
  readonly time: number;
  readonly endTime: number;
  readonly status: number;
  readonly asked: boolean;
  readonly bodyDigest?: string;
  readonly retryAfterMs?: number;
}

/** How soon after a failure whose body was not read a create with a new key counts as its retry. */
const unknownBodyWindowMs = 2000;

export const newKeyAfterFailure: ClientRule = {
  name: 'new_key_after_failure',
  summary: 'retries a create whose outcome it did not learn (a 5xx, or a timeout) with a new Idempotency-Key',
  create() {
    const lastCreate = new RecentMap<string, CreateSeen>({ maxEntries: rememberedKeys });
    return (observation) => {
      if (observation.operationId !== 'createEvaluation' || observation.idempotencyKey === undefined) return undefined;
      const previous = lastCreate.get(observation.caller);
      lastCreate.set(observation.caller, {
        key: observation.idempotencyKey,
        time: observation.time,
        endTime: observation.endTime,
        status: observation.status,
        asked: observation.asked === true,
        ...(observation.bodyDigest === undefined ? {} : { bodyDigest: observation.bodyDigest }),
        ...(observation.retryAfterSeconds === undefined ? {} : { retryAfterMs: observation.retryAfterSeconds * 1000 }),
      });
      if (!previous || previous.key === observation.idempotencyKey) return undefined;
      const sameBody =
        previous.bodyDigest !== undefined && observation.bodyDigest !== undefined
          ? previous.bodyDigest === observation.bodyDigest
          : undefined;
      const failed = previous.status >= 500 && !previous.asked;
      // A forced 5xx is answered without reading the body, so whether the bodies match is not
      // known: then only a create soon after the failure counts as its retry (within the
      // Retry-After it named, if any, and 2 s), not any later create of another evaluation.
      const window = sameBody === undefined ? (previous.retryAfterMs ?? 0) + unknownBodyWindowMs : retryWindowMs;
      const retriedAfterFailure =
        failed && observation.time >= previous.endTime && observation.time - previous.endTime <= window && sameBody !== false;
      // Sent while the first was still being answered: the client gave up waiting (a timeout).
      const overlapping = observation.time < previous.endTime && previous.time < observation.endTime && sameBody === true;
      if (!retriedAfterFailure && !overlapping) return undefined;
      return {
        message: retriedAfterFailure
          ? `retried a create that had answered ${previous.status} with a new Idempotency-Key; the first may have made a job, so this one can make a second: reuse the key of the create being retried`
          : 'sent the same create body with a new Idempotency-Key while the first was still unanswered (a client timeout?); both can make a job: reuse the key when retrying',
      };
    };
  },
};

export const keyReusedWithOtherBody: ClientRule = {
  name: 'key_reused_with_other_body',
  summary: 'reuses an Idempotency-Key with another request body (answered 409)',
  create() {
    return (observation) => {
      if (observation.operationId !== 'createEvaluation' || observation.status !== 409) return undefined;
      if (observation.forced || observation.code !== 'idempotency_key_conflict') return undefined;
      return {
        message:
          'reused an Idempotency-Key with a different body; the real service refuses it the same way: make a new key for each new request, and reuse one only to retry the same request',
      };
    };
  },
};
