/**
 * @module engine/pact/recorder
 * What a pact is written from: one example exchange per distinct behaviour the engine showed
 * its consumer (docs/assumptions.md A-29). A behaviour is the operation, method, status and
 * Error code, with what the engine knew when it answered: a new job or a replay, an
 * Idempotency-Key conflict, the job state delivered, a missing job or another caller's. Each
 * request costs a hash of those parts and one map lookup; the example is kept only the first
 * time a behaviour is seen, and both the count and the bytes kept are bounded.
 */
import type { Job } from '../../contract/index.js';
import { Scrubber } from '../../contract/secrets.js';
import type { EngineAnswer, EngineCall } from '../call.js';
import type { CoverageMark } from '../coverage.js';
import { learnCallCredentials } from '../credentials.js';
import type { JournalEntry } from '../journal.js';
import { jobStateName, stateNames } from './state-names.js';

/** The bounds of what a recorder keeps (docs/pact.md). */
export const pactRecordLimits = {
  /** Distinct behaviours kept; later new ones are counted as left out. */
  maxInteractions: 128,
  /** Largest request or answer body kept as an example. */
  maxBodyBytes: 256 * 1024,
  /** All bodies kept, together. */
  maxTotalBytes: 8 * 1024 * 1024,
} as const;

/** One behaviour's example, as the engine answered it the first time. */
export interface RecordedExchange {
  readonly key: string;
  readonly operationId: string;
  readonly method: string;
  /** As the client sent it, base path included. */
  readonly path: string;
  /** Idempotency-Key and Content-Type as sent: the only request headers the contract reads. */
  readonly requestHeaders: Readonly<Record<string, string>>;
  /** The request body as text (UTF-8), when it had one. */
  readonly requestBody?: string;
  readonly status: number;
  readonly code?: string;
  readonly responseContentType?: string;
  readonly responseBody?: string;
  readonly state?: { readonly name: string; readonly params: Readonly<Record<string, unknown>> };
  /** The path with the job id the state creates: `/v0/jobs/${jobId}`. */
  readonly pathExpression?: string;
  /** The job state the answer carried; a provider state promised it, so it is compared exactly. */
  readonly fixedJobState?: boolean;
}

const textDecoder = new TextDecoder('utf-8', { fatal: true });

