/**
 * @module engine/jobs
 * Job lifecycles. A job follows the timeline its scenario gave it when it was created: each
 * step is reached after a number of reads, after some milliseconds on the engine's clock
 * (whichever comes first), or only when advanced by hand. States only move forward
 * (docs/assumptions.md ).
 */
import type { Evaluation, Job } from '../contract/index.js';

export interface TimelineStep {
  /** A bundled state, or one the served document adds, which ends the job. */
  readonly status: 'RUNNING' | 'COMPLETE' | 'FAILED' | (string & {});
  readonly evaluation?: Evaluation;
  readonly limitations?: readonly string[];
  /** When the step is reached: at the Nth read, after T ms, or only by hand. */
  readonly at: { readonly reads?: number; readonly ms?: number } | 'manual';
}

export interface JobRecord {
  readonly jobId: string;
  /** The caller who created it (docs/assumptions.md A-10). */
  readonly owner: string;
  readonly createdAt: number;
  readonly scenario: string;
  readonly timeline: readonly TimelineStep[];
  /** Index of the last step reached; -1 while QUEUED. */
  readonly reached: number;
  readonly reads: number;
  /** A state set through the control surface; it replaces the timeline from then on. */
  readonly pinned?: Job;
}

/** The step index due at `reads` reads and `elapsedMs`, never going back from `reached`. */
function dueStep(record: JobRecord, reads: number, elapsedMs: number): number {
  let reached = record.reached;
  for (let index = reached + 1; index < record.timeline.length; index += 1) {
    const at = record.timeline[index]!.at;
    if (at === 'manual') break;
    const byReads = at.reads !== undefined && reads >= at.reads;
    const byTime = at.ms !== undefined && elapsedMs >= at.ms;
    if (!byReads && !byTime) break;
    reached = index;
  }
  return reached;
}

/** The record after one more read at `now`. */
export function afterRead(record: JobRecord, now: number): JobRecord {
  if (record.pinned) return { ...record, reads: record.reads + 1 };
  const reads = record.reads + 1;
  return { ...record, reads, reached: dueStep(record, reads, now - record.createdAt) };
}

/** The record as time alone has moved it (for listings, which are not reads). */
export function atTime(record: JobRecord, now: number): JobRecord {
  if (record.pinned) return record;
  return { ...record, reached: dueStep(record, record.reads, now - record.createdAt) };
}

/** The record with its next step reached, whatever that step waits for. */
export function advanced(record: JobRecord): JobRecord {
  if (record.pinned || record.reached + 1 >= record.timeline.length) return record;
  return { ...record, reached: record.reached + 1 };
}

/** The contract's Job for a record. */
export function jobView(record: JobRecord): Job {
  if (record.pinned) return record.pinned;
  const step = record.reached >= 0 ? record.timeline[record.reached] : undefined;
  if (!step) return { jobId: record.jobId, status: 'QUEUED' };
  return {
    jobId: record.jobId,
    // A state the served document adds is its own; the bundled type does not name it.
    status: step.status as Job['status'],
    // Scenarios put evaluation on COMPLETE steps only; a profile may put it on FAILED ones too.
    ...((step.status === 'COMPLETE' || step.status === 'FAILED') && step.evaluation ? { evaluation: step.evaluation } : {}),
    ...(step.status !== 'RUNNING' && step.limitations?.length ? { limitations: [...step.limitations] } : {}),
  };
}

/** COMPLETE, FAILED, and any state a served document adds: every state but QUEUED and RUNNING ends a job. */
export function isFinal(status: string): boolean {
  return status !== 'QUEUED' && status !== 'RUNNING';
}

const order: Readonly<Record<string, number>> = { QUEUED: 0, RUNNING: 1 };

/** Why a move from `from` to `to` breaks the state machine, or undefined if it is allowed. */
export function transitionProblem(from: string, to: string): string | undefined {
  if (from === to) return undefined;
  if (isFinal(from)) return `${from} is final`;
  if ((order[to] ?? 2) < (order[from] ?? 2)) return `${to} comes before ${from}`;
  return undefined;
}
