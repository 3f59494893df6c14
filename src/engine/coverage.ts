/**
 * @module engine/coverage
 * Consumer coverage: which behaviours of the contract the engine's answers have shown a client
 * (docs/coverage.md). A behaviour is a named thing a client must be ready for — a documented
 * status of an operation, a job state or evaluation delivered, an Error code, a Retry-After, an
 * idempotent replay or conflict, the 404 for another caller's job — and it is covered once an
 * answer has carried it. Counts only, in a fixed catalogue: the memory held does not grow with
 * traffic (the few job owners kept for "another caller's job" are in a bounded map).
 */
import { type ErrorCode, errorCodes, evaluations, jobStatuses } from '../contract/index.js';
import { RecentMap } from './client-findings/recent-map.js';
import type { Observation } from './observation.js';
import type { OperationId } from './router.js';

export interface Behaviour {
  /** Stable name, used by `expectCoverage({ mustSee })`: `createEvaluation 409`, `job FAILED`, `error rate_limited`. */
  readonly id: string;
  /** The operation that shows it; `*` for an Error code any operation may answer. */
  readonly operationId: OperationId | '*';
  /** One line saying what the client saw. */
  readonly description: string;
}

export interface BehaviourCoverage extends Behaviour {
  readonly covered: boolean;
  /** How many answers showed it. */
  readonly count: number;
}

/**
 * Statuses per operation: the documented ones, and those the mock answers behind `default`
 * (docs/assumptions.md A-8). 405 is not per operation: it is `error method_not_allowed`.
 */
const statuses: Readonly<Record<OperationId, readonly number[]>> = {
  health: [200],
  createEvaluation: [202, 400, 409, 413, 415, 429, 500, 503],
  verifyReport: [200, 400, 415, 429, 500, 503],
  getJob: [200, 404, 429, 500, 503],
};

const statusMeaning: Readonly<Record<number, string>> = {
  200: 'a successful answer',
  202: 'a job accepted (or replayed)',
  400: 'an invalid request refused',
  404: 'no such job for this caller',
  409: 'the Idempotency-Key reused with another body',
  413: 'a value or body over a limit',
  415: 'a body that is not application/json',
  429: 'rate limited, with Retry-After',
  500: 'a processing failure',
  503: 'temporarily unavailable, with Retry-After',
};

/** Error codes the engine itself answers; request_timeout comes from the node server's edge, never from the engine. */
const engineErrorCodes = (Object.keys(errorCodes) as ErrorCode[]).filter((code) => code !== 'request_timeout');

/** Every behaviour, in the order reports list them. */
export const behaviours: readonly Behaviour[] = [
  ...(Object.entries(statuses) as [OperationId, readonly number[]][]).flatMap(([operationId, list]) =>
    list.map((status) => ({
      id: `${operationId} ${status}`,
      operationId,
      description: `${operationId} answered ${status}: ${statusMeaning[status] ?? 'an error'}`,
    })),
  ),
  ...jobStatuses.map((status) => ({
    id: `job ${status}`,
    operationId: 'getJob' as const,
    description: `a job delivered in state ${status} (by getJob, or by createEvaluation's 202)`,
  })),
  ...evaluations.map((evaluation) => ({
    id: `evaluation ${evaluation}`,
    operationId: 'getJob' as const,
    description: `a COMPLETE job delivered with evaluation ${evaluation}`,
  })),
  ...engineErrorCodes.map((code) => ({
    id: `error ${code}`,
    operationId: '*' as const,
    description: `an Error body with code ${code}: ${errorCodes[code]}`,
  })),
  ...(['createEvaluation', 'verifyReport', 'getJob'] as const).map((operationId) => ({
    id: `${operationId} Retry-After`,
    operationId,
    description: `${operationId} answered with a Retry-After header`,
  })),
  {
    id: 'idempotency replay',
    operationId: 'createEvaluation',
    description: 'a create with an Idempotency-Key already used with the same body, answered with the same job',
  },
  {
    id: 'idempotency conflict',
    operationId: 'createEvaluation',
    description: 'a create refused with 409 because its Idempotency-Key was used with another body (not forced)',
  },
  {
    id: 'getJob other caller',
    operationId: 'getJob',
    description: 'getJob answered 404 for a job that exists but belongs to another caller (A-10)',
  },
];

const known = new Set(behaviours.map((behaviour) => behaviour.id));

/** True when `id` names a behaviour of the catalogue. */
export function isBehaviourId(id: string): boolean {
  return known.has(id);
}

/** How many created jobs are remembered for replay and other-caller detection. */
const rememberedJobs = 10_000;

/** What an answer showed beyond its status and code, for the pact recorder (pact/recorder.ts). */
export type CoverageMark = 'idempotency replay' | 'getJob other caller';

export class CoverageRecorder {
  private readonly counts = new Map<string, number>();
  /** jobId → owner fingerprint and Idempotency-Key of the jobs this engine created, newest kept. */
  private readonly created = new RecentMap<string, { owner: string; key: string | undefined }>({ maxEntries: rememberedJobs });

  /** Counts what `observation` showed; returns the mark of a replay or another caller's job. */
  observe(observation: Observation): CoverageMark | undefined {
    const { operationId, status, code, forced, job, caller } = observation;
    if (code !== undefined) this.count(`error ${code}`);
    if (operationId === undefined) return undefined;
    let mark: CoverageMark | undefined;
    this.count(`${operationId} ${status}`);
    if (observation.retryAfterSeconds !== undefined) this.count(`${operationId} Retry-After`);
    if (job) {
      this.count(`job ${job.status}`);
      if (job.evaluation) this.count(`evaluation ${job.evaluation}`);
    }
    if (operationId === 'createEvaluation' && status === 202 && job) {
      // A 202 naming a job this engine already gave out for the same caller and key is a replay.
      const before = this.created.get(job.jobId);
      if (before && before.owner === caller && before.key === observation.idempotencyKey) {
        this.count('idempotency replay');
        mark = 'idempotency replay';
      } else this.created.set(job.jobId, { owner: caller, key: observation.idempotencyKey });
    }
    if (operationId === 'createEvaluation' && status === 409 && !forced && code === 'idempotency_key_conflict') {
      this.count('idempotency conflict');
    }
    if (operationId === 'getJob' && status === 404 && !forced) {
      const owner = this.created.get(jobIdOfPath(observation.path))?.owner;
      if (owner !== undefined && owner !== caller) {
        this.count('getJob other caller');
        mark = 'getJob other caller';
      }
    }
    return mark;
  }

  /** Counts one answer for a behaviour of the catalogue; ids outside it (a status the catalogue does not list) are not kept. */
  private count(id: string): void {
    const before = this.counts.get(id);
    if (before !== undefined) this.counts.set(id, before + 1);
    else if (known.has(id)) this.counts.set(id, 1);
  }

  /** Every behaviour of the catalogue, with whether an answer has shown it. */
  behaviours(): BehaviourCoverage[] {
    return behaviours.map((behaviour) => {
      const count = this.counts.get(behaviour.id) ?? 0;
      return { ...behaviour, covered: count > 0, count };
    });
  }

  /** Forgets the jobs seen (a reset of the mock emptied its store) but keeps the counts. */
  forgetJobs(): void {
    this.created.clear();
  }

  clear(): void {
    this.counts.clear();
    this.created.clear();
  }
}

/** The jobId a getJob path names, decoded, or '' when it does not decode. */
export function jobIdOfPath(path: string): string {
  const raw = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return '';
  }
}