function decoded(bytes: Uint8Array): string | undefined {
  try {
    return textDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** What sets a behaviour apart beyond its status and code; '' when nothing does. */
function kindOf(
  operationId: string,
  status: number,
  code: string | undefined,
  job: Job | undefined,
  mark: CoverageMark | undefined,
): string {
  if (operationId === 'createEvaluation') {
    if (status === 202) return mark === 'idempotency replay' ? 'replay' : 'new';
    if (status === 409 && code === 'idempotency_key_conflict') return 'conflict';
    return '';
  }
  if (operationId === 'getJob') {
    if (status === 200 && job) return 'job';
    if (status === 404) return mark === 'getJob other caller' ? 'other' : 'missing';
  }
  return '';
}

/** One behaviour's parts, compared field by field: a request already seen builds no key string. */
interface BehaviourParts {
  readonly operationId: string;
  readonly method: string;
  readonly status: number;
  readonly code: string;
  readonly kind: string;
  /** The job's state, evaluation and whether it had limitations, for answers carrying a job. */
  readonly jobStatus: string;
  readonly evaluation: string;
  readonly limited: boolean;
}

function mixed(hash: number, text: string): number {
  let next = hash;
  for (let index = 0; index < text.length; index += 1) next = Math.imul(next ^ text.charCodeAt(index), 0x01000193);
  // A separator, so that ('ab', 'c') and ('a', 'bc') differ.
  return Math.imul(next ^ 0x1f, 0x01000193);
}

function sameParts(
  parts: BehaviourParts,
  operationId: string,
  entry: Omit<JournalEntry, 'seq'>,
  kind: string,
  job: Job | undefined,
): boolean {
  return (
    parts.operationId === operationId &&
    parts.method === entry.method &&
    parts.status === entry.status &&
    parts.code === (entry.code ?? '') &&
    parts.kind === kind &&
    parts.jobStatus === (kind === 'job' ? job!.status : '') &&
    parts.evaluation === (kind === 'job' ? (job!.evaluation ?? '') : '') &&
    parts.limited === (kind === 'job' && (job!.limitations?.length ?? 0) > 0)
  );
}

const isJsonType = (type: string | null) => type !== null && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type);

function jsonOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The last path segment, decoded: the job id of a getJob path. */
function lastSegment(path: string): string {
  const raw = path.slice(path.lastIndexOf('/') + 1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The job's state as a provider state's params: `status`, and `evaluation` and `limitations` when it has them. */
function jobParams(job: Job): Record<string, unknown> {
  return {
    status: job.status,
    ...(job.evaluation === undefined ? {} : { evaluation: job.evaluation }),
    ...(job.limitations?.length ? { limitations: [...job.limitations] } : {}),
  };
}

/** The provider state the engine was in when it answered, with the params a verifier needs. */
function stateOf(options: {
  kind: string;
  operationId: string;
  status: number;
  code: string | undefined;
  path: string;
  idempotencyKey: string | null;
  job: Job | undefined;
  requestBody: string | undefined;
}): Pick<RecordedExchange, 'state' | 'pathExpression' | 'fixedJobState'> {
  const { kind, operationId, status, path, idempotencyKey, job } = options;
  const withKey = idempotencyKey === null ? {} : { idempotencyKey };
  // The job id the state creates replaces the one the client saw: ids differ from run to run.
  const jobPath = `${path.slice(0, path.lastIndexOf('/') + 1)}\${jobId}`;
  if (operationId === 'createEvaluation') {
    if (kind === 'new') return { state: { name: stateNames.keyUnused, params: withKey } };
    if (kind === 'replay') {
      // A replay answers the job as it is by then: the state says which, so a verifier's answer can match it.
      const params = { ...withKey, request: jsonOf(options.requestBody) ?? null, ...(job ? jobParams(job) : {}) };
      return { state: { name: stateNames.keyUsed, params }, ...(job ? { fixedJobState: true } : {}) };
    }
    if (kind === 'conflict') return { state: { name: stateNames.keyConflict, params: withKey } };
    return {};
  }
  if (operationId === 'getJob') {
    if (status === 200 && job) {
      return {
        state: { name: jobStateName(job.status, job.evaluation), params: jobParams(job) },
        pathExpression: jobPath,
        fixedJobState: true,
      };
    }
    if (kind === 'other') return { state: { name: stateNames.otherCallersJob, params: {} }, pathExpression: jobPath };
    if (kind === 'missing') return { state: { name: stateNames.noJob, params: { jobId: lastSegment(path) } } };
  }
  return {};
}

export class PactRecorder {
  private readonly exchanges = new Map<string, RecordedExchange>();
  /** Every behaviour seen, by a hash of its parts (bounded: seenCount). */
  private readonly seen = new Map<number, BehaviourParts[]>();
  private seenCount = 0;
  private leftOutCount = 0;
  private bytesKept = 0;
  /** Learns the credentials of the calls kept, to take them out of what is written. */
  private scrubber = new Scrubber();

  /**
   * Called for every answered call. Positional rather than an options object: it runs for every
   * request the mock answers, and this way a behaviour already seen allocates nothing.
   */
  observe(
    call: EngineCall,
    entry: Omit<JournalEntry, 'seq'>,
    answer: EngineAnswer,
    job: Job | undefined,
    body: Uint8Array | undefined,
    mark: CoverageMark | undefined,
  ): void {
    const operationId = entry.operationId;
    // A forced answer (a scenario's fault, Prefer: code=) is the mock's, not the provider's behaviour.
    if (operationId === undefined || entry.forced) return;
    const kind = kindOf(operationId, entry.status, entry.code, job, mark);
    const forJob = kind === 'job';
    let hash = mixed(mixed(mixed(0x811c9dc5 ^ entry.status, operationId), entry.method), entry.code ?? '');
    hash = mixed(hash, kind);
    if (forJob) hash = mixed(mixed(hash, job!.status), job!.evaluation ?? '') ^ (job!.limitations?.length ? 1 : 0);
    const bucket = this.seen.get(hash);
    if (bucket) for (const parts of bucket) if (sameParts(parts, operationId, entry, kind, job)) return;
    const parts: BehaviourParts = {
      operationId,
      method: entry.method,
      status: entry.status,
      code: entry.code ?? '',
      kind,
      jobStatus: forJob ? job!.status : '',
      evaluation: forJob ? (job!.evaluation ?? '') : '',
      limited: forJob && (job!.limitations?.length ?? 0) > 0,
    };
    // Seen from now on, kept or not: a flood of one behaviour that cannot be kept costs a lookup each.
    if (this.seenCount >= 2 * pactRecordLimits.maxInteractions) return;
    this.seenCount += 1;
    if (bucket) bucket.push(parts);
    else this.seen.set(hash, [parts]);
    const key = `${operationId} ${entry.method} ${entry.status} ${parts.code} ${kind} ${parts.jobStatus} ${parts.evaluation} ${parts.limited}`;
    const kept = this.example({ key, kind, call, entry, answer, job, body });
    if (kept === undefined || this.exchanges.size >= pactRecordLimits.maxInteractions) {
      this.leftOutCount += 1;
      return;
    }
    this.exchanges.set(key, kept);
    learnCallCredentials(call, this.scrubber);
  }

  private example(options: {
    key: string;
    kind: string;
    call: EngineCall;
    entry: Omit<JournalEntry, 'seq'>;
    answer: EngineAnswer;
    job: Job | undefined;
    body: Uint8Array | undefined;
  }): RecordedExchange | undefined {
    const { key, kind, call, entry, answer, job, body } = options;
    // A body in a media type the contract does not take is the client's mistake, not an
    // expectation of the provider: PactFlow's bi-directional check refuses a pact holding one.
    if (entry.status === 415) return undefined;
    const declared = Number(call.header('content-length') ?? 0);
    // A body the engine did not read whole (over its limit) cannot be sent again by a verifier.
    if (body === undefined && (declared > 0 || call.header('transfer-encoding') !== null)) return undefined;
    const requestBody = body && body.byteLength > 0 ? decoded(body) : undefined;
    if (body && body.byteLength > 0 && requestBody === undefined) return undefined;
    // A body that claims JSON and is not: Pact JS's verifier parses JSON bodies in its own proxy
    // and answers a broken one itself, so no provider could be verified on it (docs/pact.md).
    if (requestBody !== undefined && isJsonType(call.header('content-type')) && jsonOf(requestBody) === undefined) return undefined;
    const size = (body?.byteLength ?? 0) + (answer.body?.length ?? 0);
    if (
      (body?.byteLength ?? 0) > pactRecordLimits.maxBodyBytes ||
      (answer.body?.length ?? 0) > pactRecordLimits.maxBodyBytes ||
      this.bytesKept + size > pactRecordLimits.maxTotalBytes
    ) {
      return undefined;
    }
    this.bytesKept += size;
    const requestHeaders: Record<string, string> = {};
    const idempotencyKey = call.header('idempotency-key');
    if (idempotencyKey !== null) requestHeaders['Idempotency-Key'] = idempotencyKey;
    const contentType = call.header('content-type');
    if (contentType !== null && requestBody !== undefined) requestHeaders['Content-Type'] = contentType;
    const operationId = entry.operationId!;
    const state = stateOf({
      kind,
      operationId,
      status: entry.status,
      code: entry.code,
      path: entry.path,
      idempotencyKey,
      job,
      requestBody,
    });
    const responseContentType = answer.headers['content-type'];
    return {
      key,
      operationId,
      method: entry.method.toUpperCase(),
      path: entry.path,
      requestHeaders,
      ...(requestBody === undefined ? {} : { requestBody }),
      status: entry.status,
      ...(entry.code === undefined ? {} : { code: entry.code }),
      ...(responseContentType === undefined ? {} : { responseContentType }),
      ...(answer.body === null || answer.body === '' ? {} : { responseBody: answer.body }),
      ...state,
    };
  }

  /** Every behaviour kept, in the order first seen. */
  recorded(): readonly RecordedExchange[] {
    return [...this.exchanges.values()];
  }

  /** How many behaviours were seen but not kept. */
  get leftOut(): number {
    return this.leftOutCount;
  }

  /** A scrubber that knows every credential the kept calls carried. */
  scrubberForPact(): Scrubber {
    return this.scrubber;
  }

  clear(): void {
    this.exchanges.clear();
    this.seen.clear();
    this.seenCount = 0;
    this.leftOutCount = 0;
    this.bytesKept = 0;
    this.scrubber = new Scrubber();
  }
}
