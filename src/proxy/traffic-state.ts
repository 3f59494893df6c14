/**
 * @module proxy/traffic-state
 * What the proxy remembers of the traffic it saw, so that the runner's stateful checks can judge
 * live exchanges passively: which caller used which Idempotency-Key with which body and got
 * which job, and what each job's status was at each read. From it, each new exchange gets the
 * intent the runner would have sent it with — a replay, a conflict, a poll with its history,
 * another caller's read — and the same check judges it the same way in `conformance` and
 * `proxy`. Bounded: the oldest keys and jobs are forgotten first.
 */
import { createHash } from 'node:crypto';
import type { Intent, JobObservation } from '../conformance/exchange.js';
import { canonicalJson } from '../engine/canonical-json.js';

/**
 * A create's body as remembered under its key. Its digest only matters if the key comes again
 * (a replay or a conflict), which most keys never do: a short body keeps its text and is digested
 * then, which spares every other create the canonical JSON and the SHA-256 (about a tenth of the
 * proxy's CPU per create, measured). A longer one is digested at once, so that the memory held
 * stays bounded (at most `maxKeptText` characters per key).
 */
export interface RememberedBody {
  /** The body's text, while no digest was needed. */
  readonly text?: string;
  /** Set at once for a long body, on first need for a short one. */
  digest?: string;
}

interface KeyRecord {
  readonly body: RememberedBody;
  jobId?: string;
}

interface JobRecord {
  readonly owner: string;
  readonly history: JobObservation[];
}

/** Jobs and keys remembered, each; the oldest go first. */
const defaultCapacity = 10_000;
/** Observations kept per job: enough to see a status move back, never a history of millions. */
const historyLength = 32;
/** The longest body text kept undigested (the contract's example create is about 400). */
export const maxKeptText = 1024;

/** docs/assumptions.md A-5: SHA-256 over the canonical JSON of the parsed body. */
function digestOf(json: unknown): string {
  return createHash('sha256').update(canonicalJson(json)).digest('hex');
}

/** The digest of a remembered body, computed once, when first asked for. */
function rememberedDigest(body: RememberedBody): string {
  body.digest ??= digestOf(JSON.parse(body.text ?? ''));
  return body.digest;
}

export class TrafficState {
  private readonly keys = new Map<string, KeyRecord>();
  private readonly jobs = new Map<string, JobRecord>();

  constructor(private readonly capacity = defaultCapacity) {}

  /**
   * The intent of a valid createEvaluation, from what this caller did with this key before.
   * `body` is the parsed body; `text`, when given, the exact text it was parsed from.
   */
  createIntent(options: { caller: string; key: string; body: unknown; text?: string }): { intent: Intent; body: RememberedBody } {
    const earlier = this.keys.get(`${options.caller}\n${options.key}`);
    if (earlier?.jobId !== undefined) {
      const digest = digestOf(options.body);
      return {
        body: { digest },
        intent:
          rememberedDigest(earlier.body) === digest ? { kind: 'replay', jobId: earlier.jobId } : { kind: 'conflict', jobId: earlier.jobId },
      };
    }
    const text = options.text;
    return {
      body: text !== undefined && text.length <= maxKeptText ? { text } : { digest: digestOf(options.body) },
      intent: { kind: 'create', purpose: 'observed' },
    };
  }

  /** Remembers the job a create got (only a new key's first job; a replay or conflict changes nothing). */
  createAnswered(options: { caller: string; key: string; body: RememberedBody; intent: Intent; status: number; job: unknown }): void {
    if (options.intent.kind !== 'create' || options.status < 200 || options.status >= 300) return;
    const jobId = jobIdOf(options.job);
    if (jobId === undefined) return;
    remember(this.keys, `${options.caller}\n${options.key}`, { body: options.body, jobId }, this.capacity);
    remember(this.jobs, jobId, { owner: options.caller, history: [] }, this.capacity);
    this.observe(jobId, options.job);
  }

  /** The intent of a valid getJob: the owner's poll with what was seen before, or another caller's read. */
  readIntent(options: { caller: string; jobId: string }): Intent {
    const job = this.jobs.get(options.jobId);
    if (!job)
      return {
        kind: 'positive',
        source: 'observed',
        description: `read of job ${options.jobId.slice(0, 40)}, not created through the proxy`,
      };
    if (job.owner !== options.caller) return { kind: 'second-caller', jobId: options.jobId };
    return { kind: 'poll', jobId: options.jobId, history: [...job.history] };
  }

  /** Records the status a whole 200 answer showed for a job. */
  readAnswered(options: { jobId: string; status: number; job: unknown }): void {
    if (options.status === 200 && jobIdOf(options.job) === options.jobId) this.observe(options.jobId, options.job);
  }

  private observe(jobId: string, job: unknown): void {
    const record = this.jobs.get(jobId);
    const status = (job as { status?: unknown })?.status;
    if (!record || typeof status !== 'string') return;
    const evaluation = (job as { evaluation?: unknown }).evaluation;
    record.history.push({ status, ...(typeof evaluation === 'string' ? { evaluation } : {}) });
    if (record.history.length > historyLength) record.history.splice(0, record.history.length - historyLength);
  }
}

function jobIdOf(job: unknown): string | undefined {
  const jobId = (job as { jobId?: unknown } | undefined)?.jobId;
  return typeof jobId === 'string' && jobId.length <= 128 ? jobId : undefined;
}

/**
 * Stores `value` as the newest entry; past `capacity`, the oldest tenth is forgotten at once. One
 * at a time would cost a scan per insert: a Map's iterator steps over the slots its deletions
 * left at the front until the table is rebuilt, thousands of them at a 10,000 bound.
 */
function remember<V>(map: Map<string, V>, key: string, value: V, capacity: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size <= capacity) return;
  let excess = map.size - Math.floor(capacity * 0.9);
  for (const oldest of map.keys()) {
    if (excess <= 0) break;
    map.delete(oldest);
    excess -= 1;
  }
}
