/**
 * @module engine/job-control
 * The control surface's view of the job store: listing and inspecting jobs, and moving one on
 * by hand (`advanceJob`, `setJobState`) under the state machine's rules. Every move
 * is a compare-and-set on the store, so a move never overwrites a read or a move made at the
 * same time on another replica.
 */
import type { Job } from '../contract/index.js';
import { canonicalJson } from './canonical-json.js';
import type { Clock } from './clock.js';
import { ControlError, pageLimit, pageLimits } from './control-error.js';
import type { EngineContract } from './engine-contract.js';
import { advanced, atTime, isFinal, type JobRecord, jobView, transitionProblem } from './jobs.js';
import { quote } from './responses.js';
import type { KeyValueStore } from './store.js';
import { describeDiagnostics, diagnose } from './validation.js';

/** A job as the control surface shows it: the contract's view plus the mock's bookkeeping. */
export interface JobInspection {
  readonly job: Job;
  /** The creator as a fingerprint (`sha256:…`, or `anonymous`): never the credential itself. */
  readonly owner: string;
  readonly scenario: string;
  readonly createdAt: number;
  readonly reads: number;
}

/** A state `setJobState` may put a job in. */
export interface JobStateChange {
  readonly jobId: string;
  readonly status: Job['status'];
  readonly evaluation?: Job['evaluation'];
  readonly limitations?: readonly string[];
}

/** A compare-and-set that keeps losing to other writers gives up after this many tries. */
const maxAttempts = 20;

export class JobControl {
  constructor(
    private readonly options: { readonly jobs: KeyValueStore<JobRecord>; readonly clock: Clock; readonly contract: EngineContract },
  ) {}

  async listJobs(): Promise<readonly JobInspection[]> {
    const all: JobInspection[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.options.jobs.page({ limit: pageLimits.max, ...(cursor === undefined ? {} : { cursor }) });
      for (const [, entry] of page.entries) all.push(this.inspection(entry.value));
      cursor = page.next;
    } while (cursor !== undefined);
    return all;
  }

  async jobsPage(request: { limit?: number; cursor?: string } = {}): Promise<{ jobs: readonly JobInspection[]; nextCursor?: string }> {
    const limit = pageLimit(request.limit);
    let page: Awaited<ReturnType<KeyValueStore<JobRecord>['page']>>;
    try {
      page = await this.options.jobs.page({
        limit,
        maxBytes: pageLimits.maxBytes,
        ...(request.cursor === undefined ? {} : { cursor: request.cursor }),
      });
    } catch (error) {
      if (error instanceof TypeError)
        throw new ControlError(`cursor ${quote(request.cursor ?? '', 40)} is not one this mock gave`, 'invalid');
      throw error;
    }
    const listed = page.entries.map(([, entry]) => this.inspection(entry.value));
    return page.next === undefined ? { jobs: listed } : { jobs: listed, nextCursor: page.next };
  }

  async inspectJob(jobId: string): Promise<JobInspection | undefined> {
    const entry = await this.options.jobs.get(jobId);
    return entry ? this.inspection(entry.value) : undefined;
  }

  /** Moves a job to its next timeline step now, whatever that step waits for. */
  advanceJob(jobId: string): Promise<Job> {
    return this.update(jobId, (record) => {
      if (record.pinned || record.reached + 1 >= record.timeline.length) {
        throw new ControlError(`job ${quote(jobId, 140)} is ${jobView(record).status} and has no further step`, 'invalid');
      }
      return advanced(record);
    });
  }

  /** Pins a job's state; the move must follow the state machine and evaluation rules. */
  setJobState({ jobId, ...state }: JobStateChange): Promise<Job> {
    // The state arrives from the control API as untrusted JSON: it must be a Job the
    // contract allows (enums, limits, no other property) before the mock serves it.
    const pinned = { jobId, ...state } as Job;
    const diagnostics = diagnose({ schema: this.options.contract.job, value: pinned });
    if (diagnostics.length > 0)
      return Promise.reject(new ControlError(`not a valid job state: ${describeDiagnostics(diagnostics)}`, 'invalid'));
    return this.update(jobId, (record) => {
      const currentJob = jobView(record);
      const current = currentJob.status;
      if (isFinal(current) && canonicalJson(currentJob) !== canonicalJson(pinned)) {
        const target = pinned.status === current ? `${pinned.status} with another evaluation or limitations` : pinned.status;
        throw new ControlError(
          `job ${quote(jobId, 140)} cannot move from ${current} to ${target}: ${current} is final (docs/assumptions.md A-3)`,
          'invalid',
        );
      }
      const problem = moveProblem({ current, pinned });
      if (problem) throw new ControlError(problem.replace('%job', `job ${quote(jobId, 140)}`), 'invalid');
      // No empty limitations array: none is shown as no property.
      const { limitations, ...rest } = pinned;
      return { ...record, pinned: limitations?.length ? { ...rest, limitations: [...limitations] } : rest };
    });
  }

  private inspection(record: JobRecord): JobInspection {
    return {
      job: jobView(atTime(record, this.options.clock.now())),
      owner: record.owner,
      scenario: record.scenario,
      createdAt: record.createdAt,
      reads: record.reads,
    };
  }

  private async update(jobId: string, change: (record: JobRecord) => JobRecord): Promise<Job> {
    const { jobs, clock } = this.options;
    for (let attempt = 0; attempt < maxAttempts; attempt += 1) {
      const entry = await jobs.get(jobId);
      if (!entry) throw new ControlError(`no job ${quote(jobId, 140)}`, 'not_found');
      const next = change(atTime(entry.value, clock.now()));
      if (await jobs.compareAndSet(jobId, entry.version, next)) return jobView(next);
    }
    throw new ControlError(`job ${quote(jobId, 140)} kept changing; try again`, 'invalid');
  }
}

/** Why a job in state `current` cannot be pinned to `pinned` (`%job` names the job), or undefined. */
function moveProblem(options: { current: string; pinned: Job }): string | undefined {
  const { current, pinned } = options;
  const { status, evaluation, limitations } = pinned;
  const problem = transitionProblem(current, status);
  if (problem) return `%job cannot move from ${current} to ${status}: ${problem}`;
  if ((status === 'COMPLETE') !== (evaluation !== undefined))
    return status === 'COMPLETE' ? 'a COMPLETE job needs an evaluation' : `a ${status} job has no evaluation`;
  if (limitations?.length && !isFinal(status)) return 'limitations appear only on COMPLETE or FAILED jobs';
  return undefined;
}
